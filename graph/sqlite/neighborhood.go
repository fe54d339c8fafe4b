package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/graph/topology"
)

// Neighborhood defaults, for zero fields of kgmem.NeighborhoodQuery.
const (
	defaultDepth  = 1
	defaultFanOut = 50
)

// Neighborhood walks breadth-first from the seeds of ns, ignoring fact
// direction: each entity reached at distance d < q.Depth contributes at most
// q.FanOut facts (most important first, then by id), whose other ends are
// reached at d+1 unless already nearer. One read transaction gives a
// consistent snapshot (statementWalk). With
// q.FactsOnly the walk runs in memory over the namespace's cached topology
// (graph/topology, topology.go), current as of the namespace's graph version, and returns
// facts with their graph fields only.
func (s *Store) Neighborhood(ctx context.Context, ns kgmem.Namespace, q kgmem.NeighborhoodQuery) (kgmem.Subgraph, error) {
	if err := checkNamespace(ns); err != nil {
		return kgmem.Subgraph{}, err
	}
	depth, fanOut, err := checkNeighborhoodQuery(q)
	if err != nil {
		return kgmem.Subgraph{}, fmt.Errorf("sqlite: neighborhood: %w", err)
	}
	if q.FactsOnly {
		topo, existing, ok, err := s.topologyWalk(ctx, ns, q)
		if err != nil {
			return kgmem.Subgraph{}, fmt.Errorf("sqlite: neighborhood: %w", err)
		}
		if ok {
			return topo.Walk(existing, depth, fanOut, q.IncludeExpired), nil
		}
	}
	g, err := s.statementWalk(ctx, ns, q, depth, fanOut)
	if err != nil {
		return kgmem.Subgraph{}, fmt.Errorf("sqlite: neighborhood: %w", err)
	}
	return g, nil
}

// statementWalk is Neighborhood over the file, in one read transaction: each
// level is one query, an index range scan per frontier entity
// (kgmem.WalkNeighborhood keeps the books).
func (s *Store) statementWalk(ctx context.Context, ns kgmem.Namespace, q kgmem.NeighborhoodQuery, depth, fanOut int) (kgmem.Subgraph, error) {
	tx, err := s.r.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return kgmem.Subgraph{}, fmt.Errorf("begin: %w", wrapErr(err))
	}
	defer func() { _ = tx.Rollback() }()

	exp := expiredCond(q.IncludeExpired)
	expand := `f.rid IN (SELECT r.rid FROM json_each(?) AS fr JOIN facts AS r ON r.rid IN (
			SELECT rid FROM (
				SELECT rid, importance, id FROM (SELECT rid, importance, id FROM facts WHERE namespace = ? AND subject_id = fr.value` + exp + `
					ORDER BY importance DESC, id ` + limitParam + `)
				UNION
				SELECT rid, importance, id FROM (SELECT rid, importance, id FROM facts WHERE namespace = ? AND object_id = fr.value` + exp + `
					ORDER BY importance DESC, id ` + limitParam + `)
				ORDER BY importance DESC, id ` + limitParam + `)))`
	return kgmem.WalkNeighborhood(ctx, q, depth, kgmem.NeighborhoodSteps{
		Entities: func(ctx context.Context, ids []string) ([]kgmem.Entity, error) {
			return s.entitiesTx(ctx, tx, ns, ids)
		},
		Expand: func(ctx context.Context, frontier []string, dst []kgmem.Fact) ([]kgmem.Fact, error) {
			list, err := json.Marshal(frontier)
			if err != nil {
				return nil, fmt.Errorf("frontier: %w", err)
			}
			facts, err := s.facts(ctx, tx, ns, true, expand, string(list), ns, fanOut, ns, fanOut, fanOut)
			return append(dst, facts...), err
		},
	})
}

