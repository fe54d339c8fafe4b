package neo4j

import (
	"context"
	"fmt"

	"github.com/kgmem/kgmem"
)

// Thread order: timestamp, then created_at, then seq (the place in the
// change set that stored the episode), which matches the storage order the
// embedded store uses. Each neighbour comes with its role, and each
// episode asked about with its own (kgmem.ThreadNeighbor.RolesKnown).

// qThreadNeighbors lists, for each of $ids, the ids and roles of the
// episodes just before it in its thread and just after it, nearest first
// on each side.
const qThreadNeighbors = stablePlan + `UNWIND $ids AS id
	MATCH (a:Episode {namespace: $ns, id: id})
	CALL (a) {
		MATCH (n:Episode {namespace: $ns, thread_id: a.thread_id}) USING INDEX n:Episode(namespace, thread_id)
		WHERE n.timestamp < a.timestamp OR (n.timestamp = a.timestamp AND (n.created_at < a.created_at
			OR (n.created_at = a.created_at AND coalesce(n.seq, 0) < coalesce(a.seq, 0))))
		WITH n ORDER BY n.timestamp DESC, n.created_at DESC, coalesce(n.seq, 0) DESC LIMIT $window
		RETURN collect([n.id, n.role]) AS before
	}
	CALL (a) {
		MATCH (n:Episode {namespace: $ns, thread_id: a.thread_id}) USING INDEX n:Episode(namespace, thread_id)
		WHERE n.timestamp > a.timestamp OR (n.timestamp = a.timestamp AND (n.created_at > a.created_at
			OR (n.created_at = a.created_at AND coalesce(n.seq, 0) > coalesce(a.seq, 0))))
		WITH n ORDER BY n.timestamp, n.created_at, coalesce(n.seq, 0) LIMIT $window
		RETURN collect([n.id, n.role]) AS after
	}
	RETURN id, a.role, before, after`

// ThreadNeighbors returns the ids of the episodes up to q.Window places
// before and after each episode of q.IDs in its thread: one query for all
// ids and both sides.
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
	recs, err := s.read(ctx, qThreadNeighbors, map[string]any{"ns": s.key(ns), "ids": q.IDs, "window": int64(window)})
	if err != nil {
		return nil, fmt.Errorf("neo4j: thread neighbors in %s: %w", ns, err)
	}
	var out []kgmem.ThreadNeighbor
	for _, rec := range recs {
		id, _ := rec.Values[0].(string)
		ofRole, _ := rec.Values[1].(string)
		for side, sign := range []int{-1, 1} {
			near, _ := rec.Values[2+side].([]any)
			for i, raw := range near {
				pair, _ := raw.([]any)
				var nid, role string
				if len(pair) == 2 {
					nid, _ = pair[0].(string)
					role, _ = pair[1].(string)
				}
				if nid == "" {
					return nil, fmt.Errorf("neo4j: thread neighbors of %s in %s: an episode without an id", id, ns)
				}
				out = append(out, kgmem.ThreadNeighbor{Of: id, Offset: sign * (i + 1), ID: nid, Role: role, OfRole: ofRole, RolesKnown: true})
			}
		}
	}
	return out, nil
}
