package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"time"

	"github.com/kgmem/kgmem"
)

// itemCols are the columns scanItem reads, from alias i.
const itemCols = `i.id, i.namespace, i.key, i.value, i.text, i.fact_ids, i.created_at, i.updated_at, i.stability, i.reinforced_at, i.reinforcements, i.pinned, i.forgotten_at, i.ttl_minutes, i.expires_at`

// scanItem scans one row of itemCols.
func scanItem(rows *sql.Rows) (kgmem.Item, error) {
	var (
		it               kgmem.Item
		value, factIDs   string
		created, updated sql.NullInt64
		d                decayCols
		ttl              sql.NullFloat64
		expires          sql.NullInt64
	)
	dest := append([]any{&it.ID, &it.Namespace, &it.Key, &value, &it.Text, &factIDs, &created, &updated}, append(d.dest(), &ttl, &expires)...)
	if err := rows.Scan(dest...); err != nil {
		return it, fmt.Errorf("scan item: %w", err)
	}
	var err error
	if it.FactIDs, err = fromJSONList(factIDs); err != nil {
		return it, fmt.Errorf("item %s fact ids: %w", it.ID, err)
	}
	it.Value = json.RawMessage(value)
	it.CreatedAt, it.UpdatedAt, it.Decay = fromMillis(created), fromMillis(updated), d.state()
	if expires.Valid {
		at := fromMillis(expires)
		it.ExpiresAt, it.TTL = &at, ttl.Float64
	}
	return it, nil
}

// itemTTL encodes an item's TTL: NULL when it never expires.
func itemTTL(it kgmem.Item) any {
	if it.ExpiresAt == nil {
		return nil
	}
	return it.TTL
}

// deref is the time p points to, or the zero time.
func deref(p *time.Time) time.Time {
	if p == nil {
		return time.Time{}
	}
	return *p
}

// items runs a query on the items of ns (alias i) with an extra condition.
func (s *Store) items(ctx context.Context, ns kgmem.Namespace, cond string, args ...any) ([]kgmem.Item, error) {
	return collect(ctx, s.cached(s.r), scanItem, `SELECT `+itemCols+` FROM items i WHERE i.namespace = ? AND `+cond,
		append([]any{ns}, args...)...)
}

// Items returns the items of ns with the given ids, in the order of ids.
func (s *Store) Items(ctx context.Context, ns kgmem.Namespace, ids []string) ([]kgmem.Item, error) {
	if err := checkNamespace(ns); err != nil {
		return nil, err
	}
	items, err := byIDs(ctx, ids, func(it kgmem.Item) string { return it.ID },
		func(ctx context.Context, cond string, args []any) ([]kgmem.Item, error) {
			return s.items(ctx, ns, "i."+cond, args...)
		})
	if err != nil {
		return nil, fmt.Errorf("sqlite: items: %w", err)
	}
	return items, nil
}

// ListItems pages through the items of ns in id order.
func (s *Store) ListItems(ctx context.Context, ns kgmem.Namespace, page kgmem.Page) ([]kgmem.Item, error) {
	if err := checkNamespace(ns); err != nil {
		return nil, err
	}
	limit, err := pageLimit("limit", page)
	if err != nil {
		return nil, fmt.Errorf("sqlite: list items: %w", err)
	}
	items, err := s.items(ctx, ns, `i.id > ? ORDER BY i.id `+limitParam, page.After, limit)
	if err != nil {
		return nil, fmt.Errorf("sqlite: list items: %w", err)
	}
	return items, nil
}

// DeleteItem hard-deletes one item of ns and its search entry; ErrNotFound
// when ns has no such item.
func (s *Store) DeleteItem(ctx context.Context, ns kgmem.Namespace, id string) error {
	if err := checkNamespace(ns); err != nil {
		return err
	}
	err := s.write(ctx, ns, func(tx *sql.Tx) error {
		var rid int64
		err := tx.QueryRowContext(ctx, `DELETE FROM items WHERE namespace = ? AND id = ? RETURNING rid`, ns, id).Scan(&rid)
		if errNoRows(err) {
			return fmt.Errorf("item %q in %s: %w", id, ns, kgmem.ErrNotFound)
		}
		if err != nil {
			return err
		}
		if _, err = tx.ExecContext(ctx, `DELETE FROM item_fts WHERE rowid = ?`, rid); err != nil {
			return err
		}
		return s.ws.bumpVersion(ctx, tx, ns)
	})
	if err != nil {
		return fmt.Errorf("sqlite: delete item: %w", err)
	}
	return nil
}

// ItemNamespaces lists the namespaces with items that prefix covers (all
// of them when prefix is empty), in byte order; with a liveAt, only those
// holding an item not expired then.
func (s *Store) ItemNamespaces(ctx context.Context, prefix kgmem.Namespace, liveAt time.Time) ([]kgmem.Namespace, error) {
	if prefix != "" {
		if err := checkNamespace(prefix); err != nil {
			return nil, err
		}
	}
	// '/' sorts just before '0' and after every other character a
	// namespace may hold but '-' and '.', so "p/" up to "p0" is exactly the
	// namespaces below p.
	nss, err := collect(ctx, s.r, func(rows *sql.Rows) (kgmem.Namespace, error) {
		var ns kgmem.Namespace
		return ns, rows.Scan(&ns)
	}, `SELECT DISTINCT namespace FROM items WHERE (? = '' OR namespace = ? OR (namespace > ? AND namespace < ?))
		AND (? IS NULL OR expires_at IS NULL OR expires_at > ?) ORDER BY namespace`,
		prefix, prefix, prefix+"/", prefix+"0", millis(liveAt), millis(liveAt))
	if err != nil {
		return nil, fmt.Errorf("sqlite: item namespaces: %w", err)
	}
	return nss, nil
}

// ExpiredItems lists the ids of up to limit items of ns expired at or
// before at, soonest expired first.
func (s *Store) ExpiredItems(ctx context.Context, ns kgmem.Namespace, at time.Time, limit int) ([]string, error) {
	if err := checkNamespace(ns); err != nil {
		return nil, err
	}
	limit, err := pageLimit("limit", kgmem.Page{Limit: limit})
	if err != nil {
		return nil, fmt.Errorf("sqlite: expired items: %w", err)
	}
	ids, err := collect(ctx, s.r, func(rows *sql.Rows) (string, error) {
		var id string
		return id, rows.Scan(&id)
	}, `SELECT id FROM items WHERE namespace = ? AND expires_at IS NOT NULL AND expires_at <= ? ORDER BY expires_at, id `+limitParam,
		ns, at.UnixMilli(), limit)
	if err != nil {
		return nil, fmt.Errorf("sqlite: expired items: %w", err)
	}
	return ids, nil
}

// RefreshItems sets the expiry of the items of ns still live at at.
func (s *Store) RefreshItems(ctx context.Context, ns kgmem.Namespace, expiries []kgmem.ItemExpiry, at time.Time) error {
	if err := checkNamespace(ns); err != nil {
		return err
	}
	if len(expiries) == 0 {
		return nil
	}
	err := s.write(ctx, ns, func(tx *sql.Tx) error {
		for _, e := range expiries {
			if _, err := tx.ExecContext(ctx, `UPDATE items SET expires_at = ? WHERE namespace = ? AND id = ? AND expires_at > ?`,
				e.ExpiresAt.UnixMilli(), ns, e.ID, at.UnixMilli()); err != nil {
				return err
			}
		}
		return s.ws.bumpVersion(ctx, tx, ns)
	})
	if err != nil {
		return fmt.Errorf("sqlite: refresh items: %w", err)
	}
	return nil
}
