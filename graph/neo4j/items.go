package neo4j

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/kgmem/kgmem"
	"github.com/neo4j/neo4j-go-driver/v5/neo4j"
)

// itemProps is the property map of the node that stores it: the value as
// a JSON string, and the search text in the full-text properties (an item
// without text matches no search).
func itemProps(key string, it kgmem.Item) map[string]any {
	p := map[string]any{
		"id": it.ID, "namespace": key, "key": it.Key, "value": string(it.Value), "text": it.Text, "fact_ids": listValue(it.FactIDs),
		"created_at": timeValue(it.CreatedAt), "updated_at": timeValue(it.UpdatedAt),
		"ft_scope": scopeToken(key), "ft_en": foldText(it.Text),
	}
	decayProps(p, it.Decay)
	if it.ExpiresAt != nil {
		p["ttl_minutes"], p["expires_at"] = it.TTL, it.ExpiresAt.UTC()
	}
	return p
}

// decodeItem reads an item node's properties.
func decodeItem(ns kgmem.Namespace, m map[string]any) (kgmem.Item, error) {
	p := &props{m: m}
	it := kgmem.Item{
		ID: p.str("id"), Namespace: ns, Key: p.str("key"), Value: json.RawMessage(p.str("value")), Text: p.str("text"), FactIDs: p.strings("fact_ids"),
		CreatedAt: p.time("created_at"), UpdatedAt: p.time("updated_at"), Decay: p.decay(),
	}
	if at := p.time("expires_at"); !at.IsZero() {
		it.ExpiresAt, it.TTL = &at, p.float("ttl_minutes")
	}
	if p.err != nil {
		return it, fmt.Errorf("decode item %s: %w", it.ID, p.err)
	}
	return it, nil
}

// Items returns the items of ns with the given ids, in the order of ids.
func (s *Store) Items(ctx context.Context, ns kgmem.Namespace, ids []string) ([]kgmem.Item, error) {
	if err := checkNamespace(ns); err != nil {
		return nil, fmt.Errorf("neo4j: items: %w", err)
	}
	if len(ids) == 0 {
		return nil, nil
	}
	items, err := s.items(ctx, ns, `UNWIND $ids AS id MATCH (i:`+labelItem+` {namespace: $ns, id: id}) RETURN properties(i) AS i`,
		map[string]any{"ns": s.key(ns), "ids": ids})
	if err != nil {
		return nil, fmt.Errorf("neo4j: items of %s: %w", ns, err)
	}
	return inOrder(ids, items, func(it kgmem.Item) string { return it.ID }), nil
}

// ListItems pages through the items of ns in id order.
func (s *Store) ListItems(ctx context.Context, ns kgmem.Namespace, page kgmem.Page) ([]kgmem.Item, error) {
	if err := checkNamespace(ns); err != nil {
		return nil, fmt.Errorf("neo4j: list items: %w", err)
	}
	limit, err := checkLimit("limit", page.Limit, defaultPageLimit)
	if err != nil {
		return nil, fmt.Errorf("neo4j: list items: %w", err)
	}
	items, err := s.items(ctx, ns, `MATCH (i:`+labelItem+` {namespace: $ns}) WHERE i.id > $after
		RETURN properties(i) AS i ORDER BY i.id LIMIT $limit`,
		map[string]any{"ns": s.key(ns), "after": page.After, "limit": int64(limit)})
	if err != nil {
		return nil, fmt.Errorf("neo4j: list items of %s: %w", ns, err)
	}
	return items, nil
}

func (s *Store) items(ctx context.Context, ns kgmem.Namespace, query string, params map[string]any) ([]kgmem.Item, error) {
	recs, err := s.read(ctx, query, params)
	if err != nil {
		return nil, err
	}
	return decodeItems(ns, recs)
}

// decodeItems reads records of item properties, leaving out items deleted
// while they were read.
func decodeItems(ns kgmem.Namespace, recs []*neo4j.Record) ([]kgmem.Item, error) {
	out := make([]kgmem.Item, 0, len(recs))
	for _, rec := range recs {
		m, _ := rec.Values[0].(map[string]any)
		if deletedWhileRead(m) {
			continue
		}
		it, err := decodeItem(ns, m)
		if err != nil {
			return nil, err
		}
		out = append(out, it)
	}
	return out, nil
}

