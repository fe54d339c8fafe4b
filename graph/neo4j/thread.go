package neo4j

import (
	"context"
	"fmt"

	"github.com/kgmem/kgmem"
)

// Thread order: timestamp, then created_at, then seq (the place in the
// change set that stored the episode), which matches the storage order the
// embedded store uses.
const (
	// qThreadBefore lists the episodes just before $id in its thread, nearest first.
	qThreadBefore = `MATCH (a:Episode {namespace: $ns, id: $id})
		MATCH (n:Episode {namespace: $ns, thread_id: a.thread_id})
		WHERE n.timestamp < a.timestamp OR (n.timestamp = a.timestamp AND (n.created_at < a.created_at
			OR (n.created_at = a.created_at AND coalesce(n.seq, 0) < coalesce(a.seq, 0))))
		RETURN properties(n) AS e ORDER BY n.timestamp DESC, n.created_at DESC, coalesce(n.seq, 0) DESC LIMIT $window`
	// qThreadAfter lists the episodes just after $id in its thread, nearest first.
	qThreadAfter = `MATCH (a:Episode {namespace: $ns, id: $id})
		MATCH (n:Episode {namespace: $ns, thread_id: a.thread_id})
		WHERE n.timestamp > a.timestamp OR (n.timestamp = a.timestamp AND (n.created_at > a.created_at
			OR (n.created_at = a.created_at AND coalesce(n.seq, 0) > coalesce(a.seq, 0))))
		RETURN properties(n) AS e ORDER BY n.timestamp, n.created_at, coalesce(n.seq, 0) LIMIT $window`
)

// ThreadNeighbors returns the episodes up to q.Window places before and
// after each episode of q.IDs in its thread.
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
	var out []kgmem.ThreadNeighbor
	for _, id := range q.IDs {
		for _, side := range []struct {
			sign  int
			query string
		}{{-1, qThreadBefore}, {1, qThreadAfter}} {
			eps, err := s.episodes(ctx, ns, side.query, map[string]any{"ns": s.key(ns), "id": id, "window": int64(window)})
			if err != nil {
				return nil, fmt.Errorf("neo4j: thread neighbors of %s in %s: %w", id, ns, err)
			}
			for i, ep := range eps {
				out = append(out, kgmem.ThreadNeighbor{Of: id, Offset: side.sign * (i + 1), Episode: ep})
			}
		}
	}
	return out, nil
}
