package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"

	"github.com/kgmem/kgmem"
)

// itemCols are the columns scanItem reads, from alias i.
const itemCols = `i.id, i.namespace, i.key, i.value, i.text, i.fact_ids, i.created_at, i.updated_at, i.stability, i.reinforced_at, i.reinforcements, i.pinned, i.forgotten_at`

// scanItem scans one row of itemCols.
func scanItem(rows *sql.Rows) (kgmem.Item, error) {
	var (
		it               kgmem.Item
		value, factIDs   string
		created, updated sql.NullInt64
		d                decayCols
	)
	dest := append([]any{&it.ID, &it.Namespace, &it.Key, &value, &it.Text, &factIDs, &created, &updated}, d.dest()...)
	if err := rows.Scan(dest...); err != nil {
		return it, fmt.Errorf("scan item: %w", err)
	}
	var err error
	if it.FactIDs, err = fromJSONList(factIDs); err != nil {
		return it, fmt.Errorf("item %s fact ids: %w", it.ID, err)
	}
	it.Value = json.RawMessage(value)
	it.CreatedAt, it.UpdatedAt, it.Decay = fromMillis(created), fromMillis(updated), d.state()
	return it, nil
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
// of them when prefix is empty), in byte order.
func (s *Store) ItemNamespaces(ctx context.Context, prefix kgmem.Namespace) ([]kgmem.Namespace, error) {
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
	}, `SELECT DISTINCT namespace FROM items WHERE ? = '' OR namespace = ? OR (namespace > ? AND namespace < ?) ORDER BY namespace`,
		prefix, prefix, prefix+"/", prefix+"0")
	if err != nil {
		return nil, fmt.Errorf("sqlite: item namespaces: %w", err)
	}
	return nss, nil
}
