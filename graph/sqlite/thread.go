package sqlite

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/kgmem/kgmem"
)

// ThreadNeighbors returns the ids of the episodes up to q.Window places
// before and after each episode of q.IDs in its thread, ordered by timestamp and then by
// rid (the order episodes were stored in): a walk of the namespace's thread
// order in memory (threadorder.go), which also places the anchors, or a
// lookup of the anchors and a walk of episodes_thread_ts in SQL when the
// namespace is too large to hold.
// Episodes without a timestamp have no neighbours (as on Neo4j, where null
// never compares).
func (s *Store) ThreadNeighbors(ctx context.Context, ns kgmem.Namespace, q kgmem.ThreadNeighborsQuery) ([]kgmem.ThreadNeighbor, error) {
	if err := checkNamespace(ns); err != nil {
		return nil, err
	}
	window, err := threadWindow(q.Window)
	if err != nil {
		return nil, fmt.Errorf("sqlite: thread neighbors: %w", err)
	}
	if len(q.IDs) == 0 {
		return nil, nil
	}
	// The thread order in memory answers; an anchor it does not hold
	// (stored after the order's version was read) is looked up and walked
	// in SQL.
	v, err := s.versionsOf(ctx, ns)
	if err != nil {
		return nil, fmt.Errorf("sqlite: thread neighbors: %w", err)
	}
	order, cached, err := s.threadOrderOf(ctx, ns, v.graph)
	if err != nil {
		return nil, fmt.Errorf("sqlite: thread neighbors: %w", err)
	}
	byID := make(map[string]threadInsert, len(q.IDs))
	var unplaced []string
	for _, id := range q.IDs {
		if cached {
			if in, ok := order.places.place(id); ok {
				byID[id] = in
				continue
			}
		}
		unplaced = append(unplaced, id)
	}
	for start := 0; start < len(unplaced); start += idChunk {
		ids := padded(unplaced[start:min(start+idChunk, len(unplaced))])
		got, err := collect(ctx, s.cached(s.r), func(rows *sql.Rows) (threadInsert, error) {
			var in threadInsert
			return in, rows.Scan(&in.id, &in.thread, &in.ts, &in.rid)
		}, `SELECT id, thread_id, timestamp, rid FROM episodes WHERE namespace = ? AND timestamp IS NOT NULL AND id IN (`+placeholders(len(ids))+`)`,
			append([]any{ns}, ids...)...)
		if err != nil {
			return nil, fmt.Errorf("sqlite: thread neighbors: %w", err)
		}
		for _, in := range got {
			byID[in.id] = in
		}
	}
	sides := []struct {
		sign int
		cond string
	}{
		{-1, `(timestamp, rid) < (?, ?) ORDER BY timestamp DESC, rid DESC`},
		{1, `(timestamp, rid) > (?, ?) ORDER BY timestamp, rid`},
	}
	perID := make([][2][]string, len(q.IDs))
	for i, id := range q.IDs {
		a, ok := byID[id]
		if !ok {
			continue
		}
		if cached {
			if before, after, found := order.around(a.thread, a.ts, a.rid, window); found {
				perID[i] = [2][]string{before, after}
				continue
			}
		}
		for j, side := range sides {
			ids, err := collect(ctx, s.cached(s.r), func(rows *sql.Rows) (string, error) {
				var id string
				return id, rows.Scan(&id)
			}, `SELECT id FROM episodes WHERE namespace = ? AND thread_id = ? AND `+side.cond+` `+limitParam, ns, a.thread, a.ts, a.rid, window)
			if err != nil {
				return nil, fmt.Errorf("sqlite: thread neighbors of %s: %w", id, err)
			}
			perID[i][j] = ids
		}
	}
	n := 0
	for i := range perID {
		n += len(perID[i][0]) + len(perID[i][1])
	}
	if n == 0 {
		return nil, nil
	}
	out := make([]kgmem.ThreadNeighbor, 0, n)
	for i, id := range q.IDs {
		for j, side := range sides {
			for k, nid := range perID[i][j] {
				out = append(out, kgmem.ThreadNeighbor{Of: id, Offset: side.sign * (k + 1), ID: nid})
			}
		}
	}
	return out, nil
}

// threadWindow validates a ThreadNeighborsQuery.Window and applies its default.
func threadWindow(w int) (int, error) {
	switch {
	case w < 0 || w > kgmem.MaxThreadWindow:
		return 0, kgmem.Invalidf("window", "is %d, must be within 0..%d", w, kgmem.MaxThreadWindow)
	case w == 0:
		return 1, nil
	}
	return w, nil
}
