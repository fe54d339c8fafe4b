package topology

import (
	"cmp"
	"context"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/kgmem/kgmem"
)

func TestExpandOrder(t *testing.T) {
	expired := time.Date(2025, 3, 1, 0, 0, 0, 0, time.UTC)
	fact := func(id, s, o string, importance int, exp time.Time) kgmem.Fact {
		return kgmem.Fact{ID: id, SubjectID: s, Predicate: "knows", ObjectID: o, Importance: importance, Confidence: 0.9, ExpiredAt: exp}
	}
	topo := New("ns", []kgmem.Fact{
		fact("f1", "hub", "a", 5, time.Time{}),
		fact("f2", "b", "hub", 9, time.Time{}),
		fact("f3", "hub", "c", 5, time.Time{}),
		fact("f4", "hub", "d", 7, expired),
		fact("f5", "hub", "hub", 1, time.Time{}), // self-loop: on both sides of hub
		fact("f6", "a", "c", 3, time.Time{}),
	})
	tests := []struct {
		name           string
		frontier       []string
		fanOut         int
		includeExpired bool
		want           []string
	}{
		{"most important first, then by id", []string{"hub"}, 10, false, []string{"f2", "f1", "f3", "f5"}},
		{"expired included on request", []string{"hub"}, 10, true, []string{"f2", "f4", "f1", "f3", "f5"}},
		{"fan-out caps per entity", []string{"hub"}, 2, false, []string{"f2", "f1"}},
		{"each frontier entity in turn", []string{"a", "c"}, 10, false, []string{"f1", "f6", "f3", "f6"}},
		{"unknown entity has no facts", []string{"nobody"}, 10, false, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, f := range topo.appendExpand(nil, tt.frontier, tt.fanOut, tt.includeExpired) {
				if f.Namespace != "ns" || f.Predicate != "knows" || f.Confidence != 0.9 {
					t.Errorf("fact %s lost its graph fields: %+v", f.ID, f)
				}
				got = append(got, f.ID)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("appendExpand(nil, %v, %d, %v) = %v, want %v", tt.frontier, tt.fanOut, tt.includeExpired, got, tt.want)
			}
		})
	}
	// It appends: what dst held stays first.
	held := []kgmem.Fact{{ID: "held"}}
	if got := topo.appendExpand(held, []string{"a"}, 10, false); len(got) != 3 || got[0].ID != "held" || got[1].ID != "f1" || got[2].ID != "f6" {
		t.Errorf("appendExpand after a held fact = %v, want held, f1, f6", got)
	}
	if topo.Len() != 6 {
		t.Errorf("Len() = %d, want 6", topo.Len())
	}
}

// TestExpandMatchesSortingBothSides checks the merge of an entity's two
// sides against sorting them together, on random graphs with self-loops,
// ties in importance and expired facts.
func TestExpandMatchesSortingBothSides(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	expired := time.Date(2025, 3, 1, 0, 0, 0, 0, time.UTC)
	for round := range 200 {
		var facts []kgmem.Fact
		for i := range 1 + rng.IntN(40) {
			f := kgmem.Fact{ID: fmt.Sprintf("f%03d", rng.IntN(1000)*100+i), SubjectID: fmt.Sprint("e", rng.IntN(6)),
				Predicate: "p", ObjectID: fmt.Sprint("e", rng.IntN(6)), Importance: rng.IntN(3)}
			if rng.IntN(4) == 0 {
				f.ExpiredAt = expired
			}
			facts = append(facts, f)
		}
		topo := New("ns", facts)
		fanOut, includeExpired := 1+rng.IntN(6), rng.IntN(2) == 0
		frontier := []string{"e0", "e1", "e2", "e3", "e4", "e5"}
		var want []string
		for _, ent := range frontier {
			first := func(touches func(kgmem.Fact) bool) []kgmem.Fact {
				var side []kgmem.Fact
				for _, f := range facts {
					if touches(f) && (includeExpired || f.ExpiredAt.IsZero()) {
						side = append(side, f)
					}
				}
				slices.SortFunc(side, byWalkOrder)
				return side[:min(fanOut, len(side))]
			}
			both := append(first(func(f kgmem.Fact) bool { return f.SubjectID == ent }), first(func(f kgmem.Fact) bool { return f.ObjectID == ent })...)
			slices.SortFunc(both, byWalkOrder)
			both = slices.CompactFunc(both, func(a, b kgmem.Fact) bool { return a.ID == b.ID })
			for _, f := range both[:min(fanOut, len(both))] {
				want = append(want, f.ID)
			}
		}
		var got []string
		for _, f := range topo.appendExpand(nil, frontier, fanOut, includeExpired) {
			got = append(got, f.ID)
		}
		if !slices.Equal(got, want) {
			t.Fatalf("round %d, fanOut %d, expired %v: Expand = %v, want %v", round, fanOut, includeExpired, got, want)
		}
	}
}

