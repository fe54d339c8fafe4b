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
	a, path := openTemp(t)
	b, err := sqlite.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = b.Close() })
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

// TestTopologyWalkMatchesSQL checks that the in-memory walk returns the
// facts the SQL walk returns, with the same graph fields, on a hub whose
// facts differ in importance and expiry (the order the fan-out cuts by).
func TestTopologyWalkMatchesSQL(t *testing.T) {
	ctx := t.Context()
	s, _ := openTemp(t)
	const ns = kgmem.Namespace("topo/hub")
	hub := graphtest.Entity(ns, "ent_hub", "Hub")
	cs := kgmem.ChangeSet{Namespace: ns, Entities: []kgmem.Entity{hub}}
	for i := range 30 {
		leaf := graphtest.Entity(ns, "ent_leaf"+string(rune('a'+i)), "Leaf "+string(rune('a'+i)))
		f := graphtest.Fact(ns, "fact_"+string(rune('a'+i)), hub.ID, "links", leaf.ID, "Hub links a leaf.")
		f.Importance = i % 4
		if i%3 == 0 {
			f.SubjectID, f.ObjectID = leaf.ID, hub.ID
		}
		if i%5 == 0 {
			f.ExpiredAt = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
		}
		cs.Entities = append(cs.Entities, leaf)
		cs.Facts = append(cs.Facts, f)
	}
	self := graphtest.Fact(ns, "fact_self", hub.ID, "mirrors", hub.ID, "Hub mirrors itself.")
	self.Importance = 9
	cs.Facts = append(cs.Facts, self)
	if err := s.Apply(ctx, cs); err != nil {
		t.Fatal(err)
	}
	for _, q := range []kgmem.NeighborhoodQuery{
		{Seeds: []string{hub.ID}, Depth: 1, FanOut: 7},
		{Seeds: []string{hub.ID}, Depth: 2, FanOut: 7, IncludeExpired: true},
		{Seeds: []string{"ent_leafb", "ent_leafc"}, Depth: 2, FanOut: 3},
	} {
		full, err := s.Neighborhood(ctx, ns, q)
		if err != nil {
			t.Fatal(err)
		}
		q.FactsOnly = true
		lean, err := s.Neighborhood(ctx, ns, q)
		if err != nil {
			t.Fatal(err)
		}
		if len(lean.Facts) != len(full.Facts) || len(full.Facts) == 0 {
			t.Fatalf("%+v: in-memory walk found %d facts, SQL walk %d", q, len(lean.Facts), len(full.Facts))
		}
		for i, f := range full.Facts {
			l := lean.Facts[i]
			if l.ID != f.ID || l.SubjectID != f.SubjectID || l.ObjectID != f.ObjectID || l.Predicate != f.Predicate ||
				l.Importance != f.Importance || l.Confidence != f.Confidence || !l.ExpiredAt.Equal(f.ExpiredAt) ||
				!l.ValidAt.Equal(f.ValidAt) || !l.CreatedAt.Equal(f.CreatedAt) {
				t.Errorf("%+v: fact %d in memory %+v, in SQL %+v", q, i, l, f)
			}
		}
	}
}
