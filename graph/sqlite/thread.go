package sqlite

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/kgmem/kgmem"
)

// ThreadNeighbors returns the episodes up to q.Window places before and
// after each episode of q.IDs in its thread, ordered by timestamp and then by
// rid (the order episodes were stored in). Each side is one indexed range
// scan of episodes_thread.
func (s *Store) ThreadNeighbors(ctx context.Context, ns kgmem.Namespace, q kgmem.ThreadNeighborsQuery) ([]kgmem.ThreadNeighbor, error) {
	if err := checkNamespace(ns); err != nil {
		return nil, err
	}
	window, err := threadWindow(q.Window)
	if err != nil {
		return nil, fmt.Errorf("sqlite: thread neighbors: %w", err)
	}
	type anchor struct {
		id, thread string
		ts, rid    int64
	}
	type near struct {
		of     string
		offset int
		id     string
	}
	var found []near
	for _, id := range q.IDs {
		var a anchor
		err := s.r.QueryRowContext(ctx, `SELECT id, thread_id, coalesce(timestamp, 0), rid FROM episodes WHERE namespace = ? AND id = ?`, ns, id).
			Scan(&a.id, &a.thread, &a.ts, &a.rid)
		if errNoRows(err) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("sqlite: thread neighbors of %s: %w", id, wrapErr(err))
		}
		for _, side := range []struct {
			sign int
			cond string
		}{
			{-1, `(coalesce(timestamp, 0), rid) < (?, ?) ORDER BY coalesce(timestamp, 0) DESC, rid DESC`},
			{1, `(coalesce(timestamp, 0), rid) > (?, ?) ORDER BY coalesce(timestamp, 0), rid`},
		} {
			ids, err := collect(ctx, s.r, func(rows *sql.Rows) (string, error) {
				var id string
				return id, rows.Scan(&id)
			}, `SELECT id FROM episodes WHERE namespace = ? AND thread_id = ? AND `+side.cond+` LIMIT ?`, ns, a.thread, a.ts, a.rid, window)
			if err != nil {
				return nil, fmt.Errorf("sqlite: thread neighbors of %s: %w", id, err)
			}
			for i, nid := range ids {
				found = append(found, near{of: id, offset: side.sign * (i + 1), id: nid})
			}
		}
	}
	if len(found) == 0 {
		return nil, nil
	}
	ids := make([]string, len(found))
	for i, f := range found {
		ids[i] = f.id
	}
	eps, err := s.Episodes(ctx, ns, ids)
	if err != nil {
		return nil, fmt.Errorf("sqlite: thread neighbors: %w", err)
	}
	byID := make(map[string]kgmem.Episode, len(eps))
	for _, ep := range eps {
		byID[ep.ID] = ep
	}
	out := make([]kgmem.ThreadNeighbor, 0, len(found))
	for _, f := range found {
		if ep, ok := byID[f.id]; ok {
			out = append(out, kgmem.ThreadNeighbor{Of: f.of, Offset: f.offset, Episode: ep})
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