// DeleteItem hard-deletes one item of ns; kgmem.ErrNotFound when absent.
func (s *Store) DeleteItem(ctx context.Context, ns kgmem.Namespace, id string) error {
	if err := checkNamespace(ns); err != nil {
		return fmt.Errorf("neo4j: delete item: %w", err)
	}
	err := s.write(ctx, func(tx neo4j.ManagedTransaction) error {
		recs, err := run(ctx, tx, `MATCH (i:`+labelItem+` {namespace: $ns, id: $id}) DELETE i RETURN count(*) AS n`,
			map[string]any{"ns": s.key(ns), "id": id})
		if err != nil {
			return err
		}
		if n, _ := recs[0].Values[0].(int64); n == 0 {
			return kgmem.ErrNotFound
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("neo4j: delete item %q in %s: %w", id, ns, err)
	}
	return nil
}

// ItemNamespaces lists, in byte order, the namespaces of this store's scope
// with items that prefix covers (all of them when prefix is empty); with a
// liveAt, only those holding an item not expired then.
func (s *Store) ItemNamespaces(ctx context.Context, prefix kgmem.Namespace, liveAt time.Time) ([]kgmem.Namespace, error) {
	where := `true`
	params := map[string]any{}
	if prefix != "" {
		if err := checkNamespace(prefix); err != nil {
			return nil, fmt.Errorf("neo4j: item namespaces: %w", err)
		}
		where = `(i.namespace = $key OR i.namespace STARTS WITH $below)`
		params["key"], params["below"] = s.key(prefix), s.key(prefix)+"/"
	}
	if !liveAt.IsZero() {
		where += ` AND (i.expires_at IS NULL OR i.expires_at > $live)`
		params["live"] = liveAt.UTC()
	}
	query := `MATCH (i:` + labelItem + `) WHERE ` + where + ` RETURN DISTINCT i.namespace AS ns ORDER BY ns`
	recs, err := s.read(ctx, query, params)
	if err != nil {
		return nil, fmt.Errorf("neo4j: item namespaces: %w", err)
	}
	var out []kgmem.Namespace
	for _, rec := range recs {
		stored, _ := rec.Values[0].(string)
		if ns, ok := s.unkey(stored); ok {
			out = append(out, ns)
		}
	}
	return out, nil
}

// ExpiredItems lists the ids of up to limit items of ns expired at or
// before at, soonest expired first.
func (s *Store) ExpiredItems(ctx context.Context, ns kgmem.Namespace, at time.Time, limit int) ([]string, error) {
	if err := checkNamespace(ns); err != nil {
		return nil, fmt.Errorf("neo4j: expired items: %w", err)
	}
	limit, err := checkLimit("limit", limit, defaultPageLimit)
	if err != nil {
		return nil, fmt.Errorf("neo4j: expired items: %w", err)
	}
	recs, err := s.read(ctx, `MATCH (i:`+labelItem+` {namespace: $ns}) WHERE i.expires_at <= $at
		RETURN i.id AS id ORDER BY i.expires_at, i.id LIMIT $limit`,
		map[string]any{"ns": s.key(ns), "at": at.UTC(), "limit": int64(limit)})
	if err != nil {
		return nil, fmt.Errorf("neo4j: expired items of %s: %w", ns, err)
	}
	ids := make([]string, 0, len(recs))
	for _, rec := range recs {
		id, _ := rec.Values[0].(string)
		ids = append(ids, id)
	}
	return ids, nil
}

// RefreshItems sets the expiry of the items of ns still live at at.
func (s *Store) RefreshItems(ctx context.Context, ns kgmem.Namespace, expiries []kgmem.ItemExpiry, at time.Time) error {
	if err := checkNamespace(ns); err != nil {
		return fmt.Errorf("neo4j: refresh items: %w", err)
	}
	if len(expiries) == 0 {
		return nil
	}
	rows := make([]map[string]any, len(expiries))
	for i, e := range expiries {
		rows[i] = map[string]any{"id": e.ID, "expires_at": e.ExpiresAt.UTC()}
	}
	err := s.write(ctx, func(tx neo4j.ManagedTransaction) error {
		_, err := run(ctx, tx, `UNWIND $rows AS row MATCH (i:`+labelItem+` {namespace: $ns, id: row.id})
			WHERE i.expires_at > $at SET i.expires_at = row.expires_at`,
			map[string]any{"ns": s.key(ns), "rows": rows, "at": at.UTC()})
		return err
	})
	if err != nil {
		return fmt.Errorf("neo4j: refresh items of %s: %w", ns, err)
	}
	return nil
}
