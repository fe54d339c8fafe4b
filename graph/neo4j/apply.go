package neo4j

import (
	"context"
	"errors"
	"fmt"

	"github.com/kgmem/kgmem"
	"github.com/neo4j/neo4j-go-driver/v5/neo4j"
)

// Write queries. Every value, label and relationship type is a parameter;
// $(...) is Neo4j 5.26's dynamic label and type syntax.
const (
	// qMissingEntities returns the ids among $ids with no entity in $ns.
	qMissingEntities = stablePlan + `UNWIND $ids AS id
		OPTIONAL MATCH (e:Entity {namespace: $ns, id: id})
		WITH id, e WHERE e IS NULL
		RETURN collect(id) AS missing`
	qMissingEpisodes = stablePlan + `UNWIND $ids AS id
		OPTIONAL MATCH (e:Episode {namespace: $ns, id: id})
		WITH id, e WHERE e IS NULL
		RETURN collect(id) AS missing`
	// qInsertEpisodes inserts episodes that do not exist yet.
	qInsertEpisodes = stablePlan + `UNWIND $rows AS row
		MERGE (e:Episode {namespace: $ns, id: row.id})
		ON CREATE SET e = row`
	// qUpsertEntities replaces every property and the type label.
	qUpsertEntities = stablePlan + `UNWIND $rows AS row
		MERGE (e:Entity {namespace: $ns, id: row.props.id})
		WITH e, row, [l IN labels(e) WHERE l <> 'Entity'] AS old
		REMOVE e:$(old)
		SET e = row.props, e:$(row.label)`
	// qDeleteFactRels removes the relationships of facts about to be rewritten
	// (a rewrite may change the predicate, hence the type, or the ends).
	qDeleteFactRels = stablePlan + `UNWIND $ids AS id
		MATCH (t:FactText {namespace: $ns, id: id})
		WITH t` + factRel + `
		DELETE r`
	// qCreateFacts creates each fact's relationship and upserts its index node.
	qCreateFacts = stablePlan + `UNWIND $rows AS row
		MATCH (s:Entity {namespace: $ns, id: row.rel.subject_id})
		MATCH (o:Entity {namespace: $ns, id: row.rel.object_id})
		CREATE (s)-[r:$(row.type)]->(o)
		SET r = row.rel
		MERGE (t:FactText {namespace: $ns, id: row.rel.id})
		SET t = row.text`
	// qUpsertItems replaces every property of each item.
	qUpsertItems = stablePlan + `UNWIND $rows AS row
		MERGE (i:` + labelItem + ` {namespace: $ns, id: row.id})
		SET i = row`
	// qMentions links episodes to entities once.
	qMentions = stablePlan + `UNWIND $rows AS row
		MATCH (ep:Episode {namespace: $ns, id: row.episode_id})
		MATCH (e:Entity {namespace: $ns, id: row.entity_id})
		MERGE (ep)-[:MENTIONS]->(e)`
)

// Apply writes cs in one transaction: all of it or, on any error, nothing.
// References to records neither stored in the namespace nor in cs are
// checked inside the transaction before anything is written. A change set
// with facts also sets the namespace's graph version (version.go).
func (s *Store) Apply(ctx context.Context, cs kgmem.ChangeSet) error {
	if err := validate(cs); err != nil {
		return fmt.Errorf("neo4j: apply: %w", err)
	}
	if cs.Empty() {
		return nil
	}
	key := s.key(cs.Namespace)
	w, err := encodeChangeSet(key, cs)
	if err != nil {
		return fmt.Errorf("neo4j: apply: %w", err)
	}
	err = s.write(ctx, func(tx neo4j.ManagedTransaction) error { return w.apply(ctx, tx, cs) })
	if err != nil {
		return fmt.Errorf("neo4j: apply to %s: %w", cs.Namespace, err)
	}
	return nil
}

// encoded is a ChangeSet turned into query parameters.
type encoded struct {
	key                       string
	episodes, entities, facts []map[string]any
	mentions, items           []map[string]any
	factIDs                   []string
	refEntities, refEpisodes  []string
	entityField, episodeField map[string]string // referenced id → first field naming it
}

