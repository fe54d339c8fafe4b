package memory_test

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/api/wire"
	"github.com/kgmem/kgmem/client"
	"github.com/kgmem/kgmem/episodes"
	"github.com/kgmem/kgmem/memory"
)

// TestItemTTL drives an item's TTL on the engine with a settable clock:
// the expiry a put sets, the refresh of a get and of a search (never of an
// expired item), expired items hidden from get, search and the namespace
// listing unless included, a put over an expired item creating it anew,
// and the sweep deleting exactly the expired items.
func TestItemTTL(t *testing.T) {
	h := newHarness(t, nil)
	ctx := t.Context()
	u1, u2 := kgmem.Namespace("ttl/u1"), kgmem.Namespace("ttl/u2")
	minutes := func(m float64) *float64 { return &m }
	put := func(ns kgmem.Namespace, key string, ttl *float64) memory.PutItemResult {
		t.Helper()
		res, err := h.engine.PutItem(ctx, memory.PutItemRequest{Namespace: ns, Key: key, Value: json.RawMessage(`{"text":"note ` + key + `"}`), TTL: ttl})
		if err != nil {
			t.Fatalf("PutItem(%s, %s): %v", ns, key, err)
		}
		return res
	}
	start := h.clock.Now()
	a := put(u1, "a", minutes(10)).Item
	if a.TTL != 10 || a.ExpiresAt == nil || !a.ExpiresAt.Equal(start.Add(10*time.Minute)) {
		t.Fatalf("put with ttl 10: ttl %v, expires_at %v; want 10 and %v", a.TTL, a.ExpiresAt, start.Add(10*time.Minute))
	}
	if b := put(u1, "b", nil).Item; b.ExpiresAt != nil || b.TTL != 0 {
		t.Fatalf("put without a ttl: ttl %v, expires_at %v; want none", b.TTL, b.ExpiresAt)
	}
	put(u1, "c", minutes(1))
	put(u2, "d", minutes(1))
	if _, err := h.engine.PutItem(ctx, memory.PutItemRequest{Namespace: u1, Key: "neg", Value: json.RawMessage(`{}`), TTL: minutes(-1)}); !errors.Is(err, kgmem.ErrInvalid) {
		t.Errorf("put with ttl -1: %v, want invalid", err)
	}

	get := func(ns kgmem.Namespace, key string, read memory.ItemRead) (kgmem.Item, error) {
		t.Helper()
		return h.engine.Item(ctx, ns, key, read)
	}
	expiresAt := func(ns kgmem.Namespace, key string) time.Time {
		t.Helper()
		it, err := get(ns, key, memory.ItemRead{IncludeExpired: true})
		if err != nil || it.ExpiresAt == nil {
			t.Fatalf("read the expiry of %s/%s: %+v, %v", ns, key, it, err)
		}
		return *it.ExpiresAt
	}

	// A get that refreshes extends a's expiry to its TTL from now; one that
	// does not leaves it.
	h.clock.Advance(30 * time.Second)
	if _, err := get(u1, "a", memory.ItemRead{}); err != nil {
		t.Fatal(err)
	}
	if got := expiresAt(u1, "a"); !got.Equal(start.Add(10 * time.Minute)) {
		t.Errorf("a get without refresh moved the expiry to %v", got)
	}
	it, err := get(u1, "a", memory.ItemRead{RefreshTTL: true})
	if want := h.clock.Now().Add(10 * time.Minute); err != nil || it.ExpiresAt == nil || !it.ExpiresAt.Equal(want) || !expiresAt(u1, "a").Equal(want) {
		t.Errorf("get with refresh: %+v, %v; want the expiry at %v, answered and stored", it.ExpiresAt, err, want)
	}

	// A minute later c and d have expired: hidden unless included.
	h.clock.Advance(time.Minute)
	if _, err := get(u1, "c", memory.ItemRead{}); !errors.Is(err, kgmem.ErrNotFound) {
		t.Errorf("get of an expired item: %v, want not found", err)
	}
	cBefore := expiresAt(u1, "c")
	if _, err := get(u1, "c", memory.ItemRead{IncludeExpired: true, RefreshTTL: true}); err != nil {
		t.Errorf("get of an expired item, included: %v", err)
	}
	if got := expiresAt(u1, "c"); !got.Equal(cBefore) {
		t.Errorf("a refresh revived an expired item: expiry %v → %v", cBefore, got)
	}
	search := func(read memory.ItemRead, query string) []string {
		t.Helper()
		res, _, err := h.engine.SearchItems(ctx, memory.ItemSearchRequest{Prefix: "ttl", Query: query, Read: read})
		if err != nil {
			t.Fatalf("SearchItems: %v", err)
		}
		var keys []string
		for _, r := range res {
			keys = append(keys, string(r.Namespace)+"/"+r.Key)
		}
		return keys
	}
	sameKeys := func(what string, got, want []string) {
		t.Helper()
		if len(got) != len(want) {
			t.Errorf("%s = %v, want %v", what, got, want)
			return
		}
		seen := map[string]bool{}
		for _, k := range got {
			seen[k] = true
		}
		for _, k := range want {
			if !seen[k] {
				t.Errorf("%s = %v, want %v", what, got, want)
				return
			}
		}
	}
	sameKeys("search", search(memory.ItemRead{}, ""), []string{"ttl/u1/a", "ttl/u1/b"})
	sameKeys("search with a query", search(memory.ItemRead{}, "note"), []string{"ttl/u1/a", "ttl/u1/b"})
	sameKeys("search including expired", search(memory.ItemRead{IncludeExpired: true}, ""), []string{"ttl/u1/a", "ttl/u1/b", "ttl/u1/c", "ttl/u2/d"})
	res, err := h.engine.Search(ctx, memory.SearchRequest{Namespace: u1, Query: "note", Include: []kgmem.Kind{kgmem.KindItem}})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res.Items {
		if r.Key == "c" {
			t.Errorf("the namespace search found the expired item c")
		}
	}
	nss := func(include bool) []string {
		t.Helper()
		got, err := h.engine.ItemNamespaces(ctx, "ttl", include)
		if err != nil {
			t.Fatal(err)
		}
		out := []string{}
		for _, ns := range got {
			out = append(out, string(ns))
		}
		return out
	}
	sameKeys("namespaces", nss(false), []string{"ttl/u1"})
	sameKeys("namespaces including expired", nss(true), []string{"ttl/u1", "ttl/u2"})

	// A search that refreshes extends the live items it returns.
	h.clock.Advance(5 * time.Minute)
	search(memory.ItemRead{RefreshTTL: true}, "")
	if got, want := expiresAt(u1, "a"), h.clock.Now().Add(10*time.Minute); !got.Equal(want) {
		t.Errorf("after a search that refreshes, a expires at %v, want %v", got, want)
	}

	// A put over an expired item creates it anew, without the old TTL.
	if res := put(u1, "c", nil); !res.Created || res.Item.ExpiresAt != nil || !res.Item.CreatedAt.Equal(h.clock.Now()) {
		t.Errorf("put over an expired item: created %v, expires %v, created_at %v", res.Created, res.Item.ExpiresAt, res.Item.CreatedAt)
	}

	// Two sweeps at once delete d, the only expired item, once.
	var wg sync.WaitGroup
	counts := make([]int, 2)
	for i := range counts {
		wg.Go(func() {
			n, err := h.engine.SweepExpiredItems(ctx)
			if err != nil {
				t.Errorf("SweepExpiredItems: %v", err)
			}
			counts[i] = n
		})
	}
	wg.Wait()
	if counts[0]+counts[1] != 1 {
		t.Errorf("two sweeps deleted %v items, want 1 in all", counts)
	}
	if got, _ := h.graph.Items(ctx, u2, []string{kgmem.ItemID(u2, "d")}); len(got) != 0 {
		t.Errorf("the expired item is still stored after the sweep")
	}
	sameKeys("search including expired after the sweep", search(memory.ItemRead{IncludeExpired: true}, ""), []string{"ttl/u1/a", "ttl/u1/b", "ttl/u1/c"})

	// The namespace sweep deletes the expired items of its namespace too.
	h.clock.Advance(time.Hour)
	stats, err := h.engine.Sweep(ctx, u1)
	if err != nil || stats.ExpiredItems != 1 {
		t.Errorf("Sweep(%s) = %+v, %v; want a deleted", u1, stats, err)
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	put(u1, "e", minutes(0))
	if _, err := h.engine.SweepExpiredItems(cancelled); !errors.Is(err, context.Canceled) {
		t.Errorf("a sweep past its deadline: %v, want the context's error", err)
	}
}

// TestItemsAreNotForgotten: the forgetting sweep leaves items alone, however
// long they go unread (an item lives until deleted or expired), where it
// forgets an episode as old.
func TestItemsAreNotForgotten(t *testing.T) {
	h := newHarness(t, nil)
	ctx := t.Context()
	ns := kgmem.Namespace("ttl/forget")
	if _, err := h.engine.PutItem(ctx, memory.PutItemRequest{Namespace: ns, Key: "k", Value: json.RawMessage(`{"text":"the office wifi password"}`)}); err != nil {
		t.Fatal(err)
	}
	if _, err := h.engine.Ingest(ctx, memory.IngestRequest{Namespace: ns, ThreadID: "t",
		Messages: []episodes.Message{msg("m1", "Ann", "the office moved to the fifth floor", "2024-06-01T12:00:00Z")}}); err != nil {
		t.Fatal(err)
	}
	h.clock.Advance(10 * 365 * 24 * time.Hour)
	stats, err := h.engine.Sweep(ctx, ns)
	if err != nil {
		t.Fatal(err)
	}
	if stats.Episodes.Forgotten == 0 {
		t.Fatalf("the sweep forgot no episode after ten years: %+v", stats)
	}
	if stats.Items.Forgotten != 0 {
		t.Errorf("the sweep forgot %d items", stats.Items.Forgotten)
	}
	it, err := h.engine.Item(ctx, ns, "k", memory.ItemRead{})
	if err != nil || it.Decay.Forgotten() {
		t.Errorf("item after the sweep: forgotten %v, %v", it.Decay.Forgotten(), err)
	}
	res, err := h.engine.Search(ctx, memory.SearchRequest{Namespace: ns, Query: "wifi password", Include: []kgmem.Kind{kgmem.KindItem}})
	if err != nil || len(res.Items) != 1 {
		t.Errorf("search for the item after the sweep: %d items, %v; want it", len(res.Items), err)
	}
}

// TestItemTTLClient drives TTLs through the Go client on every backend
// pair: a put's ttl, a get and the namespace listing hiding an expired
// item unless it is included, refresh_ttl, a batch put with a ttl, and the
// namespace sweep deleting the expired items.
func TestItemTTLClient(t *testing.T) {
	for _, b := range scenarioBackends(t) {
		t.Run(b.name, func(t *testing.T) {
			srv := b.open(t)
			c, err := client.New(srv.url, client.WithRetries(0, 0))
			if err != nil {
				t.Fatal(err)
			}
			ctx := t.Context()
			minutes := func(m float64) *float64 { return &m }
			live, _, err := c.PutItem(ctx, wire.ItemRequest{Namespace: "ttlc/live", Key: "k", Value: json.RawMessage(`{"t":"tea"}`), TTL: minutes(30)})
			if err != nil || live.ExpiresAt == nil || live.TTL != 30 {
				t.Fatalf("put with ttl 30: %+v, %v", live.Item, err)
			}
			if _, _, err := c.PutItem(ctx, wire.ItemRequest{Namespace: "ttlc/gone", Key: "k", Value: json.RawMessage(`{"t":"tea"}`), TTL: minutes(0)}); err != nil {
				t.Fatal(err)
			}
			if _, err := c.GetItem(ctx, "ttlc/gone", "k"); !errors.Is(err, kgmem.ErrNotFound) {
				t.Errorf("get of an expired item: %v, want not found", err)
			}
			if _, err := c.GetItem(ctx, "ttlc/gone", "k", client.IncludeExpired()); err != nil {
				t.Errorf("get of an expired item, included: %v", err)
			}
			if got, err := c.GetItem(ctx, "ttlc/live", "k", client.RefreshTTL(false)); err != nil || !got.ExpiresAt.Equal(*live.ExpiresAt) {
				t.Errorf("get without refresh: %v, %v; want the expiry %v kept", got.ExpiresAt, err, live.ExpiresAt)
			}
			nss, err := c.ListItemNamespaces(ctx, "ttlc")
			if err != nil || len(nss) != 1 || nss[0] != "ttlc/live" {
				t.Errorf("ItemNamespaces = %v, %v; want ttlc/live", nss, err)
			}
			if nss, err := c.ListItemNamespaces(ctx, "ttlc", client.IncludeExpired()); err != nil || len(nss) != 2 {
				t.Errorf("ItemNamespaces including expired = %v, %v; want both", nss, err)
			}
			res, err := c.BatchItems(ctx, []wire.ItemOp{{Op: wire.ItemOpPut, Namespace: "ttlc/gone", Key: "b", Value: json.RawMessage(`{}`), TTL: minutes(0)}})
			if err != nil || len(res) != 1 || res[0].Item == nil || res[0].Item.ExpiresAt == nil {
				t.Fatalf("batch put with ttl 0: %+v, %v", res, err)
			}
			stats, err := c.Sweep(ctx, "ttlc/gone")
			if err != nil || stats.ExpiredItems != 2 {
				t.Errorf("Sweep = %+v, %v; want 2 expired items deleted", stats, err)
			}
			if _, err := c.GetItem(ctx, "ttlc/gone", "k", client.IncludeExpired()); !errors.Is(err, kgmem.ErrNotFound) {
				t.Errorf("get of a swept item: %v, want not found", err)
			}
		})
	}
}