// seedEntities returns the entities of ns among ids, in the order of ids,
// those the entity names in memory know with their ids only, the others
// read.
func (s *Store) seedEntities(ctx context.Context, ns kgmem.Namespace, ids []string) ([]kgmem.Entity, error) {
	names, ok, err := s.entityNamesOf(ctx, ns)
	if err != nil || !ok {
		return s.entitiesTx(ctx, s.r, ns, ids)
	}
	found, unknown := names.existing(ids)
	if len(unknown) == 0 {
		return found, nil
	}
	read, err := s.entitiesTx(ctx, s.r, ns, unknown)
	if err != nil {
		return nil, err
	}
	// Back in the order of ids.
	exists := map[string]bool{}
	for _, e := range append(found, read...) {
		exists[e.ID] = true
	}
	out := make([]kgmem.Entity, 0, len(exists))
	for _, id := range ids {
		if exists[id] {
			out = append(out, kgmem.Entity{ID: id})
		}
	}
	return out, nil
}

// expiredCond is the condition that hides expired facts unless included.
func expiredCond(includeExpired bool) string {
	if includeExpired {
		return ""
	}
	return ` AND expired_at IS NULL`
}

// entitiesTx reads entities of ns by id within q, in the order of ids.
func (s *Store) entitiesTx(ctx context.Context, q querier, ns kgmem.Namespace, ids []string) ([]kgmem.Entity, error) {
	return byIDs(ctx, ids, func(e kgmem.Entity) string { return e.ID },
		func(ctx context.Context, cond string, args []any) ([]kgmem.Entity, error) {
			return s.entities(ctx, q, ns, "e."+cond, args...)
		})
}

// WalkFacts is Neighborhood with FactsOnly handed to visit (kgmem.GraphStore):
// over the namespace's cached topology without making a fact of each, or
// over the statements' walk when the namespace is too large to cache.
func (s *Store) WalkFacts(ctx context.Context, ns kgmem.Namespace, q kgmem.NeighborhoodQuery, visit func(kgmem.WalkedFact)) error {
	if err := checkNamespace(ns); err != nil {
		return err
	}
	depth, fanOut, err := checkNeighborhoodQuery(q)
	if err != nil {
		return fmt.Errorf("sqlite: walk facts: %w", err)
	}
	topo, existing, ok, err := s.topologyWalk(ctx, ns, q)
	if err != nil {
		return fmt.Errorf("sqlite: walk facts: %w", err)
	}
	if ok {
		topo.Visit(existing, depth, fanOut, q.IncludeExpired, visit)
		return nil
	}
	q.FactsOnly = true
	g, err := s.statementWalk(ctx, ns, q, depth, fanOut)
	if err != nil {
		return fmt.Errorf("sqlite: walk facts: %w", err)
	}
	kgmem.VisitSubgraph(g, visit)
	return nil
}

// topologyWalk returns the cached topology of ns and the seeds of q that
// exist, or ok false when ns is too large to cache. Only the seeds are
// looked up, to know which exist: the entity names in memory say so for
// most.
func (s *Store) topologyWalk(ctx context.Context, ns kgmem.Namespace, q kgmem.NeighborhoodQuery) (topo *topology.Topology, existing []string, ok bool, err error) {
	topo, ok, err = s.topology(ctx, ns)
	if err != nil || !ok {
		return nil, nil, false, err
	}
	if seeds := slices.Compact(slices.Sorted(slices.Values(q.Seeds))); len(seeds) > 0 {
		found, err := s.seedEntities(ctx, ns, seeds)
		if err != nil {
			return nil, nil, false, fmt.Errorf("seeds: %w", err)
		}
		for _, e := range found {
			existing = append(existing, e.ID)
		}
	}
	return topo, existing, true, nil
}

// checkNeighborhoodQuery validates q and returns its effective depth and fan-out.
func checkNeighborhoodQuery(q kgmem.NeighborhoodQuery) (int, int, error) {
	depth, fanOut := q.Depth, q.FanOut
	if depth < 0 {
		return 0, 0, kgmem.Invalidf("depth", "must not be negative, got %d", depth)
	}
	if fanOut < 0 {
		return 0, 0, kgmem.Invalidf("fan_out", "must not be negative, got %d", fanOut)
	}
	if depth == 0 {
		depth = defaultDepth
	}
	if fanOut == 0 {
		fanOut = defaultFanOut
	}
	return depth, fanOut, nil
}
