package graphtest

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/kgmem/kgmem"
)

// testConcurrency covers what ingestion workers do at once: concurrent change
// sets that upsert the same entity, reads beside writes, retries of the same
// change set, cancelled writes, and item reads beside deletes.
func testConcurrency(t *testing.T, open Opener) {
	t.Run("ConcurrentApply", func(t *testing.T) { testConcurrentApply(t, open) })
	t.Run("ReapplyIsIdempotent", func(t *testing.T) { testReapply(t, open) })
	t.Run("CancelledApplyWritesNothing", func(t *testing.T) { testCancelledApply(t, open) })
	t.Run("ReadsBesideDeletes", func(t *testing.T) { testReadsBesideDeletes(t, open) })
}

func testConcurrentApply(t *testing.T, open Opener) {
	h := newH(t, open)
	ns := kgmem.Namespace("conc/apply")
	const workers, each = 4, 5
	var wg sync.WaitGroup
	errs := make(chan error, workers*each+1)
	for w := range workers {
		wg.Go(func() {
			for i := range each {
				// Every change set upserts the shared hub and links a new entity to it.
				hub := Entity(ns, "ent_ca_hub", "Hub")
				leaf := Entity(ns, fmt.Sprintf("ent_ca_%d_%d", w, i), fmt.Sprintf("Leaf %d %d", w, i))
				f := Fact(ns, fmt.Sprintf("fact_ca_%d_%d", w, i), leaf.ID, "part_of", hub.ID, fmt.Sprintf("Leaf %d %d is part of the hub.", w, i))
				ep := Episode(ns, fmt.Sprintf("ep_ca_%d_%d", w, i), "Ann", "concurrent message")
				errs <- h.s.Apply(h.ctx, kgmem.ChangeSet{
					Namespace: ns, Episodes: []kgmem.Episode{ep}, Entities: []kgmem.Entity{hub, leaf}, Facts: []kgmem.Fact{f},
					Mentions: []kgmem.Mention{{EpisodeID: ep.ID, EntityID: hub.ID}},
				})
			}
		})
	}
	wg.Go(func() {
		for range 10 {
			if _, err := h.s.ListFacts(h.ctx, ns, kgmem.FactFilter{EntityID: "ent_ca_hub"}); err != nil {
				errs <- fmt.Errorf("ListFacts beside writers: %w", err)
				return
			}
		}
	})
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatalf("concurrent Apply: %v", err)
		}
	}
	if n := len(h.listFacts(ns, kgmem.FactFilter{EntityID: "ent_ca_hub"})); n != workers*each {
		t.Fatalf("hub has %d facts, want %d", n, workers*each)
	}
	if n := len(h.findEntities(ns, kgmem.EntityFilter{})); n != workers*each+1 {
		t.Fatalf("%d entities, want %d", n, workers*each+1)
	}
}

func testReapply(t *testing.T, open Opener) {
	h := newH(t, open)
	ns := kgmem.Namespace("conc/reapply")
	ep := Episode(ns, "ep_ra_1", "Ann", "Ann met Bob in Paris.")
	ann, bob := Entity(ns, "ent_ra_ann", "Ann"), Entity(ns, "ent_ra_bob", "Bob")
	f := Fact(ns, "fact_ra_1", ann.ID, "met", bob.ID, "Ann met Bob in Paris.")
	cs := kgmem.ChangeSet{Namespace: ns, Episodes: []kgmem.Episode{ep}, Entities: []kgmem.Entity{ann, bob}, Facts: []kgmem.Fact{f},
		Mentions: []kgmem.Mention{{EpisodeID: ep.ID, EntityID: ann.ID}, {EpisodeID: ep.ID, EntityID: bob.ID}}}
	for range 3 {
		h.apply(cs)
	}
	sameIDs(t, "facts", h.listFacts(ns, kgmem.FactFilter{IncludeExpired: true}), []string{f.ID})
	sameIDs(t, "entities", h.findEntities(ns, kgmem.EntityFilter{}), []string{ann.ID, bob.ID})
	sameIDs(t, "search", sorted(hitIDs(h.search(ns, kgmem.TextQuery{Text: "paris"}))), []string{ep.ID, f.ID})
	checkFact(t, h.fact(ns, f.ID), f, ann.Name, bob.Name)
}

func testCancelledApply(t *testing.T, open Opener) {
	h := newH(t, open)
	ns := kgmem.Namespace("conc/cancel")
	ctx, cancel := context.WithCancel(h.ctx)
	cancel()
	e := Entity(ns, "ent_cc_1", "Cancelled")
	if err := h.s.Apply(ctx, kgmem.ChangeSet{Namespace: ns, Entities: []kgmem.Entity{e}}); err == nil {
		t.Fatal("Apply with a cancelled context succeeded")
	}
	_, err := h.s.Entity(h.ctx, ns, e.ID)
	wantErr(t, "Entity after a cancelled Apply", err, kgmem.ErrNotFound)
}

// testReadsBesideDeletes reads items while other writers put and delete
// them: a read sees each item or not, and never fails because a node it
// matched was deleted before it read its properties (Neo4j reads committed
// data, so a concurrent delete can land between the two).
func testReadsBesideDeletes(t *testing.T, open Opener) {
	h := newH(t, open)
	ns := kgmem.Namespace("conc/items")
	const writers, rounds, keys = 4, 60, 8
	item := func(k int) kgmem.Item { return Item(ns, fmt.Sprintf("k%d", k), `{"n":1}`, "concurrent item") }
	var ids []string
	for k := range keys {
		ids = append(ids, item(k).ID)
	}
	errs := make(chan error, writers*rounds*2+2)
	var writing sync.WaitGroup
	for w := range writers {
		writing.Go(func() {
			for i := range rounds {
				it := item((w + i) % keys)
				if err := h.s.Apply(h.ctx, kgmem.ChangeSet{Namespace: ns, Items: []kgmem.Item{it}}); err != nil {
					errs <- fmt.Errorf("put %s: %w", it.Key, err)
				}
				if err := h.s.DeleteItem(h.ctx, ns, it.ID); err != nil && !errors.Is(err, kgmem.ErrNotFound) {
					errs <- fmt.Errorf("delete %s: %w", it.Key, err)
				}
			}
		})
	}
	done := make(chan struct{})
	var reading sync.WaitGroup
	reading.Go(func() {
		for {
			select {
			case <-done:
				return
			default:
			}
			if _, err := h.s.ListItems(h.ctx, ns, kgmem.Page{Limit: keys}); err != nil {
				errs <- fmt.Errorf("ListItems beside deletes: %w", err)
			}
			if _, err := h.s.Items(h.ctx, ns, ids); err != nil {
				errs <- fmt.Errorf("Items beside deletes: %w", err)
			}
			if _, err := h.s.ItemNamespaces(h.ctx, "conc", time.Now()); err != nil {
				errs <- fmt.Errorf("ItemNamespaces beside deletes: %w", err)
			}
		}
	})
	writing.Wait()
	close(done)
	reading.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}
