package memory

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/graph/topology"
)

// TestBestIsTheHeadOfTheSort checks best against sorting everything, on
// random hits with tied scores (ids break the ties), for k below, at and
// above the number of hits.
func TestBestIsTheHeadOfTheSort(t *testing.T) {
	byScore := func(a, b kgmem.Hit) int { return cmp.Or(cmp.Compare(b.Score, a.Score), cmp.Compare(a.ID, b.ID)) }
	rng := rand.New(rand.NewPCG(3, 5))
	for round := range 500 {
		hits := make([]kgmem.Hit, rng.IntN(60))
		for i := range hits {
			hits[i] = kgmem.Hit{Kind: kgmem.KindFact, ID: fmt.Sprintf("f%04d", i), Score: float64(rng.IntN(8))}
		}
		rng.Shuffle(len(hits), func(i, j int) { hits[i], hits[j] = hits[j], hits[i] })
		k := rng.IntN(70)
		want := slices.SortedFunc(slices.Values(hits), byScore)
		want = want[:min(k, len(want))]
		if got := best(slices.Clone(hits), k, byScore); !slices.Equal(got, want) {
			t.Fatalf("round %d: best of %d with k %d = %v, want %v", round, len(hits), k, got, want)
		}
	}
}

func TestPredicateStems(t *testing.T) {
	stems := map[string]bool{"lead": true, "work": true}
	tests := []struct {
		predicate string
		want      bool
	}{
		{"leads", true},
		{"works_at", true},
		{"worked_for", true},
		{"lives_in", false},
		{"_", false},
		{"", false},
	}
	var p predicateStems
	for range 2 { // the second time from what it keeps
		for _, tt := range tests {
			if got := p.matches(tt.predicate, stems); got != tt.want {
				t.Errorf("matches(%q) = %v, want %v", tt.predicate, got, tt.want)
			}
		}
	}
	if got := p.held.Load(); got != int64(len(tests)) {
		t.Errorf("held %d predicates, want %d", got, len(tests))
	}
	// Past its bound it still answers, keeping nothing more.
	p.held.Store(maxPredicateStems)
	if !p.matches("led_by", map[string]bool{"led": true}) {
		t.Error(`matches("led_by") past the bound = false, want true`)
	}
	if _, kept := p.stems.Load("led_by"); kept {
		t.Error("a predicate was kept past the bound")
	}
}

// TestPathHitsMatchesScoringEveryPath checks pathHits against the scoring
// it replaced, which kept the best path score per (hop, entity) for both
// ends of every fact, on random walks of random graphs (half of them deep,
// with a small fan-out, where a fact's ends can lie more than one hop
// apart): through kgmem.VisitSubgraph and through the topology's own Visit.
func TestPathHitsMatchesScoringEveryPath(t *testing.T) {
	rng := rand.New(rand.NewPCG(23, 29))
	expired := time.Date(2025, 3, 1, 0, 0, 0, 0, time.UTC)
	matches := func(p string) bool { return p == "p0" || p == "p1" }
	answers := func(f *kgmem.Fact) bool { return f.ExpiredAt.IsZero() }
	for round := range 400 {
		entities := 2 + rng.IntN(15)
		var facts []kgmem.Fact
		for i := range rng.IntN(80) {
			f := kgmem.Fact{ID: fmt.Sprintf("f%03d", rng.IntN(1000)*100+i), SubjectID: fmt.Sprint("e", rng.IntN(entities)),
				Predicate: fmt.Sprint("p", rng.IntN(4)), ObjectID: fmt.Sprint("e", rng.IntN(entities)), Importance: rng.IntN(3),
				Confidence: float64(rng.IntN(5)) / 4}
			if rng.IntN(4) == 0 {
				f.ExpiredAt = expired
			}
			facts = append(facts, f)
		}
		topo := topology.New("ns", facts)
		var seeds []string
		for range 1 + rng.IntN(3) {
			seeds = append(seeds, fmt.Sprint("e", rng.IntN(entities)))
		}
		depth, fanOut, k := 1+rng.IntN(4), 1+rng.IntN(6), 1+rng.IntN(30)
		if round%2 == 0 {
			// Deep walks with a small fan-out: facts whose farther end the
			// walk placed two or more hops past the nearer one.
			depth, fanOut = 3+rng.IntN(2), 1+rng.IntN(2)
		}
		sub := topo.Walk(seeds, depth, fanOut, true)
		want := scoreEveryPath(sub, matches, answers, k)
		for name, walk := range map[string]func(func(kgmem.WalkedFact)) error{
			"VisitSubgraph": func(visit func(kgmem.WalkedFact)) error { kgmem.VisitSubgraph(sub, visit); return nil },
			"Visit":         func(visit func(kgmem.WalkedFact)) error { topo.Visit(seeds, depth, fanOut, true, visit); return nil },
		} {
			got, err := pathHits(walk, matches, answers, k)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, want) {
				t.Fatalf("round %d, %s (depth %d, fan-out %d, seeds %v): pathHits = %v\nwant %v", round, name, depth, fanOut, seeds, got, want)
			}
		}
	}
}

