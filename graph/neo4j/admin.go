package neo4j

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/kgmem/kgmem"
	"github.com/neo4j/neo4j-go-driver/v5/neo4j"
)

// purgeBatch is the number of nodes one inner transaction of a purge deletes.
const purgeBatch = 5000

// SetDecay overwrites the decay state of the given records atomically; a
// record missing from ns fails the call with kgmem.ErrNotFound and nothing
// changes.
func (s *Store) SetDecay(ctx context.Context, ns kgmem.Namespace, updates []kgmem.DecayUpdate) error {
	if err := checkNamespace(ns); err != nil {
		return fmt.Errorf("neo4j: set decay: %w", err)
	}
	if err := kgmem.ValidateDecayUpdates(updates); err != nil {
		return fmt.Errorf("neo4j: set decay: %w", err)
	}
	byKind := map[kgmem.Kind][]map[string]any{}
	for _, u := range updates {
		p := map[string]any{"id": u.ID}
		decayProps(p, u.State)
		byKind[u.Kind] = append(byKind[u.Kind], p)
	}
	if len(updates) == 0 {
		return nil
	}
	// Each kind: the records to update (t for facts: their relationships).
	match := map[kgmem.Kind]string{
		kgmem.KindEntity:  `MATCH (x:Entity {namespace: $ns, id: row.id})`,
		kgmem.KindEpisode: `MATCH (x:Episode {namespace: $ns, id: row.id})`,
		kgmem.KindItem:    `MATCH (x:` + labelItem + ` {namespace: $ns, id: row.id})`,
		kgmem.KindFact: `MATCH (t:FactText {namespace: $ns, id: row.id})
			WITH row, t` + factRel + ` WITH row, r AS x`,
	}
	key := s.key(ns)
	err := s.write(ctx, func(tx neo4j.ManagedTransaction) error {
		for _, k := range kgmem.AllKinds() {
			rows := byKind[k]
			if len(rows) == 0 {
				continue
			}
			recs, err := run(ctx, tx, stablePlan+`UNWIND $rows AS row `+match[k]+` WITH row, x
				SET x.stability = row.stability, x.last_reinforced_at = row.last_reinforced_at,
				    x.reinforcements = row.reinforcements, x.pinned = row.pinned, x.forgotten_at = row.forgotten_at
				RETURN collect(DISTINCT row.id) AS done`, map[string]any{"ns": key, "rows": rows})
			if err != nil {
				return fmt.Errorf("%s decay: %w", k, err)
			}
			done := map[string]bool{}
			if len(recs) > 0 {
				ids, _ := recs[0].Values[0].([]any)
				for _, id := range ids {
					s, _ := id.(string)
					done[s] = true
				}
			}
			for _, row := range rows {
				if id := row["id"].(string); !done[id] {
					// Returning an error rolls the whole transaction back.
					return fmt.Errorf("%s %q: %w", k, id, kgmem.ErrNotFound)
				}
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("neo4j: set decay in %s: %w", ns, err)
	}
	return nil
}

// DeleteFact hard-deletes one fact of ns (its relationship and index node)
// and sets the namespace's graph version in the same transaction;
// kgmem.ErrNotFound when absent.
func (s *Store) DeleteFact(ctx context.Context, ns kgmem.Namespace, id string) error {
	if err := checkNamespace(ns); err != nil {
		return fmt.Errorf("neo4j: delete fact: %w", err)
	}
	err := s.write(ctx, func(tx neo4j.ManagedTransaction) error {
		recs, err := run(ctx, tx, `MATCH (t:FactText {namespace: $ns, id: $id})
			CALL (t) {`+factRel+` DELETE r }
			DELETE t
			RETURN count(*) AS n`, map[string]any{"ns": s.key(ns), "id": id})
		if err != nil {
			return err
		}
		if n, _ := recs[0].Values[0].(int64); n == 0 {
			return kgmem.ErrNotFound
		}
		return bumpVersion(ctx, tx, s.key(ns))
	})
	if err != nil {
		return fmt.Errorf("neo4j: delete fact %q in %s: %w", id, ns, err)
	}
	return nil
}

// PurgeNamespace hard-deletes every record, mention, search entry, the
// settings and the graph version of ns and reports how many records it
// removed. Deletion runs in batches of inner transactions (CALL { } IN
// TRANSACTIONS), so a namespace of any size fits the transaction memory; an
// interrupted purge is finished by calling it again. Until it finishes, the
// namespace's graph version is marked purging, so FactsOnly walks read the
// facts in Cypher rather than from a topology the batches make stale.
func (s *Store) PurgeNamespace(ctx context.Context, ns kgmem.Namespace) (kgmem.PurgeStats, error) {
	if err := checkNamespace(ns); err != nil {
		return kgmem.PurgeStats{}, fmt.Errorf("neo4j: purge: %w", err)
	}
	key := s.key(ns)
	// Its settings go too: none is held while it runs, nor after.
	defer s.settings.change(key)()
	recs, err := s.read(ctx, `CALL () { MATCH (n:Episode {namespace: $ns}) RETURN count(n) AS episodes }
		CALL () { MATCH (n:Entity {namespace: $ns}) RETURN count(n) AS entities }
		CALL () { MATCH (n:FactText {namespace: $ns}) RETURN count(n) AS facts }
		CALL () { MATCH (n:`+labelItem+` {namespace: $ns}) RETURN count(n) AS items }
		RETURN episodes, entities, facts, items`, map[string]any{"ns": key})
	if err != nil {
		return kgmem.PurgeStats{}, fmt.Errorf("neo4j: purge %s: count: %w", ns, err)
	}
	var st kgmem.PurgeStats
	if len(recs) == 1 {
		n := func(i int) int { v, _ := recs[0].Values[i].(int64); return int(v) }
		st = kgmem.PurgeStats{Episodes: n(0), Entities: n(1), Facts: n(2), Items: n(3)}
	}
	// Readers must not cache the facts while batches delete them (version.go).
	err = s.write(ctx, func(tx neo4j.ManagedTransaction) error {
		_, err := run(ctx, tx, qMarkPurging, map[string]any{"ns": key, "version": newVersion()})
		return err
	})
	if err != nil {
		return kgmem.PurgeStats{}, fmt.Errorf("neo4j: purge %s: mark the graph version: %w", ns, err)
	}
	for _, label := range purgedLabels {
		err := s.autoCommit(ctx, qPurge(label), map[string]any{"ns": key})
		if err != nil {
			return st, fmt.Errorf("neo4j: purge %s: delete %s: %w", ns, label, err)
		}
	}
	return st, nil
}

// purgedLabels are the labels of a namespace's nodes, in the order a purge
// deletes them: the graph version last, when no fact is left.
var purgedLabels = []string{labelFactText, labelEpisode, labelEntity, labelItem, labelSettings, labelGraphVersion}

// qPurge deletes the nodes of label in $ns, in batches. The label is
// written into the query, not passed as a parameter: Neo4j plans a dynamic
// label ($($label)) as a scan of every node in the database, filtered.
func qPurge(label string) string {
	return qPurgeMatch(label) + ` CALL (n) { DETACH DELETE n } IN TRANSACTIONS OF ` + fmt.Sprint(purgeBatch) + ` ROWS`
}

// qPurgeMatch binds n to each node of label in $ns: qPurge's reading part.
func qPurgeMatch(label string) string { return `MATCH (n:` + label + ` {namespace: $ns})` }

// Namespaces lists, in byte order, every namespace of this store's scope
// that holds a record or settings.
func (s *Store) Namespaces(ctx context.Context) ([]kgmem.Namespace, error) {
	recs, err := s.read(ctx, `CALL () {
			MATCH (n:Entity) RETURN DISTINCT n.namespace AS ns
			UNION MATCH (n:Episode) RETURN DISTINCT n.namespace AS ns
			UNION MATCH (n:`+labelItem+`) RETURN DISTINCT n.namespace AS ns
			UNION MATCH (n:KgmemSettings) RETURN DISTINCT n.namespace AS ns
		}
		RETURN ns`, nil)
	if err != nil {
		return nil, fmt.Errorf("neo4j: namespaces: %w", err)
	}
	var out []kgmem.Namespace
	for _, rec := range recs {
		stored, _ := rec.Values[0].(string)
		if ns, ok := s.unkey(stored); ok {
			out = append(out, ns)
		}
	}
	slices.Sort(out)
	return out, nil
}

// Settings returns the settings of ns (the zero value when none were stored).
func (s *Store) Settings(ctx context.Context, ns kgmem.Namespace) (kgmem.NamespaceSettings, error) {
	if err := checkNamespace(ns); err != nil {
		return kgmem.NamespaceSettings{}, fmt.Errorf("neo4j: settings: %w", err)
	}
	key := s.key(ns)
	raw, cached, gen := s.settings.get(key)
	if !cached {
		readAt := time.Now()
		recs, err := s.read(ctx, stablePlan+`MATCH (n:KgmemSettings {namespace: $ns}) RETURN n.json`, map[string]any{"ns": key})
		if err != nil {
			return kgmem.NamespaceSettings{}, fmt.Errorf("neo4j: settings of %s: %w", ns, err)
		}
		if len(recs) > 0 {
			raw, _ = recs[0].Values[0].(string)
		}
		s.settings.put(key, raw, gen, readAt)
	}
	var out kgmem.NamespaceSettings
	if raw == "" {
		return out, nil
	}
	if err := json.Unmarshal([]byte(raw), &out); err != nil {
		return kgmem.NamespaceSettings{}, fmt.Errorf("neo4j: settings of %s: decode: %w", ns, err)
	}
	return out, nil
}

// PutSettings replaces the settings of ns; Decay must be valid JSON.
func (s *Store) PutSettings(ctx context.Context, ns kgmem.Namespace, set kgmem.NamespaceSettings) error {
	if err := checkNamespace(ns); err != nil {
		return fmt.Errorf("neo4j: put settings: %w", err)
	}
	if len(set.Decay) > 0 && !json.Valid(set.Decay) {
		return fmt.Errorf("neo4j: put settings: %w", kgmem.Invalidf("decay", "is not valid JSON"))
	}
	raw, err := json.Marshal(set)
	if err != nil {
		return fmt.Errorf("neo4j: put settings: %w", errors.Join(kgmem.ErrInvalid, err))
	}
	defer s.settings.change(s.key(ns))()
	err = s.write(ctx, func(tx neo4j.ManagedTransaction) error {
		_, err := run(ctx, tx, stablePlan+`MERGE (n:KgmemSettings {namespace: $ns}) SET n.json = $json, n.updated_at = datetime()`,
			map[string]any{"ns": s.key(ns), "json": string(raw)})
		return err
	})
	if err != nil {
		return fmt.Errorf("neo4j: put settings of %s: %w", ns, err)
	}
	return nil
}
