package graphtest

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/kgmem/kgmem"
)

// Item builds an item of ns with a JSON value and its search text.
func Item(ns kgmem.Namespace, key, value, text string) kgmem.Item {
	return kgmem.Item{ID: kgmem.ItemID(ns, key), Namespace: ns, Key: key, Value: json.RawMessage(value), Text: text,
		CreatedAt: at(1), UpdatedAt: at(2), Decay: kgmem.DecayState{Stability: 2, LastReinforcedAt: at(2)}}
}

// testItems covers items: upsert by id, reads in order, paging, deletion,
// full-text search, decay, purge and the namespaces that hold items.
func testItems(t *testing.T, open Opener) {
	t.Run("PutReadOverwrite", func(t *testing.T) {
		h := newH(t, open)
		ns := kgmem.Namespace("items/rw")
		a := Item(ns, "a", `{"content":"Rosa rides a red bicycle","n":1}`, "Rosa rides a red bicycle")
		a.FactIDs = []string{"fact_1", "fact_2"}
		b := Item(ns, "key with spaces / and ü", `{"nested":{"x":[1,2]}}`, "")
		h.apply(kgmem.ChangeSet{Namespace: ns, Items: []kgmem.Item{a, b}})
		got := h.items(ns, b.ID, "it_missing", a.ID)
		if len(got) != 2 {
			t.Fatalf("Items = %d items, want 2 (missing ids left out)", len(got))
		}
		checkItem(t, got[0], b)
		checkItem(t, got[1], a)

		a2 := a
		a2.Value, a2.Text, a2.UpdatedAt, a2.FactIDs = json.RawMessage(`{"content":"Rosa sold the bicycle and walks"}`), "Rosa sold the bicycle and walks", at(9), nil
		h.apply(kgmem.ChangeSet{Namespace: ns, Items: []kgmem.Item{a2}})
		checkItem(t, h.items(ns, a.ID)[0], a2)
		if hits := h.search(ns, kgmem.TextQuery{Text: "red", Kinds: []kgmem.Kind{kgmem.KindItem}}); len(hits) != 0 {
			t.Errorf("the overwritten text is still found: %v", hits)
		}
		sameIDs(t, "search walks", hitIDs(h.search(ns, kgmem.TextQuery{Text: "walks", Kinds: []kgmem.Kind{kgmem.KindItem}})), []string{a.ID})
	})
	t.Run("ListInIDOrder", func(t *testing.T) {
		h := newH(t, open)
		ns := kgmem.Namespace("items/list")
		var items []kgmem.Item
		var want []string
		for i := range 7 {
			it := Item(ns, fmt.Sprintf("k%d", i), `{"i":1}`, "")
			items = append(items, it)
			want = append(want, it.ID)
		}
		h.apply(kgmem.ChangeSet{Namespace: ns, Items: items})
		var got []string
		for after := ""; ; {
			page, err := h.s.ListItems(h.ctx, ns, kgmem.Page{After: after, Limit: 3})
			if err != nil {
				t.Fatalf("ListItems: %v", err)
			}
			for _, it := range page {
				got = append(got, it.ID)
			}
			if len(page) < 3 {
				break
			}
			after = page[len(page)-1].ID
		}
		sameIDs(t, "pages", got, sorted(want))
	})
	t.Run("DeleteAndSearch", func(t *testing.T) {
		h := newH(t, open)
		ns := kgmem.Namespace("items/del")
		keep := Item(ns, "keep", `{"t":"Luis plays the cello"}`, "Luis plays the cello")
		gone := Item(ns, "gone", `{"t":"Luis plays the oboe"}`, "Luis plays the oboe")
		silent := Item(ns, "silent", `{"t":"Luis plays the drums"}`, "")
		h.apply(kgmem.ChangeSet{Namespace: ns, Items: []kgmem.Item{keep, gone, silent}})
		sameSet(t, "search luis", hitIDs(h.search(ns, kgmem.TextQuery{Text: "luis plays"})), []string{keep.ID, gone.ID})
		if err := h.s.DeleteItem(h.ctx, ns, gone.ID); err != nil {
			t.Fatalf("DeleteItem: %v", err)
		}
		wantErr(t, "second DeleteItem", h.s.DeleteItem(h.ctx, ns, gone.ID), kgmem.ErrNotFound)
		wantErr(t, "DeleteItem in another namespace", h.s.DeleteItem(h.ctx, "items/other", keep.ID), kgmem.ErrNotFound)
		sameIDs(t, "search after delete", hitIDs(h.search(ns, kgmem.TextQuery{Text: "luis plays"})), []string{keep.ID})
		if got := h.items(ns, gone.ID); len(got) != 0 {
			t.Errorf("deleted item still read: %v", got)
		}
		sameIDs(t, "other namespace", itemIDs(h.items("items/other", keep.ID)), nil)
	})
	t.Run("Decay", func(t *testing.T) {
		h := newH(t, open)
		ns := kgmem.Namespace("items/decay")
		it := Item(ns, "d", `{"a":1}`, "one")
		h.apply(kgmem.ChangeSet{Namespace: ns, Items: []kgmem.Item{it}})
		st := kgmem.DecayState{Stability: 7.5, LastReinforcedAt: at(20), Reinforcements: 3, Pinned: true}
		if err := h.s.SetDecay(h.ctx, ns, []kgmem.DecayUpdate{{Kind: kgmem.KindItem, ID: it.ID, State: st}}); err != nil {
			t.Fatalf("SetDecay: %v", err)
		}
		checkDecay(t, "item", h.items(ns, it.ID)[0].Decay, st)
		err := h.s.SetDecay(h.ctx, ns, []kgmem.DecayUpdate{{Kind: kgmem.KindItem, ID: "it_missing", State: st}})
		wantErr(t, "SetDecay of a missing item", err, kgmem.ErrNotFound)
	})
	t.Run("PurgeAndNamespaces", func(t *testing.T) {
		h := newH(t, open)
		for _, ns := range []kgmem.Namespace{"mem", "mem/u1", "mem/u1/deep", "memx", "other/mem"} {
			h.apply(kgmem.ChangeSet{Namespace: ns, Items: []kgmem.Item{Item(ns, "k", `{"v":"hello there"}`, "hello there")}})
		}
		h.apply(kgmem.ChangeSet{Namespace: "mem/episodes-only", Episodes: []kgmem.Episode{Episode("mem/episodes-only", "ep_io", "Ann", "hi")}})
		nss := func(prefix kgmem.Namespace) []string {
			t.Helper()
			got, err := h.s.ItemNamespaces(h.ctx, prefix, time.Time{})
			if err != nil {
				t.Fatalf("ItemNamespaces(%q): %v", prefix, err)
			}
			return stringsOf(got)
		}
		sameIDs(t, "ItemNamespaces(mem)", nss("mem"), []string{"mem", "mem/u1", "mem/u1/deep"})
		sameIDs(t, "ItemNamespaces(mem/u1)", nss("mem/u1"), []string{"mem/u1", "mem/u1/deep"})
		sameIDs(t, "ItemNamespaces()", nss(""), []string{"mem", "mem/u1", "mem/u1/deep", "memx", "other/mem"})
		sameIDs(t, "ItemNamespaces(none)", nss("nothing"), nil)
		stats, err := h.s.PurgeNamespace(h.ctx, "mem/u1")
		if err != nil {
			t.Fatalf("PurgeNamespace: %v", err)
		}
		if want := (kgmem.PurgeStats{Items: 1}); stats != want {
			t.Errorf("PurgeStats = %+v, want %+v", stats, want)
		}
		if hits := h.search("mem/u1", kgmem.TextQuery{Text: "hello"}); len(hits) != 0 {
			t.Errorf("search after purge: %v", hits)
		}
		sameIDs(t, "ItemNamespaces after purge", nss("mem"), []string{"mem", "mem/u1/deep"})
	})
	t.Run("Expiry", func(t *testing.T) {
		h := newH(t, open)
		ns, other := kgmem.Namespace("items/ttl"), kgmem.Namespace("items/ttl/other")
		expiring := func(ns kgmem.Namespace, key string, ttl float64, expires int) kgmem.Item {
			it := Item(ns, key, `{"v":"`+key+`"}`, key)
			at := at(expires)
			it.TTL, it.ExpiresAt = ttl, &at
			return it
		}
		gone, soon, later := expiring(ns, "gone", 60, 3), expiring(ns, "soon", 0.5, 5), expiring(ns, "later", 90, 8)
		never := Item(ns, "never", `{"v":"never"}`, "never")
		h.apply(kgmem.ChangeSet{Namespace: ns, Items: []kgmem.Item{later, never, soon, gone}})
		h.apply(kgmem.ChangeSet{Namespace: other, Items: []kgmem.Item{expiring(other, "old", 1, 2)}})
		for _, it := range []kgmem.Item{gone, soon, later, never} {
			checkItem(t, h.items(ns, it.ID)[0], it)
		}
		expired := func(ns kgmem.Namespace, at time.Time, limit int) []string {
			t.Helper()
			ids, err := h.s.ExpiredItems(h.ctx, ns, at, limit)
			if err != nil {
				t.Fatalf("ExpiredItems: %v", err)
			}
			return ids
		}
		sameIDs(t, "expired at 2h", expired(ns, at(2), 10), nil)
		sameIDs(t, "expired at 5h (inclusive), soonest first", expired(ns, at(5), 10), []string{gone.ID, soon.ID})
		sameIDs(t, "expired at 9h, limit 2", expired(ns, at(9), 2), []string{gone.ID, soon.ID})
		sameIDs(t, "expired in the other namespace", expired(other, at(9), 10), []string{kgmem.ItemID(other, "old")})

		live := func(prefix kgmem.Namespace, liveAt time.Time) []string {
			t.Helper()
			got, err := h.s.ItemNamespaces(h.ctx, prefix, liveAt)
			if err != nil {
				t.Fatalf("ItemNamespaces: %v", err)
			}
			return stringsOf(got)
		}
		sameIDs(t, "namespaces live at 1h", live("items", at(1)), []string{string(ns), string(other)})
		sameIDs(t, "namespaces live at 2h (the other's only item expired)", live("items", at(2)), []string{string(ns)})
		sameIDs(t, "namespaces whatever their expiry", live("items", time.Time{}), []string{string(ns), string(other)})

		// A refresh at 4h extends the live items and leaves the expired one.
		err := h.s.RefreshItems(h.ctx, ns, []kgmem.ItemExpiry{{ID: gone.ID, ExpiresAt: at(20)}, {ID: soon.ID, ExpiresAt: at(21)},
			{ID: never.ID, ExpiresAt: at(22)}, {ID: "it_missing", ExpiresAt: at(23)}}, at(4))
		if err != nil {
			t.Fatalf("RefreshItems: %v", err)
		}
		soon2 := soon
		soon2.ExpiresAt = new(at(21))
		checkItem(t, h.items(ns, soon.ID)[0], soon2)
		checkItem(t, h.items(ns, gone.ID)[0], gone)
		checkItem(t, h.items(ns, never.ID)[0], never)
		sameIDs(t, "expired at 9h after the refresh", expired(ns, at(9), 10), []string{gone.ID, later.ID})

		// A put without a TTL clears the expiry.
		h.apply(kgmem.ChangeSet{Namespace: ns, Items: []kgmem.Item{Item(ns, "gone", `{"v":"back"}`, "back")}})
		sameIDs(t, "expired after the put clearing the TTL", expired(ns, at(9), 10), []string{later.ID})
		wantErr(t, "ExpiredItems with a negative limit", func() error { _, err := h.s.ExpiredItems(h.ctx, ns, at(9), -1); return err }(), kgmem.ErrInvalid)
	})
	t.Run("Invalid", func(t *testing.T) {
		h := newH(t, open)
		ns := kgmem.Namespace("items/bad")
		cases := map[string]kgmem.Item{
			"id not derived from the key": {ID: "it_x", Namespace: ns, Key: "k", Value: json.RawMessage(`{}`)},
			"value not an object":         Item(ns, "k", `[1,2]`, ""),
			"empty key":                   Item(ns, "", `{}`, ""),
			"other namespace":             Item("items/elsewhere", "k", `{}`, ""),
		}
		for name, it := range cases {
			err := h.s.Apply(h.ctx, kgmem.ChangeSet{Namespace: ns, Items: []kgmem.Item{it}})
			wantErr(t, name, err, kgmem.ErrInvalid)
		}
		if got, _ := h.s.ItemNamespaces(h.ctx, "", time.Time{}); len(got) != 0 {
			t.Errorf("a refused change set wrote items in %v", got)
		}
	})
}

