package sqlite

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"slices"

	"github.com/kgmem/kgmem"
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
// consistent snapshot; each step is an index range scan per entity.
func (s *Store) Neighborhood(ctx context.Context, ns kgmem.Namespace, q kgmem.NeighborhoodQuery) (kgmem.Subgraph, error) {
	if err := checkNamespace(ns); err != nil {
		return kgmem.Subgraph{}, err
	}
	depth, fanOut, err := checkNeighborhoodQuery(q)
	if err != nil {
		return kgmem.Subgraph{}, fmt.Errorf("sqlite: neighborhood: %w", err)
	}
	tx, err := s.r.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return kgmem.Subgraph{}, fmt.Errorf("sqlite: neighborhood: begin: %w", wrapErr(err))
	}
	defer func() { _ = tx.Rollback() }()

	g := kgmem.Subgraph{Distance: map[string]int{}}
	seeds, err := s.entitiesTx(ctx, tx, ns, slices.Compact(slices.Sorted(slices.Values(q.Seeds))))
	if err != nil {
		return kgmem.Subgraph{}, fmt.Errorf("sqlite: neighborhood: %w", err)
	}
	var frontier []string
	for _, e := range seeds {
		g.Distance[e.ID] = 0
		frontier = append(frontier, e.ID)
	}
	factSeen := map[string]bool{}
	for d := 0; d < depth && len(frontier) > 0; d++ {
		var next []string
		for _, id := range frontier {
			fs, err := s.facts(ctx, tx, ns, true, `f.rid IN (
					SELECT rid FROM (SELECT rid, importance, id FROM facts WHERE namespace = ? AND subject_id = ?`+expiredCond(q.IncludeExpired)+`
						ORDER BY importance DESC, id LIMIT ?)
					UNION
					SELECT rid FROM (SELECT rid, importance, id FROM facts WHERE namespace = ? AND object_id = ?`+expiredCond(q.IncludeExpired)+`
						ORDER BY importance DESC, id LIMIT ?))
				ORDER BY f.importance DESC, f.id LIMIT ?`,
				ns, id, fanOut, ns, id, fanOut, fanOut)
			if err != nil {
				return kgmem.Subgraph{}, fmt.Errorf("sqlite: neighborhood of %s: %w", id, err)
			}
			for _, f := range fs {
				if !factSeen[f.ID] {
					factSeen[f.ID] = true
					g.Facts = append(g.Facts, f)
				}
				other := f.ObjectID
				if other == id {
					other = f.SubjectID
				}
				if _, ok := g.Distance[other]; !ok {
					g.Distance[other] = d + 1
					next = append(next, other)
				}
			}
		}
		slices.Sort(next)
		frontier = next
	}

	ids := make([]string, 0, len(g.Distance))
	for id := range g.Distance {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	if g.Entities, err = s.entitiesTx(ctx, tx, ns, ids); err != nil {
		return kgmem.Subgraph{}, fmt.Errorf("sqlite: neighborhood: %w", err)
	}
	slices.SortFunc(g.Facts, func(a, b kgmem.Fact) int { return cmp.Compare(a.ID, b.ID) })
	return g, nil
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
