package memory_test

import (
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"testing"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/api/wire"
	"github.com/kgmem/kgmem/client"
	"github.com/kgmem/kgmem/memory"
)

// TestItems drives items through the REST API and the Go client on every
// backend pair: upsert by key, reads, search by namespace prefix with and
// without a query, LangGraph's filters, deletion, the /v1/search kind, and
// bad input that changes nothing.
func TestItems(t *testing.T) {
	for _, b := range scenarioBackends(t) {
		t.Run(b.name, func(t *testing.T) {
			srv := b.open(t)
			c, err := client.New(srv.url, client.WithRetries(0, 0))
			if err != nil {
				t.Fatal(err)
			}
			ctx := t.Context()
			put := func(ns kgmem.Namespace, key, value string, index *wire.ItemIndex) (kgmem.Item, bool) {
				t.Helper()
				it, created, err := c.PutItem(ctx, wire.ItemRequest{Namespace: ns, Key: key, Value: json.RawMessage(value), Index: index})
				if err != nil {
					t.Fatalf("PutItem(%s, %s): %v", ns, key, err)
				}
				return it.Item, created
			}
			alice, bob := kgmem.Namespace("memories/alice"), kgmem.Namespace("memories/bob")
			first, created := put(alice, "bike", `{"content":"Alice rides a red bicycle to work","kind":"habit","score":3}`, nil)
			if !created || first.Text != "Alice rides a red bicycle to work\nhabit\n3" {
				t.Fatalf("first put: created %v, text %q", created, first.Text)
			}
			put(alice, "tea", `{"content":"Alice drinks green tea","kind":"food","score":8}`, &wire.ItemIndex{Fields: []string{"content"}})
			put(alice, "secret", `{"content":"Alice keeps a bicycle lock code"}`, &wire.ItemIndex{Off: true})
			put(bob, "tea", `{"content":"Bob hates tea and loves coffee","kind":"food","score":1}`, &wire.ItemIndex{Fields: []string{"content"}})
			put("memoriesx", "other", `{"content":"bicycle outside the prefix"}`, nil)

			// Overwrite: same key, new value; created_at kept.
			second, created := put(alice, "bike", `{"content":"Alice sold her bicycle and now walks","kind":"habit","score":4}`, nil)
			if created || !second.CreatedAt.Equal(first.CreatedAt) || second.UpdatedAt.Before(first.UpdatedAt) {
				t.Errorf("overwrite: created %v, created_at %v→%v, updated_at %v→%v", created, first.CreatedAt, second.CreatedAt, first.UpdatedAt, second.UpdatedAt)
			}
			got, err := c.GetItem(ctx, alice, "bike")
			if err != nil || string(got.Value) != `{"content":"Alice sold her bicycle and now walks","kind":"habit","score":4}` {
				t.Errorf("GetItem after overwrite: %s, %v", got.Value, err)
			}
			if _, err := c.GetItem(ctx, bob, "bike"); !errors.Is(err, kgmem.ErrNotFound) {
				t.Errorf("GetItem of a key of another namespace: %v, want not found", err)
			}

			search := func(req wire.ItemSearchRequest) []itemRow {
				t.Helper()
				res, err := c.SearchItems(ctx, req)
				if err != nil {
					t.Fatalf("SearchItems(%+v): %v", req, err)
				}
				out := make([]itemRow, len(res.Items))
				for i, r := range res.Items {
					out[i] = itemRow{ns: r.Namespace, key: r.Key, ranked: r.Score != nil}
				}
				return out
			}
			// No query: every item below the prefix, most recently updated first.
			all := search(wire.ItemSearchRequest{NamespacePrefix: "memories"})
			if len(all) != 4 || all[0] != (itemRow{alice, "bike", false}) {
				t.Errorf("list memories = %v; want 4 items, the overwritten one first, none ranked", all)
			}
			if got := search(wire.ItemSearchRequest{NamespacePrefix: "memories", Limit: 2, Offset: 3}); len(got) != 1 {
				t.Errorf("offset 3 limit 2 = %v; want 1 item", got)
			}
			// Filters.
			food := search(wire.ItemSearchRequest{NamespacePrefix: "memories", Filter: json.RawMessage(`{"kind":"food"}`)})
			if !sameKeys(food, "memories/alice:tea", "memories/bob:tea") {
				t.Errorf("filter kind=food = %v", food)
			}
			high := search(wire.ItemSearchRequest{NamespacePrefix: "memories", Filter: json.RawMessage(`{"score":{"$gte":4}}`)})
			if !sameKeys(high, "memories/alice:tea", "memories/alice:bike") {
				t.Errorf("filter score>=4 = %v", high)
			}
			// A query ranks what it finds first; the rest follow unranked.
			bikes := search(wire.ItemSearchRequest{NamespacePrefix: "memories", Query: "bicycle walks"})
			if len(bikes) != 4 || bikes[0] != (itemRow{alice, "bike", true}) {
				t.Errorf("query bicycle = %v; want alice's bike ranked first, 4 items", bikes)
			}
			for _, r := range bikes {
				if r.key == "secret" && r.ranked {
					t.Error("an item put with index false was ranked")
				}
			}
			coffee := search(wire.ItemSearchRequest{NamespacePrefix: "memories/bob", Query: "coffee"})
			if len(coffee) != 1 || !coffee[0].ranked {
				t.Errorf("query coffee in memories/bob = %v", coffee)
			}
			// The old text of an overwritten item is gone from the indexes.
			red, err := c.SearchItems(ctx, wire.ItemSearchRequest{NamespacePrefix: "memories/alice", Query: "red work", Filter: json.RawMessage(`{"kind":"habit"}`)})
			if err != nil || len(red.Items) != 1 {
				t.Fatalf("query red work: %+v, %v", red, err)
			}
			if sc := red.Items[0].Score; sc != nil && slices.ContainsFunc(sc.Sources, func(s wire.SourceScore) bool { return s.Retriever == memory.RetrieverBM25 }) {
				t.Errorf("BM25 still finds the overwritten text: %+v", sc.Sources)
			}

			// Items are a kind of POST /v1/search.
			res, err := c.Search(ctx, wire.SearchRequest{Namespace: alice, Query: "green tea", Include: []string{"items"}})
			if err != nil || len(res.Items) == 0 || res.Items[0].Key != "tea" || res.Items[0].Score == nil || len(res.Facts)+len(res.Episodes)+len(res.Entities) != 0 {
				t.Errorf("search include items: %+v, %v", res.Items, err)
			}
			if res, err := c.Search(ctx, wire.SearchRequest{Namespace: alice, Query: "green tea"}); err != nil || len(res.Items) == 0 {
				t.Errorf("default search finds no items: %v", err)
			}

			nss, err := c.ListItemNamespaces(ctx, "memories")
			if err != nil || !slices.Equal(nss, []kgmem.Namespace{alice, bob}) {
				t.Errorf("ItemNamespaces(memories) = %v, %v", nss, err)
			}

			// Bad input changes nothing.
			bad := []struct {
				req    wire.ItemRequest
				status int
			}{
				{wire.ItemRequest{Namespace: alice, Key: "tea", Value: json.RawMessage(`[1]`)}, http.StatusBadRequest},
				{wire.ItemRequest{Namespace: alice, Key: "", Value: json.RawMessage(`{}`)}, http.StatusBadRequest},
				{wire.ItemRequest{Namespace: alice, Key: "tea", Value: json.RawMessage(`{}`), Index: &wire.ItemIndex{Fields: []string{"a["}}}, http.StatusUnprocessableEntity},
				{wire.ItemRequest{Namespace: "bad//ns", Key: "tea", Value: json.RawMessage(`{}`)}, http.StatusBadRequest},
			}
			for _, tc := range bad {
				_, _, err := c.PutItem(ctx, tc.req)
				var ce *client.Error
				if !errors.As(err, &ce) || ce.Status != tc.status {
					t.Errorf("PutItem(%+v) = %v; want status %d", tc.req, err, tc.status)
				}
			}
			_, err = c.SearchItems(ctx, wire.ItemSearchRequest{NamespacePrefix: "memories", Filter: json.RawMessage(`{"score":{"$like":1}}`)})
			var ce *client.Error
			if !errors.As(err, &ce) || ce.Status != http.StatusUnprocessableEntity || ce.Field != "filter.score.$like" {
				t.Errorf("unknown filter operator: %v", err)
			}
			if after, _ := c.GetItem(ctx, alice, "tea"); string(after.Value) != `{"content":"Alice drinks green tea","kind":"food","score":8}` {
				t.Errorf("a refused put changed the item: %s", after.Value)
			}

			// Delete: gone from reads and search; again is a 404.
			if err := c.DeleteItem(ctx, alice, "bike"); err != nil {
				t.Fatalf("DeleteItem: %v", err)
			}
			if err := c.DeleteItem(ctx, alice, "bike"); !errors.Is(err, kgmem.ErrNotFound) {
				t.Errorf("second DeleteItem: %v, want not found", err)
			}
			if got := search(wire.ItemSearchRequest{NamespacePrefix: "memories", Query: "bicycle walks"}); len(got) != 3 || slices.ContainsFunc(got, func(r itemRow) bool { return r.key == "bike" }) {
				t.Errorf("search after delete = %v", got)
			}
			purged, err := c.PurgeNamespace(ctx, alice)
			if err != nil || purged.Deleted.Items != 2 {
				t.Errorf("purge: %+v, %v; want 2 items deleted", purged, err)
			}
			if got := search(wire.ItemSearchRequest{NamespacePrefix: "memories"}); len(got) != 1 {
				t.Errorf("after purging alice: %v", got)
			}
		})
	}
}

// itemRow is an item search result reduced to what the test compares.
type itemRow struct {
	ns     kgmem.Namespace
	key    string
	ranked bool
}

// sameKeys reports whether got holds exactly the "namespace:key" items want, in any order.
func sameKeys(got []itemRow, want ...string) bool {
	var keys []string
	for _, r := range got {
		keys = append(keys, string(r.ns)+":"+r.key)
	}
	slices.Sort(keys)
	slices.Sort(want)
	return slices.Equal(keys, want)
}
