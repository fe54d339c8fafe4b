package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/kgmem/kgmem"
)

// recordTable maps a kind to its record table and FTS table.
func recordTable(k kgmem.Kind) (records, fts string, ok bool) {
	for _, src := range ftsSources() {
		if src.kind == k {
			return src.records, src.fts, true
		}
	}
	return "", "", false
}

// SetDecay overwrites the decay state of the given records of ns in one
// transaction; a record missing from ns fails the whole call with
// kgmem.ErrNotFound.
func (s *Store) SetDecay(ctx context.Context, ns kgmem.Namespace, updates []kgmem.DecayUpdate) error {
	if err := checkNamespace(ns); err != nil {
		return err
	}
	if err := kgmem.ValidateDecayUpdates(updates); err != nil {
		return fmt.Errorf("sqlite: set decay: %w", err)
	}
	if len(updates) == 0 {
		return nil
	}
	var from, to int64           // the episode versions of ns, when an episode changes
	var graphFrom, graphTo int64 // the graph versions of ns, when a fact changes
	err := s.writeThen(ctx, ns, func(tx *sql.Tx) error {
		if slices.ContainsFunc(updates, func(u kgmem.DecayUpdate) bool { return u.Kind == kgmem.KindEpisode }) {
			var err error
			if from, to, err = s.raiseEpisodeVersion(ctx, tx, ns); err != nil {
				return err
			}
		}
		// The entity-facts view holds facts' decay state: a new graph
		// version tells a reader (of this Store or another) which state
		// it holds.
		if slices.ContainsFunc(updates, func(u kgmem.DecayUpdate) bool { return u.Kind == kgmem.KindFact }) {
			var err error
			if graphFrom, graphTo, err = s.ws.advanceVersion(ctx, tx, ns); err != nil {
				return err
			}
		}
		stmts := map[string]*sql.Stmt{}
		// Each update is one row, microseconds long: the context is checked
		// between rows rather than watched during each (the driver starts a
		// goroutine per statement to watch a cancellable context).
		rowCtx := context.WithoutCancel(ctx)
		for i, u := range updates {
			if err := ctx.Err(); err != nil {
				return err
			}
			table, _, _ := recordTable(u.Kind)
			st, ok := stmts[table]
			if !ok {
				st = tx.StmtContext(rowCtx, s.ws.setDecay[table])
				stmts[table] = st
			}
			res, err := st.ExecContext(rowCtx, append(decayArgs(u.State), ns, u.ID)...)
			if err != nil {
				return fmt.Errorf("updates[%d]: %w", i, err)
			}
			if n, err := res.RowsAffected(); err != nil {
				return fmt.Errorf("updates[%d]: %w", i, err)
			} else if n == 0 {
				return fmt.Errorf("updates[%d]: %s %q in %s: %w", i, u.Kind, u.ID, ns, kgmem.ErrNotFound)
			}
		}
		return nil
	}, func() {
		if graphTo != 0 {
			s.advanceDecayed(ns, graphFrom, graphTo, updates)
		}
	})
	if err != nil {
		return fmt.Errorf("sqlite: set decay: %w", err)
	}
	if to != 0 {
		s.episodes.decayWritten(ns, from, to, updates)
	}
	return nil
}

// DeleteFact hard-deletes one fact of ns and its search entry; ErrNotFound
// when ns has no such fact.
func (s *Store) DeleteFact(ctx context.Context, ns kgmem.Namespace, id string) error {
	if err := checkNamespace(ns); err != nil {
		return err
	}
	err := s.write(ctx, ns, func(tx *sql.Tx) error {
		var rid int64
		err := tx.QueryRowContext(ctx, `DELETE FROM facts WHERE namespace = ? AND id = ? RETURNING rid`, ns, id).Scan(&rid)
		if errNoRows(err) {
			return fmt.Errorf("fact %q in %s: %w", id, ns, kgmem.ErrNotFound)
		}
		if err != nil {
			return err
		}
		if _, err = tx.ExecContext(ctx, `DELETE FROM fact_fts WHERE rowid = ?`, rid); err != nil {
			return err
		}
		return s.ws.bumpVersion(ctx, tx, ns)
	})
	if err != nil {
		return fmt.Errorf("sqlite: delete fact: %w", err)
	}
	return nil
}