// items reads items by id and fails the test on error.
func (h *h) items(ns kgmem.Namespace, ids ...string) []kgmem.Item {
	h.t.Helper()
	got, err := h.s.Items(h.ctx, ns, ids)
	if err != nil {
		h.t.Fatalf("Items(%s): %v", ns, err)
	}
	return got
}

func itemIDs(items []kgmem.Item) []string {
	out := make([]string, len(items))
	for i, it := range items {
		out[i] = it.ID
	}
	return out
}

// checkItem compares every field of an item read back with the one written.
func checkItem(t *testing.T, got, want kgmem.Item) {
	t.Helper()
	checkEqual(t, "item id", got.ID, want.ID)
	checkEqual(t, "item namespace", got.Namespace, want.Namespace)
	checkEqual(t, "item key", got.Key, want.Key)
	checkEqual(t, "item value", string(got.Value), string(want.Value))
	checkEqual(t, "item text", got.Text, want.Text)
	checkEqual(t, "item fact ids", got.FactIDs, want.FactIDs)
	checkTime(t, "item created_at", got.CreatedAt, want.CreatedAt)
	checkTime(t, "item updated_at", got.UpdatedAt, want.UpdatedAt)
	checkDecay(t, "item decay", got.Decay, want.Decay)
	checkEqual(t, "item ttl", got.TTL, want.TTL)
	checkEqual(t, "item has an expiry", got.ExpiresAt != nil, want.ExpiresAt != nil)
	if got.ExpiresAt != nil && want.ExpiresAt != nil {
		checkTime(t, "item expires_at", *got.ExpiresAt, *want.ExpiresAt)
	}
}
