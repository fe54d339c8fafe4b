package procedural

import (
	"context"
	"encoding/json"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/api/wire"
	"github.com/kgmem/kgmem/client"
	"github.com/kgmem/kgmem/memory"
)

// ClientStore keeps instructions through kgmem's REST API: keys and
// namespaces are checked as for any item.
func ClientStore(c *client.Client) Store { return clientStore{c} }

type clientStore struct{ c *client.Client }

func (s clientStore) PutItem(ctx context.Context, ns kgmem.Namespace, key string, value json.RawMessage) (kgmem.Item, error) {
	res, _, err := s.c.PutItem(ctx, wire.ItemRequest{Namespace: ns, Key: key, Value: value, Index: &wire.ItemIndex{Off: true}})
	return res.Item, err
}

func (s clientStore) ListItems(ctx context.Context, ns kgmem.Namespace, offset, limit int) ([]kgmem.Item, error) {
	list, err := s.c.SearchItems(ctx, wire.ItemSearchRequest{NamespacePrefix: ns, Limit: limit, Offset: offset, Reinforce: new(bool)})
	if err != nil {
		return nil, err
	}
	out := make([]kgmem.Item, 0, len(list.Items))
	for _, it := range list.Items {
		out = append(out, it.Item)
	}
	return out, nil
}

// EngineStore keeps instructions in the engine directly (in-process
// programs and tests).
func EngineStore(e *memory.Engine) Store { return engineStore{e} }

type engineStore struct{ e *memory.Engine }

func (s engineStore) PutItem(ctx context.Context, ns kgmem.Namespace, key string, value json.RawMessage) (kgmem.Item, error) {
	res, err := s.e.PutItem(ctx, memory.PutItemRequest{Namespace: ns, Key: key, Value: value, Index: []string{}})
	return res.Item, err
}

func (s engineStore) ListItems(ctx context.Context, ns kgmem.Namespace, offset, limit int) ([]kgmem.Item, error) {
	res, _, err := s.e.SearchItems(ctx, memory.ItemSearchRequest{Prefix: ns, Limit: limit, Offset: offset})
	if err != nil {
		return nil, err
	}
	out := make([]kgmem.Item, 0, len(res))
	for _, it := range res {
		out = append(out, it.Item)
	}
	return out, nil
}
