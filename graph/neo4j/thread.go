package neo4j

import (
	"context"
	"fmt"
	"slices"

	"github.com/kgmem/kgmem"
	"golang.org/x/sync/errgroup"
)

// Thread order: timestamp, then created_at, then seq (the place in the
// change set that stored the episode), which matches the storage order the
// embedded store uses. Each neighbour comes with its role, and each
// episode asked about with its own (kgmem.ThreadNeighbor.RolesKnown).
const (
	// qThreadBefore lists, for each of $ids, the ids of the episodes just before it in
	// its thread, nearest first.
	qThreadBefore = stablePlan + `UNWIND $ids AS id
		MATCH (a:Episode {namespace: $ns, id: id})
		CALL (a) {
			MATCH (n:Episode {namespace: $ns, thread_id: a.thread_id}) USING INDEX n:Episode(namespace, thread_id)
			WHERE n.timestamp < a.timestamp OR (n.timestamp = a.timestamp AND (n.created_at < a.created_at
				OR (n.created_at = a.created_at AND coalesce(n.seq, 0) < coalesce(a.seq, 0))))
			WITH n ORDER BY n.timestamp DESC, n.created_at DESC, coalesce(n.seq, 0) DESC LIMIT $window
			RETURN collect([n.id, n.role]) AS near
		}
		RETURN id, a.role, near`
	// qThreadAfter lists, for each of $ids, the ids of the episodes just after it in
	// its thread, nearest first.
	qThreadAfter = stablePlan + `UNWIND $ids AS id
		MATCH (a:Episode {namespace: $ns, id: id})
		CALL (a) {
			MATCH (n:Episode {namespace: $ns, thread_id: a.thread_id}) USING INDEX n:Episode(namespace, thread_id)
			WHERE n.timestamp > a.timestamp OR (n.timestamp = a.timestamp AND (n.created_at > a.created_at
				OR (n.created_at = a.created_at AND coalesce(n.seq, 0) > coalesce(a.seq, 0))))
			WITH n ORDER BY n.timestamp, n.created_at, coalesce(n.seq, 0) LIMIT $window
			RETURN collect([n.id, n.role]) AS near
		}
		RETURN id, a.role, near`
)

// ThreadNeighbors returns the ids of the episodes up to q.Window places
// before and after each episode of q.IDs in its thread: one query per side for all ids,
// the two at once.
func (s *Store) ThreadNeighbors(ctx context.Context, ns kgmem.Namespace, q kgmem.ThreadNeighborsQuery) ([]kgmem.ThreadNeighbor, error) {
	if err := checkNamespace(ns); err != nil {
		return nil, fmt.Errorf("neo4j: thread neighbors: %w", err)
	}
	window := q.Window
	switch {
	case window < 0 || window > kgmem.MaxThreadWindow:
		return nil, fmt.Errorf("neo4j: thread neighbors: %w", kgmem.Invalidf("window", "is %d, must be within 0..%d", window, kgmem.MaxThreadWindow))
	case window == 0:
		window = 1
	}
	if len(q.IDs) == 0 {
		return nil, nil
	}
	// The two sides are independent queries: run them at once.
	sides := []struct {
		sign  int
		query string
	}{{-1, qThreadBefore}, {1, qThreadAfter}}
	perSide := make([][]kgmem.ThreadNeighbor, len(sides))
	g, gctx := errgroup.WithContext(ctx)
	for j, side := range sides {
		g.Go(func() error {
			recs, err := s.read(gctx, side.query, map[string]any{"ns": s.key(ns), "ids": q.IDs, "window": int64(window)})
			if err != nil {
				return fmt.Errorf("neo4j: thread neighbors in %s: %w", ns, err)
			}
			for _, rec := range recs {
				id, _ := rec.Values[0].(string)
				ofRole, _ := rec.Values[1].(string)
				near, _ := rec.Values[2].([]any)
				for i, raw := range near {
					pair, _ := raw.([]any)
					var nid, role string
					if len(pair) == 2 {
						nid, _ = pair[0].(string)
						role, _ = pair[1].(string)
					}
					if nid == "" {
						return fmt.Errorf("neo4j: thread neighbors of %s in %s: an episode without an id", id, ns)
					}
					perSide[j] = append(perSide[j], kgmem.ThreadNeighbor{Of: id, Offset: side.sign * (i + 1), ID: nid,
						Role: role, OfRole: ofRole, RolesKnown: true})
				}
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	out := slices.Concat(perSide...)
	return out, nil
}
