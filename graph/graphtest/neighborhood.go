package graphtest

import (
	"fmt"
	"maps"
	"reflect"
	"slices"
	"testing"

	"github.com/kgmem/kgmem"
)

// testNeighborhood covers bounded traversal: depth, fan-out caps on hubs,
// distances, expired facts, and missing seeds.
func testNeighborhood(t *testing.T, open Opener) {
	h := newH(t, open)
	ns := kgmem.Namespace("graph/hood")
	// Chain A-B-C-D (B-C stored backwards: traversal ignores direction), an
	// expired fact A-X, and a hub H with 50 leaves, linked half from and half
	// to the hub.
	a, b, c, d, x := Entity(ns, "ent_nb_a", "A"), Entity(ns, "ent_nb_b", "B"), Entity(ns, "ent_nb_c", "C"), Entity(ns, "ent_nb_d", "D"), Entity(ns, "ent_nb_x", "X")
	ab := Fact(ns, "fact_nb_ab", a.ID, "knows", b.ID, "A knows B.")
	cb := Fact(ns, "fact_nb_cb", c.ID, "knows", b.ID, "C knows B.")
	cd := Fact(ns, "fact_nb_cd", c.ID, "knows", d.ID, "C knows D.")
	ax := Fact(ns, "fact_nb_ax", a.ID, "knew", x.ID, "A knew X.")
	ax.InvalidAt, ax.ExpiredAt = at(1), at(1)
	hub := Entity(ns, "ent_nb_hub", "Hub")
	cs := kgmem.ChangeSet{Namespace: ns, Entities: []kgmem.Entity{a, b, c, d, x, hub}, Facts: []kgmem.Fact{ab, cb, cd, ax}}
	for i := range 50 {
		leaf := Entity(ns, fmt.Sprintf("ent_nb_leaf%02d", i), fmt.Sprintf("Leaf %d", i))
		cs.Entities = append(cs.Entities, leaf)
		f := Fact(ns, fmt.Sprintf("fact_nb_hub%02d", i), hub.ID, "has", leaf.ID, fmt.Sprintf("Hub has leaf %d.", i))
		if i%2 == 1 { // half the hub's facts point at it
			f.SubjectID, f.Predicate, f.ObjectID = leaf.ID, "belongs_to", hub.ID
		}
		cs.Facts = append(cs.Facts, f)
	}
	h.apply(cs)

	tests := []struct {
		name      string
		q         kgmem.NeighborhoodQuery
		wantFacts []string
		wantDist  map[string]int
	}{
		{"Depth1", kgmem.NeighborhoodQuery{Seeds: []string{a.ID}, Depth: 1, FanOut: 10},
			[]string{ab.ID}, map[string]int{a.ID: 0, b.ID: 1}},
		{"Depth2", kgmem.NeighborhoodQuery{Seeds: []string{a.ID}, Depth: 2, FanOut: 10},
			[]string{ab.ID, cb.ID}, map[string]int{a.ID: 0, b.ID: 1, c.ID: 2}},
		{"Depth3", kgmem.NeighborhoodQuery{Seeds: []string{a.ID}, Depth: 3, FanOut: 10},
			[]string{ab.ID, cb.ID, cd.ID}, map[string]int{a.ID: 0, b.ID: 1, c.ID: 2, d.ID: 3}},
		{"MiddleSeed", kgmem.NeighborhoodQuery{Seeds: []string{b.ID}, Depth: 1, FanOut: 10},
			[]string{ab.ID, cb.ID}, map[string]int{a.ID: 1, b.ID: 0, c.ID: 1}},
		{"TwoSeedsNearestWins", kgmem.NeighborhoodQuery{Seeds: []string{a.ID, d.ID}, Depth: 2, FanOut: 10},
			[]string{ab.ID, cb.ID, cd.ID}, map[string]int{a.ID: 0, b.ID: 1, c.ID: 1, d.ID: 0}},
		{"IncludeExpired", kgmem.NeighborhoodQuery{Seeds: []string{a.ID}, Depth: 1, FanOut: 10, IncludeExpired: true},
			[]string{ab.ID, ax.ID}, map[string]int{a.ID: 0, b.ID: 1, x.ID: 1}},
		{"MissingSeedIgnored", kgmem.NeighborhoodQuery{Seeds: []string{"ent_nb_missing", a.ID}, Depth: 1, FanOut: 10},
			[]string{ab.ID}, map[string]int{a.ID: 0, b.ID: 1}},
		{"OnlyMissingSeeds", kgmem.NeighborhoodQuery{Seeds: []string{"ent_nb_missing"}, Depth: 2, FanOut: 10}, nil, map[string]int{}},
		{"NoSeeds", kgmem.NeighborhoodQuery{Depth: 2, FanOut: 10}, nil, map[string]int{}},
		{"IsolatedSeed", kgmem.NeighborhoodQuery{Seeds: []string{x.ID}, Depth: 2, FanOut: 10}, nil, map[string]int{x.ID: 0}},
		{"DefaultsDepth1", kgmem.NeighborhoodQuery{Seeds: []string{a.ID}},
			[]string{ab.ID}, map[string]int{a.ID: 0, b.ID: 1}},
		// Every entity of a level gets its own fan-out (ties by fact id).
		{"FanOutPerSeed", kgmem.NeighborhoodQuery{Seeds: []string{hub.ID, a.ID}, Depth: 1, FanOut: 2},
			[]string{"fact_nb_hub00", "fact_nb_hub01", ab.ID},
			map[string]int{hub.ID: 0, a.ID: 0, "ent_nb_leaf00": 1, "ent_nb_leaf01": 1, b.ID: 1}},
		{"FanOutPerFrontierEntity", kgmem.NeighborhoodQuery{Seeds: []string{a.ID, d.ID}, Depth: 2, FanOut: 1},
			[]string{ab.ID, cd.ID, cb.ID}, map[string]int{a.ID: 0, d.ID: 0, b.ID: 1, c.ID: 1}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g := h.neighborhood(ns, tc.q)
			checkSubgraph(t, g)
			sameSet(t, "facts", factIDs(g.Facts), tc.wantFacts)
			if !maps.Equal(g.Distance, tc.wantDist) && (len(g.Distance) != 0 || len(tc.wantDist) != 0) {
				t.Fatalf("Distance = %v, want %v", g.Distance, tc.wantDist)
			}
			// WalkFacts visits the same facts in id order, each with its
			// ends' distances.
			facts, visits := h.walkFacts(ns, tc.q)
			if ids := factIDs(facts); !slices.Equal(ids, slices.Sorted(slices.Values(tc.wantFacts))) {
				t.Errorf("WalkFacts visited %v, want %v in id order", ids, tc.wantFacts)
			}
			for i, w := range visits {
				if f := facts[i]; w.SubjectDistance != tc.wantDist[f.SubjectID] || w.ObjectDistance != tc.wantDist[f.ObjectID] {
					t.Errorf("WalkFacts visited %s at distances %d, %d, want %d, %d", f.ID, w.SubjectDistance, w.ObjectDistance,
						tc.wantDist[f.SubjectID], tc.wantDist[f.ObjectID])
				}
			}
		})
	}
	t.Run("FanOutCapsHub", func(t *testing.T) {
		for _, fanOut := range []int{1, 10, 49} {
			g := h.neighborhood(ns, kgmem.NeighborhoodQuery{Seeds: []string{hub.ID}, Depth: 2, FanOut: fanOut})
			checkSubgraph(t, g)
			if len(g.Facts) != fanOut || len(g.Entities) != fanOut+1 {
				t.Errorf("FanOut %d: got %d facts and %d entities, want %d and %d", fanOut, len(g.Facts), len(g.Entities), fanOut, fanOut+1)
			}
		}
		g := h.neighborhood(ns, kgmem.NeighborhoodQuery{Seeds: []string{hub.ID}, Depth: 1}) // FanOut 0 means 50
		if len(g.Facts) != 50 {
			t.Errorf("default FanOut: got %d facts, want 50", len(g.Facts))
		}
		g = h.neighborhood(ns, kgmem.NeighborhoodQuery{Seeds: []string{hub.ID}, Depth: 1, FanOut: 100})
		if len(g.Facts) != 50 || len(g.Entities) != 51 {
			t.Errorf("FanOut 100: got %d facts and %d entities, want 50 and 51", len(g.Facts), len(g.Entities))
		}
	})
	t.Run("FactsOnly", func(t *testing.T) {
		q := kgmem.NeighborhoodQuery{Seeds: []string{a.ID, d.ID}, Depth: 2, FanOut: 10, IncludeExpired: true}
		full := h.neighborhood(ns, q)
		q.FactsOnly = true
		lean := h.neighborhood(ns, q)
		if len(lean.Entities) != 0 {
			t.Errorf("FactsOnly returned %d entities, want none", len(lean.Entities))
		}
		sameSet(t, "facts", factIDs(lean.Facts), factIDs(full.Facts))
		byID := map[string]kgmem.Fact{}
		for _, f := range full.Facts {
			byID[f.ID] = f
		}
		for _, l := range lean.Facts { // the graph fields FactsOnly keeps
			f := byID[l.ID]
			if l.Namespace != f.Namespace || l.SubjectID != f.SubjectID || l.ObjectID != f.ObjectID || l.Predicate != f.Predicate ||
				l.Confidence != f.Confidence || l.Importance != f.Importance || !l.ValidAt.Equal(f.ValidAt) ||
				!l.InvalidAt.Equal(f.InvalidAt) || !l.CreatedAt.Equal(f.CreatedAt) || !l.ExpiredAt.Equal(f.ExpiredAt) {
				t.Errorf("FactsOnly fact %+v, full %+v", l, f)
			}
		}
		if !maps.Equal(lean.Distance, full.Distance) || len(lean.Distance) == 0 {
			t.Errorf("FactsOnly Distance = %v, want %v", lean.Distance, full.Distance)
		}
		q.Seeds = []string{"ent_nb_missing"}
		if g := h.neighborhood(ns, q); len(g.Facts) != 0 || len(g.Distance) != 0 {
			t.Errorf("FactsOnly from a missing seed = %+v, want nothing", g)
		}
	})
	t.Run("FactsOnlyMatchesFullWalk", func(t *testing.T) { testFactsOnlyOrder(t, h) })
	t.Run("LeafReachesHubButNotSiblingsAtDepth1", func(t *testing.T) {
		g := h.neighborhood(ns, kgmem.NeighborhoodQuery{Seeds: []string{"ent_nb_leaf07"}, Depth: 1, FanOut: 5})
		checkSubgraph(t, g)
		sameSet(t, "facts", factIDs(g.Facts), []string{"fact_nb_hub07"})
	})
	t.Run("RecordsComplete", func(t *testing.T) {
		g := h.neighborhood(ns, kgmem.NeighborhoodQuery{Seeds: []string{a.ID}, Depth: 1, FanOut: 10})
		for _, e := range g.Entities {
			if e.ID == b.ID {
				checkEntity(t, e, b)
			}
		}
		for _, f := range g.Facts {
			checkFact(t, f, ab, a.Name, b.Name)
		}
	})
}

