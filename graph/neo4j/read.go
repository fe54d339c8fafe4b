package neo4j

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/kgmem/kgmem"
	"github.com/neo4j/neo4j-go-driver/v5/neo4j"
)

// defaultPageLimit is the page size when Page.Limit is 0.
const defaultPageLimit = 100

// factReturn completes a query that has bound t (a :FactText node) with the
// fact's relationship, found by Expand(Into) between its two ends, and the
// ends' names.
const factReturn = ` WITH t` + factRel + `
	RETURN properties(r) AS fact, s.name AS subject, o.name AS object, s.type AS subject_type, o.type AS object_type`

// factRel binds s, r and o for a bound (:FactText) t: two unique-index seeks
// and an Expand(Into) between them, which costs the smaller degree of the
// two ends. The subqueries pin that plan: written as one pattern, the planner
// may start from a namespace-wide entity scan when its estimates for t are
// low (measured: 0.9 s instead of milliseconds for 1,000 facts), or expand
// every relationship of the subject, which is slow for hubs.
const factRel = `
	CALL (t) { MATCH (s:Entity {namespace: $ns, id: t.subject_id}) RETURN s }
	CALL (t) { MATCH (o:Entity {namespace: $ns, id: t.object_id}) RETURN o }
	MATCH (s)-[r]->(o) WHERE r.id = t.id`

// EpisodeSpeakers answers known false: a Store holds nothing of the
// episodes in memory, and reading their speakers costs a search the round
// trip that loading them does.
func (s *Store) EpisodeSpeakers(_ context.Context, ns kgmem.Namespace, _ []string) ([]string, bool, error) {
	if err := checkNamespace(ns); err != nil {
		return nil, false, fmt.Errorf("neo4j: episode speakers: %w", err)
	}
	return nil, false, nil
}

// Episodes returns the episodes of ns with the given ids, in the order of ids.
func (s *Store) Episodes(ctx context.Context, ns kgmem.Namespace, ids []string) ([]kgmem.Episode, error) {
	if err := checkNamespace(ns); err != nil {
		return nil, fmt.Errorf("neo4j: episodes: %w", err)
	}
	if len(ids) == 0 {
		return nil, nil
	}
	eps, err := s.episodes(ctx, ns, stablePlan+`UNWIND $ids AS id MATCH (e:Episode {namespace: $ns, id: id}) RETURN properties(e) AS e`,
		map[string]any{"ns": s.key(ns), "ids": ids})
	if err != nil {
		return nil, fmt.Errorf("neo4j: episodes of %s: %w", ns, err)
	}
	return inOrder(ids, eps, func(e kgmem.Episode) string { return e.ID }), nil
}

// ListEpisodes pages through the episodes of ns in id order.
func (s *Store) ListEpisodes(ctx context.Context, ns kgmem.Namespace, page kgmem.Page) ([]kgmem.Episode, error) {
	if err := checkNamespace(ns); err != nil {
		return nil, fmt.Errorf("neo4j: list episodes: %w", err)
	}
	limit, err := checkLimit("limit", page.Limit, defaultPageLimit)
	if err != nil {
		return nil, fmt.Errorf("neo4j: list episodes: %w", err)
	}
	eps, err := s.episodes(ctx, ns, `MATCH (e:Episode {namespace: $ns}) WHERE e.id > $after
		RETURN properties(e) AS e ORDER BY e.id LIMIT $limit`,
		map[string]any{"ns": s.key(ns), "after": page.After, "limit": int64(limit)})
	if err != nil {
		return nil, fmt.Errorf("neo4j: list episodes of %s: %w", ns, err)
	}
	return eps, nil
}

// LatestTime returns the greatest episode timestamp or fact validity bound
// of ns, aggregated in Neo4j.
func (s *Store) LatestTime(ctx context.Context, ns kgmem.Namespace) (time.Time, error) {
	if err := checkNamespace(ns); err != nil {
		return time.Time{}, fmt.Errorf("neo4j: latest time: %w", err)
	}
	recs, err := s.read(ctx, `
		CALL () { MATCH (e:Episode {namespace: $ns}) RETURN max(e.timestamp) AS episode }
		CALL () { MATCH (t:FactText {namespace: $ns}) WITH t`+factRel+`
			RETURN max(r.valid_at) AS valid_at, max(r.invalid_at) AS invalid_at }
		RETURN episode, valid_at, invalid_at`, map[string]any{"ns": s.key(ns)})
	if err != nil {
		return time.Time{}, fmt.Errorf("neo4j: latest time of %s: %w", ns, err)
	}
	var latest time.Time
	for _, rec := range recs {
		p := props{m: rec.AsMap()}
		for _, k := range []string{"episode", "valid_at", "invalid_at"} {
			if t := p.time(k); t.After(latest) {
				latest = t
			}
		}
		if p.err != nil {
			return time.Time{}, fmt.Errorf("neo4j: latest time of %s: %w", ns, p.err)
		}
	}
	return latest, nil
}

