package sqlite

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/graph/topology"
	"github.com/kgmem/kgmem/internal/nscache"
)

// topology returns the current topology of ns (graph/topology), reading it
// when the cached one is missing or was read at another graph version
// (graph_versions, raised by every write that can change the graph, from
// this process or another), or ok false when ns is too large to cache.
func (s *Store) topology(ctx context.Context, ns kgmem.Namespace) (t *topology.Topology, ok bool, err error) {
	v, err := s.versionsOf(ctx, ns)
	if err != nil {
		return nil, false, err
	}
	return s.topo.Get(ctx, string(ns), v.graph, func(ctx context.Context) (nscache.Loaded[*topology.Topology], error) {
		return s.readTopology(ctx, ns)
	})
}

// readTopology reads the topology of ns and its version in one read
// transaction, or returns nscache.ErrTooLarge when ns holds more facts than
// the budget.
func (s *Store) readTopology(ctx context.Context, ns kgmem.Namespace) (nscache.Loaded[*topology.Topology], error) {
	return readView(ctx, s, ns, "facts", topology.CacheBudget, func(q querier) (*topology.Topology, int, error) {
		facts, err := collect(ctx, q, func(rows *sql.Rows) (kgmem.Fact, error) {
			var f kgmem.Fact
			var validAt, invalidAt, created, expired sql.NullInt64
			err := rows.Scan(&f.ID, &f.SubjectID, &f.Predicate, &f.ObjectID, &f.Confidence, &f.Importance,
				&validAt, &invalidAt, &created, &expired)
			f.ValidAt, f.InvalidAt, f.CreatedAt, f.ExpiredAt = fromMillis(validAt), fromMillis(invalidAt), fromMillis(created), fromMillis(expired)
			return f, err
		}, `SELECT id, subject_id, predicate, object_id, confidence, importance, valid_at, invalid_at, created_at, expired_at
			FROM facts WHERE namespace = ?`, ns)
		if err != nil {
			return nil, 0, fmt.Errorf("read facts: %w", err)
		}
		return topology.New(ns, facts), len(facts), nil
	})
}

// readView reads a view derived from the records of table in ns (a
// topology, a BM25 index) with read, in one read transaction, labelled with
// the namespace's graph version read in it; nscache.ErrTooLarge, and nothing
// read, when ns holds more than limit such records. read returns the view
// and its size in its cache's units.
func readView[V any](ctx context.Context, s *Store, ns kgmem.Namespace, table string, limit int64,
	read func(q querier) (V, int, error)) (nscache.Loaded[V], error) {
	var l nscache.Loaded[V]
	tx, err := s.r.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return l, fmt.Errorf("begin: %w", wrapErr(err))
	}
	defer func() { _ = tx.Rollback() }()
	q := s.cached(tx)
	if l.Version, err = graphVersion(ctx, q, ns); err != nil {
		return l, err
	}
	n, err := integerOn(ctx, q, `SELECT count(*) FROM `+table+` WHERE namespace = ?`, ns)
	if err != nil {
		return l, fmt.Errorf("count %s: %w", table, err)
	}
	if n > limit {
		return l, nscache.ErrTooLarge
	}
	l.Value, l.Size, err = read(q)
	return l, err
}

// graphVersion reads the graph version of ns: 0 when it has none (never
// written, or purged).
func graphVersion(ctx context.Context, q querier, ns kgmem.Namespace) (int64, error) {
	v, err := integers(ctx, q, `SELECT version FROM graph_versions WHERE namespace = ?`, ns)
	if err != nil {
		return 0, fmt.Errorf("graph version: %w", err)
	}
	if len(v) == 0 {
		return 0, nil
	}
	return v[0], nil
}
