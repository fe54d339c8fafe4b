// Package graphtest is the conformance suite of kgmem.GraphStore. Every backend
// (graph/sqlite, graph/neo4j) runs it unchanged from its own tests:
//
//	func TestConformance(t *testing.T) {
//		graphtest.Run(t, func(t *testing.T) kgmem.GraphStore {
//			s, err := sqlite.Open(t.Context(), filepath.Join(t.TempDir(), "g.db"))
//			if err != nil {
//				t.Fatal(err)
//			}
//			t.Cleanup(func() { _ = s.Close() })
//			return s
//		})
//	}
//
// The suite talks to the store only through the interface. Where the contract
// leaves an order open it sorts before comparing, and it never asserts BM25 score
// values, only that clearly better matches rank first, so that backends with
// different scoring stay interchangeable.
package graphtest

import (
	"context"
	"testing"

	"github.com/kgmem/kgmem"
)

// Opener returns a fresh, empty store for one subtest and registers its cleanup
// with t.Cleanup.
type Opener func(t *testing.T) kgmem.GraphStore

// Run runs the whole conformance suite against the stores open returns. Each
// subtest calls open once (or more, when it needs several stores) and uses
// its own namespaces, so subtests never see each other's records.
func Run(t *testing.T, open func(t *testing.T) kgmem.GraphStore) {
	t.Helper()
	groups := []struct {
		name string
		run  func(t *testing.T, open Opener)
	}{
		{"Apply", testApply},
		{"Read", testRead},
		{"Search", testSearch},
		{"Neighborhood", testNeighborhood},
		{"ThreadNeighbors", testThreadNeighbors},
		{"Admin", testAdmin},
		{"Items", testItems},
		{"Isolation", testIsolation},
		{"Concurrency", testConcurrency},
	}
	for _, g := range groups {
		t.Run(g.name, func(t *testing.T) { g.run(t, open) })
	}
}

// h bundles what one subtest needs: the store, a context and the test.
type h struct {
	t   *testing.T
	s   kgmem.GraphStore
	ctx context.Context
}

// newH opens a fresh store for t.
func newH(t *testing.T, open Opener) *h {
	t.Helper()
	return &h{t: t, s: open(t), ctx: t.Context()}
}

// apply applies cs and fails the test on error.
func (h *h) apply(cs kgmem.ChangeSet) {
	h.t.Helper()
	if err := h.s.Apply(h.ctx, cs); err != nil {
		h.t.Fatalf("Apply(%s): %v", cs.Namespace, err)
	}
}

// entity reads one entity and fails the test on error.
func (h *h) entity(ns kgmem.Namespace, id string) kgmem.Entity {
	h.t.Helper()
	e, err := h.s.Entity(h.ctx, ns, id)
	if err != nil {
		h.t.Fatalf("Entity(%s, %s): %v", ns, id, err)
	}
	return e
}

// fact reads one fact and fails the test on error.
func (h *h) fact(ns kgmem.Namespace, id string) kgmem.Fact {
	h.t.Helper()
	f, err := h.s.Fact(h.ctx, ns, id)
	if err != nil {
		h.t.Fatalf("Fact(%s, %s): %v", ns, id, err)
	}
	return f
}

// episodes reads episodes by id and fails the test on error.
func (h *h) episodes(ns kgmem.Namespace, ids ...string) []kgmem.Episode {
	h.t.Helper()
	eps, err := h.s.Episodes(h.ctx, ns, ids)
	if err != nil {
		h.t.Fatalf("Episodes(%s, %v): %v", ns, ids, err)
	}
	return eps
}

// findEntities runs FindEntities and returns the ids, failing on error.
func (h *h) findEntities(ns kgmem.Namespace, f kgmem.EntityFilter) []string {
	h.t.Helper()
	es, err := h.s.FindEntities(h.ctx, ns, f)
	if err != nil {
		h.t.Fatalf("FindEntities(%s, %+v): %v", ns, f, err)
	}
	return entityIDs(es)
}

// listFacts runs ListFacts and returns the ids, failing on error.
func (h *h) listFacts(ns kgmem.Namespace, f kgmem.FactFilter) []string {
	h.t.Helper()
	fs, err := h.s.ListFacts(h.ctx, ns, f)
	if err != nil {
		h.t.Fatalf("ListFacts(%s, %+v): %v", ns, f, err)
	}
	return factIDs(fs)
}

// search runs SearchText and fails the test on error.
// listFactRecords lists the facts of ns matching f.
func (h *h) listFactRecords(ns kgmem.Namespace, f kgmem.FactFilter) []kgmem.Fact {
	h.t.Helper()
	fs, err := h.s.ListFacts(h.ctx, ns, f)
	if err != nil {
		h.t.Fatalf("ListFacts(%s, %+v): %v", ns, f, err)
	}
	return fs
}

func (h *h) search(ns kgmem.Namespace, q kgmem.TextQuery) []kgmem.Hit {
	h.t.Helper()
	hits, err := h.s.SearchText(h.ctx, ns, q)
	if err != nil {
		h.t.Fatalf("SearchText(%s, %q): %v", ns, q.Text, err)
	}
	return hits
}

// neighborhood runs Neighborhood and fails the test on error.
func (h *h) neighborhood(ns kgmem.Namespace, q kgmem.NeighborhoodQuery) kgmem.Subgraph {
	h.t.Helper()
	g, err := h.s.Neighborhood(h.ctx, ns, q)
	if err != nil {
		h.t.Fatalf("Neighborhood(%s, %+v): %v", ns, q, err)
	}
	return g
}

// walkFacts runs WalkFacts and fails the test on error; it returns the facts
// visited (copied: the store may reuse the one it hands) and their visits.
func (h *h) walkFacts(ns kgmem.Namespace, q kgmem.NeighborhoodQuery) ([]kgmem.Fact, []kgmem.WalkedFact) {
	h.t.Helper()
	var facts []kgmem.Fact
	var visits []kgmem.WalkedFact
	err := h.s.WalkFacts(h.ctx, ns, q, func(w kgmem.WalkedFact) {
		facts, visits = append(facts, *w.Fact), append(visits, w)
	})
	if err != nil {
		h.t.Fatalf("WalkFacts(%s, %+v): %v", ns, q, err)
	}
	return facts, visits
}

// namespaces lists the namespaces and fails the test on error.
func (h *h) namespaces() []kgmem.Namespace {
	h.t.Helper()
	nss, err := h.s.Namespaces(h.ctx)
	if err != nil {
		h.t.Fatalf("Namespaces: %v", err)
	}
	return nss
}
