package sqlite_test

import (
	"slices"
	"testing"
	"time"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/graph/graphtest"
	"github.com/kgmem/kgmem/graph/sqlite"
)

// TestTopologyFollowsEveryWrite pins the in-memory walk of FactsOnly to the
// file: after each kind of write, made through this store or another store
// on the same file (another process, in production), a walk through either
// store sees the graph as it is now, not as it was when first walked.
func TestTopologyFollowsEveryWrite(t *testing.T) {
	ctx := t.Context()
	a, b := openPair(t)
	const ns = kgmem.Namespace("topo/a")
	first := sample(t, a, ns, "tp") // ent_tp_a —programmed→ ent_tp_b
	walk := func(s *sqlite.Store) []string {
		t.Helper()
		g, err := s.Neighborhood(ctx, ns, kgmem.NeighborhoodQuery{Seeds: []string{"ent_tp_a"}, Depth: 2, FanOut: 10, FactsOnly: true})
		if err != nil {
			t.Fatalf("Neighborhood: %v", err)
		}
		ids := make([]string, len(g.Facts))
		for i, f := range g.Facts {
			ids[i] = f.ID
		}
		return ids
	}
	expect := func(step string, want ...string) {
		t.Helper()
		for name, s := range map[string]*sqlite.Store{"writer": a, "other": b} {
			if got := walk(s); !slices.Equal(got, want) {
				t.Errorf("after %s, walk through the %s store = %v, want %v", step, name, got, want)
			}
		}
	}
	expect("the first write", first.ID)

	c := graphtest.Entity(ns, "ent_tp_c", "Charles Babbage")
	added := graphtest.Fact(ns, "fact_tp_c", "ent_tp_b", "designed_by", c.ID, "The Analytical Engine was designed by Babbage.")
	if err := b.Apply(ctx, kgmem.ChangeSet{Namespace: ns, Entities: []kgmem.Entity{c}, Facts: []kgmem.Fact{added}}); err != nil {
		t.Fatal(err)
	}
	expect("Apply through the other store", first.ID, added.ID)

	added.ExpiredAt = time.Now().UTC().Truncate(time.Millisecond)
	if err := a.Apply(ctx, kgmem.ChangeSet{Namespace: ns, Facts: []kgmem.Fact{added}}); err != nil {
		t.Fatal(err)
	}
	g, err := b.Neighborhood(ctx, ns, kgmem.NeighborhoodQuery{Seeds: []string{"ent_tp_a"}, Depth: 2, FanOut: 10, FactsOnly: true, IncludeExpired: false})
	if err != nil || len(g.Facts) != 1 || g.Facts[0].ID != first.ID {
		t.Errorf("after expiring %s, the current walk = %+v, %v; want only %s", added.ID, g.Facts, err, first.ID)
	}

	if err := a.DeleteFact(ctx, ns, first.ID); err != nil {
		t.Fatal(err)
	}
	expect("DeleteFact", []string{}...)

	if _, err := b.PurgeNamespace(ctx, ns); err != nil {
		t.Fatal(err)
	}
	expect("PurgeNamespace", []string{}...)
	again := sample(t, a, ns, "tp")
	expect("re-creating the purged namespace", again.ID)
}
