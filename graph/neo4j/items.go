package neo4j

import (
	"context"
	"encoding/json"
	"fmt"

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
	return p
}

// decodeItem reads an item node's properties.
func decodeItem(ns kgmem.Namespace, m map[string]any) (kgmem.Item, error) {
	p := &props{m: m}
	it := kgmem.Item{
		ID: p.str("id"), Namespace: ns, Key: p.str("key"), Value: json.RawMessage(p.str("value")), Text: p.str("text"), FactIDs: p.strings("fact_ids"),
		CreatedAt: p.time("created_at"), UpdatedAt: p.time("updated_at"), Decay: p.decay(),
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
	out := make([]kgmem.Item, 0, len(recs))
	for _, rec := range recs {
		m, _ := rec.Values[0].(map[string]any)
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
// with items that prefix covers (all of them when prefix is empty).
func (s *Store) ItemNamespaces(ctx context.Context, prefix kgmem.Namespace) ([]kgmem.Namespace, error) {
	query := `MATCH (i:` + labelItem + `) RETURN DISTINCT i.namespace AS ns ORDER BY ns`
	params := map[string]any{}
	if prefix != "" {
		if err := checkNamespace(prefix); err != nil {
			return nil, fmt.Errorf("neo4j: item namespaces: %w", err)
		}
		query = `MATCH (i:` + labelItem + `) WHERE i.namespace = $key OR i.namespace STARTS WITH $below
			RETURN DISTINCT i.namespace AS ns ORDER BY ns`
		params = map[string]any{"key": s.key(prefix), "below": s.key(prefix) + "/"}
	}
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
