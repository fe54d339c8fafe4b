package memory

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/kgmem/kgmem"
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