// TestWalkMatchesWalkNeighborhood checks the topology's own walk against
// kgmem.WalkNeighborhood over appendExpand, on random graphs: the same facts
// in the same order with the same fields, the same distances; and Visit
// against the same walk visited (kgmem.VisitSubgraph).
func TestWalkMatchesWalkNeighborhood(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 17))
	expired := time.Date(2025, 3, 1, 0, 0, 0, 0, time.UTC)
	for round := range 300 {
		entities := 2 + rng.IntN(12)
		var facts []kgmem.Fact
		for i := range rng.IntN(60) {
			f := kgmem.Fact{ID: fmt.Sprintf("f%03d", rng.IntN(1000)*100+i), SubjectID: fmt.Sprint("e", rng.IntN(entities)),
				Predicate: fmt.Sprint("p", rng.IntN(3)), ObjectID: fmt.Sprint("e", rng.IntN(entities)), Importance: rng.IntN(3),
				Confidence: float64(rng.IntN(10)) / 10, ValidAt: expired.AddDate(0, -rng.IntN(24), 0)}
			if rng.IntN(4) == 0 {
				f.ExpiredAt = expired
			}
			facts = append(facts, f)
		}
		topo := New("ns", facts)
		var seeds []string
		for range 1 + rng.IntN(3) {
			seeds = append(seeds, fmt.Sprint("e", rng.IntN(entities)))
		}
		q := kgmem.NeighborhoodQuery{Seeds: seeds, FactsOnly: true, IncludeExpired: rng.IntN(2) == 0}
		depth, fanOut := 1+rng.IntN(3), 1+rng.IntN(5)
		want, err := kgmem.WalkNeighborhood(t.Context(), q, depth, kgmem.NeighborhoodSteps{
			Entities: func(_ context.Context, ids []string) ([]kgmem.Entity, error) {
				out := make([]kgmem.Entity, len(ids))
				for i, id := range ids {
					out[i] = kgmem.Entity{ID: id}
				}
				return out, nil
			},
			Expand: func(_ context.Context, frontier []string, dst []kgmem.Fact) ([]kgmem.Fact, error) {
				return topo.appendExpand(dst, frontier, fanOut, q.IncludeExpired), nil
			},
		})
		if err != nil {
			t.Fatal(err)
		}
		got := topo.Walk(seeds, depth, fanOut, q.IncludeExpired)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("round %d (depth %d, fan-out %d, seeds %v):\n got %+v\nwant %+v", round, depth, fanOut, seeds, got, want)
		}
		// Visit hands the same facts in the same order, with their ends'
		// distances.
		var visited []kgmem.WalkedFact
		var visitedFacts []kgmem.Fact
		topo.Visit(seeds, depth, fanOut, q.IncludeExpired, func(w kgmem.WalkedFact) {
			visitedFacts = append(visitedFacts, *w.Fact)
			visited = append(visited, w)
		})
		var wantVisits []kgmem.WalkedFact
		kgmem.VisitSubgraph(want, func(w kgmem.WalkedFact) { wantVisits = append(wantVisits, w) })
		if len(visitedFacts) != len(want.Facts) || len(visitedFacts) > 0 && !reflect.DeepEqual(visitedFacts, want.Facts) {
			t.Fatalf("round %d: Visit's facts = %+v\nwant %+v", round, visitedFacts, want.Facts)
		}
		for i, w := range visited {
			if w.SubjectDistance != wantVisits[i].SubjectDistance || w.ObjectDistance != wantVisits[i].ObjectDistance {
				t.Fatalf("round %d: fact %s visited at distances %d, %d, want %d, %d", round, visitedFacts[i].ID,
					w.SubjectDistance, w.ObjectDistance, wantVisits[i].SubjectDistance, wantVisits[i].ObjectDistance)
			}
		}
	}
}

// appendExpand appends to dst the facts of expandEdges: the
// kgmem.NeighborhoodSteps.Expand the topology's walk is checked against.
func (t *Topology) appendExpand(dst []kgmem.Fact, frontier []string, fanOut int, includeExpired bool) []kgmem.Fact {
	var indexes []int32
	for _, id := range frontier {
		if i, ok := t.entityAt[id]; ok {
			indexes = append(indexes, i)
		}
	}
	for _, i := range t.expandEdges(nil, indexes, fanOut, includeExpired) {
		dst = append(dst, t.fact(int(i)))
	}
	return dst
}

// byWalkOrder orders facts most important first, then by id.
func byWalkOrder(a, b kgmem.Fact) int {
	return cmp.Or(cmp.Compare(b.Importance, a.Importance), cmp.Compare(a.ID, b.ID))
}

// TestInstantRoundTrips checks that the topology's compact times give back
// exactly the UTC times the stores read (== on time.Time: the same
// representation, not just the same instant).
func TestInstantRoundTrips(t *testing.T) {
	for _, in := range []time.Time{
		{},
		time.Unix(0, 0).UTC(),
		time.UnixMilli(1_741_944_413_589).UTC(),
		time.Date(1960, 5, 1, 12, 0, 0, 999_999_999, time.UTC),
		time.Date(1, 1, 1, 0, 0, 1, 0, time.UTC),
		time.Date(9999, 12, 31, 23, 59, 59, 1, time.UTC),
		time.Date(2025, 3, 14, 9, 26, 53, 0, time.FixedZone("CET", 3600)).UTC(),
	} {
		if got := instantOf(in).time(); got != in {
			t.Errorf("instantOf(%v).time() = %v (%#v), want %#v", in, got, got, in)
		}
	}
}