func (s *Store) episodes(ctx context.Context, ns kgmem.Namespace, query string, params map[string]any) ([]kgmem.Episode, error) {
	recs, err := s.read(ctx, query, params)
	if err != nil {
		return nil, err
	}
	return decodeEpisodes(ns, recs)
}

// decodeEpisodes reads records of episode properties, leaving out episodes
// deleted while they were read.
func decodeEpisodes(ns kgmem.Namespace, recs []*neo4j.Record) ([]kgmem.Episode, error) {
	out := make([]kgmem.Episode, 0, len(recs))
	for _, rec := range recs {
		m, _ := rec.Values[0].(map[string]any)
		if deletedWhileRead(m) {
			continue
		}
		e, err := decodeEpisode(ns, m)
		if err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, nil
}

// Entity returns one entity of ns, or an error wrapping kgmem.ErrNotFound.
func (s *Store) Entity(ctx context.Context, ns kgmem.Namespace, id string) (kgmem.Entity, error) {
	es, err := s.Entities(ctx, ns, []string{id})
	if err != nil {
		return kgmem.Entity{}, err
	}
	if len(es) == 0 {
		return kgmem.Entity{}, fmt.Errorf("neo4j: entity %q in %s: %w", id, ns, kgmem.ErrNotFound)
	}
	return es[0], nil
}

// Entities returns the entities of ns with the given ids, in the order of ids.
func (s *Store) Entities(ctx context.Context, ns kgmem.Namespace, ids []string) ([]kgmem.Entity, error) {
	if err := checkNamespace(ns); err != nil {
		return nil, fmt.Errorf("neo4j: entities: %w", err)
	}
	if len(ids) == 0 {
		return nil, nil
	}
	es, err := s.entities(ctx, ns, stablePlan+`UNWIND $ids AS id MATCH (e:Entity {namespace: $ns, id: id}) RETURN properties(e) AS e`,
		map[string]any{"ns": s.key(ns), "ids": ids})
	if err != nil {
		return nil, fmt.Errorf("neo4j: entities of %s: %w", ns, err)
	}
	return inOrder(ids, es, func(e kgmem.Entity) string { return e.ID }), nil
}

// FindEntities lists the entities of ns matching filter, in id order.
func (s *Store) FindEntities(ctx context.Context, ns kgmem.Namespace, filter kgmem.EntityFilter) ([]kgmem.Entity, error) {
	if err := checkNamespace(ns); err != nil {
		return nil, fmt.Errorf("neo4j: find entities: %w", err)
	}
	limit, err := checkLimit("limit", filter.Limit, defaultPageLimit)
	if err != nil {
		return nil, fmt.Errorf("neo4j: find entities: %w", err)
	}
	key := s.key(ns)
	params := map[string]any{"ns": key, "after": filter.After, "limit": int64(limit)}
	conds := []string{"e.id > $after"}
	match := `MATCH (e:Entity {namespace: $ns})`
	if len(filter.Names) > 0 {
		var needles []string
		for _, n := range filter.Names {
			if norm := kgmem.NormalizeName(n); norm != "" {
				needles = append(needles, nameKey(key, norm))
			}
		}
		if len(needles) == 0 {
			return nil, nil
		}
		params["needles"] = needles
		// One TEXT index lookup per name instead of a scan of the namespace.
		match = `UNWIND $needles AS needle
			MATCH (e:Entity) USING TEXT INDEX e:Entity(name_keys)
			WHERE e.name_keys CONTAINS needle AND e.namespace = $ns
			WITH DISTINCT e`
	}
	if filter.Query != "" {
		params["query"] = strings.ToLower(filter.Query)
		conds = append(conds, "any(n IN e.lower_names WHERE n CONTAINS $query)")
	}
	if filter.Type != "" {
		params["type"] = filter.Type
		conds = append(conds, "e.type = $type")
	}
	query := match + ` WHERE ` + strings.Join(conds, " AND ") +
		` RETURN properties(e) AS e ORDER BY e.id LIMIT $limit`
	es, err := s.entities(ctx, ns, query, params)
	if err != nil {
		return nil, fmt.Errorf("neo4j: find entities in %s: %w", ns, err)
	}
	return es, nil
}

func (s *Store) entities(ctx context.Context, ns kgmem.Namespace, query string, params map[string]any) ([]kgmem.Entity, error) {
	recs, err := s.read(ctx, query, params)
	if err != nil {
		return nil, err
	}
	return decodeEntities(ns, recs)
}

func decodeEntities(ns kgmem.Namespace, recs []*neo4j.Record) ([]kgmem.Entity, error) {
	out := make([]kgmem.Entity, 0, len(recs))
	for _, rec := range recs {
		m, _ := rec.Values[0].(map[string]any)
		if deletedWhileRead(m) {
			continue
		}
		e, err := decodeEntity(ns, m)
		if err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, nil
}

// Fact returns one fact of ns (current or historical), or an error wrapping
// kgmem.ErrNotFound.
func (s *Store) Fact(ctx context.Context, ns kgmem.Namespace, id string) (kgmem.Fact, error) {
	fs, err := s.Facts(ctx, ns, []string{id})
	if err != nil {
		return kgmem.Fact{}, err
	}
	if len(fs) == 0 {
		return kgmem.Fact{}, fmt.Errorf("neo4j: fact %q in %s: %w", id, ns, kgmem.ErrNotFound)
	}
	return fs[0], nil
}

// Facts returns the facts of ns with the given ids, in the order of ids.
func (s *Store) Facts(ctx context.Context, ns kgmem.Namespace, ids []string) ([]kgmem.Fact, error) {
	if err := checkNamespace(ns); err != nil {
		return nil, fmt.Errorf("neo4j: facts: %w", err)
	}
	if len(ids) == 0 {
		return nil, nil
	}
	fs, err := s.facts(ctx, ns, stablePlan+`UNWIND $ids AS id MATCH (t:FactText {namespace: $ns, id: id})`+factReturn,
		map[string]any{"ns": s.key(ns), "ids": ids})
	if err != nil {
		return nil, fmt.Errorf("neo4j: facts of %s: %w", ns, err)
	}
	return inOrder(ids, fs, func(f kgmem.Fact) string { return f.ID }), nil
}

// ListFacts lists the facts of ns matching filter, in id order.
func (s *Store) ListFacts(ctx context.Context, ns kgmem.Namespace, filter kgmem.FactFilter) ([]kgmem.Fact, error) {
	if err := checkNamespace(ns); err != nil {
		return nil, fmt.Errorf("neo4j: list facts: %w", err)
	}
	limit, err := checkLimit("limit", filter.Limit, defaultPageLimit)
	if err == nil {
		err = filter.Validate()
	}
	if err != nil {
		return nil, fmt.Errorf("neo4j: list facts: %w", err)
	}
	params := map[string]any{"ns": s.key(ns), "after": filter.After, "limit": int64(limit)}
	conds := []string{"t.id > $after"}
	match := `MATCH (t:FactText {namespace: $ns})`
	if filter.EntityID != "" {
		params["entity"] = filter.EntityID
		// Two index seeks; UNION also returns a self-loop once.
		match = `CALL () {
				MATCH (t:FactText {namespace: $ns, subject_id: $entity}) RETURN t
				UNION
				MATCH (t:FactText {namespace: $ns, object_id: $entity}) RETURN t
			}
			WITH t`
	}
	if filter.OtherID != "" {
		params["other"] = filter.OtherID
		conds = append(conds, "(t.subject_id = $entity AND t.object_id = $other OR t.subject_id = $other AND t.object_id = $entity)")
	}
	if filter.Predicate != "" {
		params["predicate"] = filter.Predicate
		conds = append(conds, "t.predicate = $predicate")
	}
	if !filter.IncludeExpired {
		conds = append(conds, "NOT t.expired")
	}
	query := match + ` WHERE ` + strings.Join(conds, " AND ") +
		` WITH t ORDER BY t.id LIMIT $limit` + factReturn + ` ORDER BY r.id`
	fs, err := s.facts(ctx, ns, query, params)
	if err != nil {
		return nil, fmt.Errorf("neo4j: list facts of %s: %w", ns, err)
	}
	return fs, nil
}

func (s *Store) facts(ctx context.Context, ns kgmem.Namespace, query string, params map[string]any) ([]kgmem.Fact, error) {
	recs, err := s.read(ctx, query, params)
	if err != nil {
		return nil, err
	}
	return decodeFacts(ns, recs)
}

// decodeFacts reads records of (fact, subject, object, subject_type,
// object_type).
func decodeFacts(ns kgmem.Namespace, recs []*neo4j.Record) ([]kgmem.Fact, error) {
	out := make([]kgmem.Fact, 0, len(recs))
	for _, rec := range recs {
		m, _ := rec.Values[0].(map[string]any)
		if deletedWhileRead(m) {
			continue
		}
		sn, _ := rec.Values[1].(string)
		on, _ := rec.Values[2].(string)
		f, err := decodeFact(ns, m, sn, on)
		if err != nil {
			return nil, err
		}
		f.SubjectType, _ = rec.Values[3].(string)
		f.ObjectType, _ = rec.Values[4].(string)
		out = append(out, f)
	}
	return out, nil
}

// inOrder returns the records whose ids are in ids, in the order of ids.
func inOrder[T any](ids []string, recs []T, id func(T) string) []T {
	byID := make(map[string]T, len(recs))
	for _, r := range recs {
		byID[id(r)] = r
	}
	out := make([]T, 0, len(ids))
	for _, want := range ids {
		if r, ok := byID[want]; ok {
			out = append(out, r)
		}
	}
	return out
}