// PurgeNamespace hard-deletes every record, mention, search entry and the
// settings of ns, in one transaction, and counts what it removed.
func (s *Store) PurgeNamespace(ctx context.Context, ns kgmem.Namespace) (kgmem.PurgeStats, error) {
	if err := checkNamespace(ns); err != nil {
		return kgmem.PurgeStats{}, err
	}
	var stats kgmem.PurgeStats
	err := s.write(ctx, ns, func(tx *sql.Tx) error {
		steps := []struct {
			query string
			count *int
		}{
			{`DELETE FROM mentions WHERE namespace = ?`, nil},
			{`DELETE FROM fact_fts WHERE rowid IN (SELECT rid FROM facts WHERE namespace = ?)`, nil},
			{`DELETE FROM facts WHERE namespace = ?`, &stats.Facts},
			{`DELETE FROM entity_fts WHERE rowid IN (SELECT rid FROM entities WHERE namespace = ?)`, nil},
			{`DELETE FROM entity_names WHERE namespace = ?`, nil},
			{`DELETE FROM entities WHERE namespace = ?`, &stats.Entities},
			{`DELETE FROM episode_fts WHERE rowid IN (SELECT rid FROM episodes WHERE namespace = ?)`, nil},
			{`DELETE FROM episodes WHERE namespace = ?`, &stats.Episodes},
			{`DELETE FROM item_fts WHERE rowid IN (SELECT rid FROM items WHERE namespace = ?)`, nil},
			{`DELETE FROM items WHERE namespace = ?`, &stats.Items},
			{`DELETE FROM settings WHERE namespace = ?`, nil},
			{`DELETE FROM namespaces WHERE namespace = ?`, nil},
		}
		for _, st := range steps {
			res, err := tx.ExecContext(ctx, st.query, ns)
			if err != nil {
				return fmt.Errorf("%s: %w", st.query, err)
			}
			if st.count != nil {
				n, err := res.RowsAffected()
				if err != nil {
					return err
				}
				*st.count = int(n)
			}
		}
		// The namespace's graph version row goes with it; the counter
		// moves on (raising the episode version takes the next value), so
		// a namespace re-created later gets versions never used before.
		if _, _, err := s.raiseEpisodeVersion(ctx, tx, ns); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `DELETE FROM graph_versions WHERE namespace = ?`, ns)
		return err
	})
	if err != nil {
		return kgmem.PurgeStats{}, fmt.Errorf("sqlite: purge %s: %w", ns, err)
	}
	s.episodes.purged(ns)
	s.dropViews(ns)
	return stats, nil
}

// Namespaces lists every namespace with a record or settings, in byte order.
func (s *Store) Namespaces(ctx context.Context) ([]kgmem.Namespace, error) {
	nss, err := collect(ctx, s.r, func(rows *sql.Rows) (kgmem.Namespace, error) {
		var ns kgmem.Namespace
		return ns, rows.Scan(&ns)
	}, `SELECT namespace FROM namespaces ORDER BY namespace`)
	if err != nil {
		return nil, fmt.Errorf("sqlite: namespaces: %w", err)
	}
	return nss, nil
}

// Settings returns the settings of ns, the zero value when none were stored.
func (s *Store) Settings(ctx context.Context, ns kgmem.Namespace) (kgmem.NamespaceSettings, error) {
	var out kgmem.NamespaceSettings
	if err := checkNamespace(ns); err != nil {
		return out, err
	}
	read := func(ctx context.Context) (string, error) {
		bodies, err := collect(ctx, s.cached(s.r), func(rows *sql.Rows) (string, error) {
			var b string
			return b, rows.Scan(&b)
		}, `SELECT body FROM settings WHERE namespace = ?`, ns)
		if err != nil || len(bodies) == 0 {
			return "", err
		}
		return bodies[0], nil
	}
	body, err := remembered(ctx, s.memo, ns, func(e *memoEntry) **string { return &e.settings }, read)
	if err != nil {
		return out, fmt.Errorf("sqlite: settings of %s: %w", ns, err)
	}
	if body == "" {
		return out, nil
	}
	if err := json.Unmarshal([]byte(body), &out); err != nil {
		return out, fmt.Errorf("sqlite: settings of %s: decode: %w", ns, err)
	}
	return out, nil
}

// PutSettings replaces the settings of ns.
func (s *Store) PutSettings(ctx context.Context, ns kgmem.Namespace, set kgmem.NamespaceSettings) error {
	if err := checkNamespace(ns); err != nil {
		return err
	}
	body, err := json.Marshal(set)
	if err != nil {
		return fmt.Errorf("sqlite: put settings of %s: %w", ns, kgmem.Invalidf("settings", "cannot be encoded as JSON: %v", err))
	}
	err = s.write(ctx, ns, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `INSERT INTO settings (namespace, body) VALUES (?, ?)
			ON CONFLICT (namespace) DO UPDATE SET body = excluded.body`, ns, string(body)); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO namespaces (namespace) VALUES (?)`, ns)
		return err
	})
	if err != nil {
		return fmt.Errorf("sqlite: put settings of %s: %w", ns, err)
	}
	return nil
}