// scoreEveryPath is the graph retriever's scoring before pathHits, over a
// walk's subgraph: the reference pathHits is checked against.
func scoreEveryPath(sub kgmem.Subgraph, matches func(string) bool, answers func(*kgmem.Fact) bool, k int) []kgmem.Hit {
	distance := func(id string) int {
		if n, ok := sub.Distance[id]; ok {
			return n
		}
		return 1 << 20
	}
	type hopFact struct {
		f    int
		hop  int
		near string
	}
	facts := make([]hopFact, len(sub.Facts))
	for i := range sub.Facts {
		f := &sub.Facts[i]
		ds, do := distance(f.SubjectID), distance(f.ObjectID)
		near := f.SubjectID
		if do < ds {
			near = f.ObjectID
		}
		facts[i] = hopFact{f: i, hop: 1 + min(ds, do), near: near}
	}
	slices.SortFunc(facts, func(a, b hopFact) int { return cmp.Compare(a.hop, b.hop) })
	type hopEntity struct {
		hop    int
		entity string
	}
	bestAt := map[hopEntity]float64{}
	var hits []kgmem.Hit
	for _, hf := range facts {
		f := &sub.Facts[hf.f]
		best := bestAt[hopEntity{hf.hop - 1, hf.near}]
		if matches(f.Predicate) {
			best++
		}
		for _, end := range []string{f.SubjectID, f.ObjectID} {
			key := hopEntity{hf.hop, end}
			bestAt[key] = max(bestAt[key], best)
		}
		if answers(f) {
			hits = append(hits, kgmem.Hit{Kind: kgmem.KindFact, ID: f.ID, Score: confidenceOr1(f.Confidence) * (1 + best) / float64(hf.hop)})
		}
	}
	slices.SortFunc(hits, func(a, b kgmem.Hit) int { return cmp.Or(cmp.Compare(b.Score, a.Score), cmp.Compare(a.ID, b.ID)) })
	return hits[:min(k, len(hits))]
}

// TestPathHitsFarEndPlacedFurther pins the case the random walks rarely
// make: a fact whose ends the walk placed two hops apart. The seed s keeps
// its fact to x out of its fan-out, x is reached at distance 2 through a,
// and x's own expansion reaches that fact (hop 1, matching the query) and
// x–y (hop 3). The matching fact must not lend x its score: x's best is
// what the hop-2 fact a–x carried, none, so x–y scores 1/3.
func TestPathHitsFarEndPlacedFurther(t *testing.T) {
	fact := func(id, s, p, o string, importance int) kgmem.Fact {
		return kgmem.Fact{ID: id, SubjectID: s, Predicate: p, ObjectID: o, Importance: importance}
	}
	topo := topology.New("ns", []kgmem.Fact{
		fact("f1", "s", "other", "b1", 9), fact("f2", "s", "other", "b2", 9), fact("f3", "s", "other", "a", 5),
		fact("f4", "s", "leads", "x", 0), // the seed's fourth: past its fan-out of 3
		fact("f5", "a", "other", "x", 5),
		fact("f6", "x", "other", "y", 3),
	})
	sub := topo.Walk([]string{"s"}, 3, 3, true)
	if sub.Distance["x"] != 2 {
		t.Fatalf("x at distance %d, want 2: the walk no longer makes the case", sub.Distance["x"])
	}
	matches := func(p string) bool { return p == "leads" }
	answers := func(*kgmem.Fact) bool { return true }
	want := scoreEveryPath(sub, matches, answers, 10)
	got, err := pathHits(func(visit func(kgmem.WalkedFact)) error { topo.Visit([]string{"s"}, 3, 3, true, visit); return nil }, matches, answers, 10)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, want) {
		t.Fatalf("pathHits = %v\nwant %v", got, want)
	}
	for _, h := range got {
		if h.ID == "f6" && h.Score != 1.0/3 {
			t.Errorf("x–y scores %v, want 1/3", h.Score)
		}
	}
}