// encodeChangeSet converts cs and collects the ids it references but does
// not write itself.
func encodeChangeSet(key string, cs kgmem.ChangeSet) (*encoded, error) {
	w := &encoded{key: key, entityField: map[string]string{}, episodeField: map[string]string{}}
	var errs []error
	newEntity, newEpisode := map[string]bool{}, map[string]bool{}
	for i, e := range cs.Episodes {
		p, err := episodeProps(key, fmt.Sprintf("episodes[%d]", i), e)
		errs = append(errs, err)
		if p != nil {
			p["seq"] = int64(i) // the storage order within a thread, after timestamp and created_at (ThreadNeighbors)
		}
		w.episodes = append(w.episodes, p)
		newEpisode[e.ID] = true
	}
	for i, e := range cs.Entities {
		p, err := entityProps(key, fmt.Sprintf("entities[%d]", i), e)
		errs = append(errs, err)
		w.entities = append(w.entities, map[string]any{"props": p, "label": Label(e.Type)})
		newEntity[e.ID] = true
	}
	ref := func(ids []string, field map[string]string, isNew map[string]bool, id, f string) []string {
		if isNew[id] {
			return ids
		}
		if _, ok := field[id]; !ok {
			field[id] = f
			ids = append(ids, id)
		}
		return ids
	}
	for i, f := range cs.Facts {
		field := fmt.Sprintf("facts[%d]", i)
		p, err := factProps(key, field, f)
		errs = append(errs, err)
		w.facts = append(w.facts, map[string]any{"rel": p, "type": RelType(f.Predicate), "text": factTextProps(key, f)})
		w.factIDs = append(w.factIDs, f.ID)
		w.refEntities = ref(w.refEntities, w.entityField, newEntity, f.SubjectID, field+".subject_id")
		w.refEntities = ref(w.refEntities, w.entityField, newEntity, f.ObjectID, field+".object_id")
	}
	for _, it := range cs.Items {
		w.items = append(w.items, itemProps(key, it))
	}
	for i, m := range cs.Mentions {
		field := fmt.Sprintf("mentions[%d]", i)
		w.mentions = append(w.mentions, map[string]any{"episode_id": m.EpisodeID, "entity_id": m.EntityID})
		w.refEpisodes = ref(w.refEpisodes, w.episodeField, newEpisode, m.EpisodeID, field+".episode_id")
		w.refEntities = ref(w.refEntities, w.entityField, newEntity, m.EntityID, field+".entity_id")
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return w, nil
}

// apply runs the write queries inside tx, references first, and gives the
// namespace a new graph version when cs writes facts.
func (w *encoded) apply(ctx context.Context, tx neo4j.ManagedTransaction, cs kgmem.ChangeSet) error {
	if err := w.checkRefs(ctx, tx, qMissingEntities, w.refEntities, w.entityField, "entity"); err != nil {
		return err
	}
	if err := w.checkRefs(ctx, tx, qMissingEpisodes, w.refEpisodes, w.episodeField, "episode"); err != nil {
		return err
	}
	steps := []struct {
		what  string
		query string
		param string
		rows  any
		n     int
	}{
		{"episodes", qInsertEpisodes, "rows", w.episodes, len(w.episodes)},
		{"entities", qUpsertEntities, "rows", w.entities, len(w.entities)},
		{"old fact relationships", qDeleteFactRels, "ids", w.factIDs, len(w.factIDs)},
		{"facts", qCreateFacts, "rows", w.facts, len(w.facts)},
		{"mentions", qMentions, "rows", w.mentions, len(w.mentions)},
		{"items", qUpsertItems, "rows", w.items, len(w.items)},
	}
	for _, st := range steps {
		if st.n == 0 {
			continue
		}
		if _, err := run(ctx, tx, st.query, map[string]any{"ns": w.key, st.param: st.rows}); err != nil {
			return fmt.Errorf("write %s: %w", st.what, err)
		}
	}
	if len(w.facts) > 0 {
		// Only facts change the graph a FactsOnly walk sees (version.go).
		return bumpVersion(ctx, tx, w.key)
	}
	return nil
}

// checkRefs fails with a FieldError when one of ids is missing from the namespace.
func (w *encoded) checkRefs(ctx context.Context, tx neo4j.ManagedTransaction, query string, ids []string, field map[string]string, what string) error {
	if len(ids) == 0 {
		return nil
	}
	recs, err := run(ctx, tx, query, map[string]any{"ns": w.key, "ids": ids})
	if err != nil {
		return fmt.Errorf("check %s references: %w", what, err)
	}
	if len(recs) == 0 {
		return nil
	}
	missing, _ := recs[0].Values[0].([]any)
	if len(missing) == 0 {
		return nil
	}
	var errs []error
	for _, m := range missing {
		id, _ := m.(string)
		errs = append(errs, kgmem.Invalidf(field[id], "%s %q does not exist in the namespace", what, id))
	}
	return errors.Join(errs...)
}