// testFactsOnlyOrder checks that a FactsOnly walk (which stores may answer
// from an in-memory topology) returns the facts the full walk returns, in
// the same order, with the same graph fields and distances, on a hub whose
// facts differ in importance, direction, confidence and expiry (what the
// fan-out cuts by) and that has a fact from itself to itself.
func testFactsOnlyOrder(t *testing.T, h *h) {
	ns := kgmem.Namespace("graph/hood-order")
	hub := Entity(ns, "ent_ho_hub", "Hub")
	cs := kgmem.ChangeSet{Namespace: ns, Entities: []kgmem.Entity{hub}}
	for i := range 30 {
		leaf := Entity(ns, fmt.Sprintf("ent_ho_leaf%02d", i), fmt.Sprintf("Leaf %d", i))
		f := Fact(ns, fmt.Sprintf("fact_ho_%02d", i), hub.ID, "links", leaf.ID, "Hub links a leaf.")
		f.Importance = i % 4
		f.Confidence = 0.5 + float64(i)/100
		if i%3 == 0 {
			f.SubjectID, f.ObjectID = leaf.ID, hub.ID
		}
		if i%5 == 0 {
			f.InvalidAt, f.ExpiredAt = at(1), at(2)
		}
		cs.Entities = append(cs.Entities, leaf)
		cs.Facts = append(cs.Facts, f)
	}
	self := Fact(ns, "fact_ho_self", hub.ID, "mirrors", hub.ID, "Hub mirrors itself.")
	self.Importance = 9
	cs.Facts = append(cs.Facts, self)
	h.apply(cs)
	tests := []struct {
		name string
		q    kgmem.NeighborhoodQuery
	}{
		{"hub, depth 1", kgmem.NeighborhoodQuery{Seeds: []string{hub.ID}, Depth: 1, FanOut: 7}},
		{"hub, depth 2 with expired facts", kgmem.NeighborhoodQuery{Seeds: []string{hub.ID}, Depth: 2, FanOut: 7, IncludeExpired: true}},
		{"two leaves and a missing seed", kgmem.NeighborhoodQuery{Seeds: []string{"ent_ho_leaf01", "ent_ho_leaf02", "ent_ho_missing"}, Depth: 2, FanOut: 3}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			full := h.neighborhood(ns, tc.q)
			q := tc.q
			q.FactsOnly = true
			lean := h.neighborhood(ns, q)
			if len(lean.Facts) != len(full.Facts) || len(full.Facts) == 0 {
				t.Fatalf("FactsOnly walk found %v, full walk %v", factIDs(lean.Facts), factIDs(full.Facts))
			}
			for i, f := range full.Facts {
				l := lean.Facts[i]
				if l.ID != f.ID || l.Namespace != f.Namespace || l.SubjectID != f.SubjectID || l.ObjectID != f.ObjectID ||
					l.Predicate != f.Predicate || l.Importance != f.Importance || l.Confidence != f.Confidence ||
					!l.ValidAt.Equal(f.ValidAt) || !l.InvalidAt.Equal(f.InvalidAt) || !l.CreatedAt.Equal(f.CreatedAt) ||
					!l.ExpiredAt.Equal(f.ExpiredAt) {
					t.Errorf("fact %d FactsOnly %+v, full %+v", i, l, f)
				}
			}
			if !maps.Equal(lean.Distance, full.Distance) {
				t.Errorf("FactsOnly Distance = %v, full %v", lean.Distance, full.Distance)
			}
			// WalkFacts hands the FactsOnly walk's facts, in its order.
			facts, visits := h.walkFacts(ns, tc.q)
			if !reflect.DeepEqual(facts, lean.Facts) {
				t.Errorf("WalkFacts visited %v, FactsOnly walk %v", factIDs(facts), factIDs(lean.Facts))
			}
			for i, w := range visits {
				if f := facts[i]; w.SubjectDistance != lean.Distance[f.SubjectID] || w.ObjectDistance != lean.Distance[f.ObjectID] {
					t.Errorf("WalkFacts visited %s at distances %d, %d, want %d, %d", f.ID, w.SubjectDistance, w.ObjectDistance,
						lean.Distance[f.SubjectID], lean.Distance[f.ObjectID])
				}
			}
		})
	}
	t.Run("WalkFactsRejectsBadQueries", func(t *testing.T) {
		for _, q := range []kgmem.NeighborhoodQuery{{Seeds: []string{hub.ID}, Depth: -1}, {Seeds: []string{hub.ID}, FanOut: -1}} {
			visited := 0
			err := h.s.WalkFacts(h.ctx, ns, q, func(kgmem.WalkedFact) { visited++ })
			wantErr(t, "WalkFacts", err, kgmem.ErrInvalid)
			if visited != 0 {
				t.Errorf("WalkFacts(%+v) visited %d facts before failing", q, visited)
			}
		}
		err := h.s.WalkFacts(h.ctx, "bad namespace!", kgmem.NeighborhoodQuery{Seeds: []string{hub.ID}}, func(kgmem.WalkedFact) {})
		wantErr(t, "WalkFacts", err, kgmem.ErrInvalid)
	})
}

// checkSubgraph checks the invariants of any traversal result: every entity
// has a distance, every distance an entity, every fact's ends are included and
// nothing is returned twice.
func checkSubgraph(t *testing.T, g kgmem.Subgraph) {
	t.Helper()
	ents := map[string]bool{}
	for _, e := range g.Entities {
		if ents[e.ID] {
			t.Errorf("entity %s returned twice", e.ID)
		}
		ents[e.ID] = true
		if _, ok := g.Distance[e.ID]; !ok {
			t.Errorf("entity %s has no distance", e.ID)
		}
	}
	if len(g.Distance) != len(ents) {
		t.Errorf("Distance has %d entries for %d entities: %v", len(g.Distance), len(ents), g.Distance)
	}
	facts := map[string]bool{}
	for _, f := range g.Facts {
		if facts[f.ID] {
			t.Errorf("fact %s returned twice", f.ID)
		}
		facts[f.ID] = true
		if !ents[f.SubjectID] || !ents[f.ObjectID] {
			t.Errorf("fact %s links %s and %s, not both among the entities", f.ID, f.SubjectID, f.ObjectID)
		}
	}
}
