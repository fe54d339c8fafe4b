package vectortest

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"testing"
	"time"

	"github.com/kgmem/kgmem"
)

// ctx returns a context bounded by a generous deadline for network backends.
func ctx(t *testing.T) context.Context {
	t.Helper()
	c, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	return c
}

// gen makes reproducible random unit-free vectors for one test.
type gen struct{ rng *rand.Rand }

func newGen(seed uint64) *gen { return &gen{rng: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))} }

// vec returns a random Gaussian vector of length dim.
func (g *gen) vec(dim int) []float32 {
	v := make([]float32, dim)
	for i := range v {
		v[i] = float32(g.rng.NormFloat64())
	}
	return v
}

// records makes n records of ns with ids prefix-0…prefix-(n-1), kinds cycling
// through kgmem.AllKinds.
func (g *gen) records(ns kgmem.Namespace, prefix string, n, dim int) []kgmem.VectorRecord {
	kinds := kgmem.AllKinds()
	out := make([]kgmem.VectorRecord, n)
	for i := range out {
		out[i] = kgmem.VectorRecord{
			ID:        fmt.Sprintf("%s-%d", prefix, i),
			Namespace: ns,
			Kind:      kinds[i%len(kinds)],
			Vector:    g.vec(dim),
			CreatedAt: time.Date(2026, 1, 1, 0, 0, i, 0, time.UTC),
		}
	}
	return out
}

// upsert writes recs in batches of 500 and fails the test on error.
func upsert(t *testing.T, ctx context.Context, idx kgmem.VectorIndex, recs []kgmem.VectorRecord) {
	t.Helper()
	for batch := range slices.Chunk(recs, 500) {
		if err := idx.Upsert(ctx, batch); err != nil {
			t.Fatalf("Upsert(%d records): %v", len(batch), err)
		}
	}
}

// search runs q and fails the test on error or on a malformed result.
func search(t *testing.T, ctx context.Context, idx kgmem.VectorIndex, q kgmem.VectorQuery) []kgmem.Hit {
	t.Helper()
	hits, err := idx.Search(ctx, q)
	if err != nil {
		t.Fatalf("Search(ns=%s k=%d kinds=%v): %v", q.Namespace, q.K, q.Kinds, err)
	}
	checkHits(t, hits)
	return hits
}

// checkHits asserts the invariants of every result: finite scores within
// [-1, 1], best first, no duplicate ids, valid kinds.
func checkHits(t *testing.T, hits []kgmem.Hit) {
	t.Helper()
	seen := map[string]bool{}
	for i, h := range hits {
		if math.IsNaN(h.Score) || math.IsInf(h.Score, 0) {
			t.Fatalf("hit %d (%s) has non-finite score %v", i, h.ID, h.Score)
		}
		if h.Score < -1-scoreTolerance || h.Score > 1+scoreTolerance {
			t.Errorf("hit %d (%s) score %v outside [-1, 1]", i, h.ID, h.Score)
		}
		if i > 0 && h.Score > hits[i-1].Score+1e-6 {
			t.Errorf("hits not best first: hit %d score %v > hit %d score %v", i, h.Score, i-1, hits[i-1].Score)
		}
		if seen[h.ID] {
			t.Errorf("id %s returned twice", h.ID)
		}
		seen[h.ID] = true
		if !h.Kind.Valid() {
			t.Errorf("hit %d (%s) has invalid kind %q", i, h.ID, h.Kind)
		}
	}
}

// count returns idx.Count and fails the test on error.
func count(t *testing.T, ctx context.Context, idx kgmem.VectorIndex, ns kgmem.Namespace, k kgmem.Kind) int {
	t.Helper()
	n, err := idx.Count(ctx, ns, k)
	if err != nil {
		t.Fatalf("Count(%s, %q): %v", ns, k, err)
	}
	return n
}

// ids lists the ids of hits.
func ids(hits []kgmem.Hit) []string {
	out := make([]string, len(hits))
	for i, h := range hits {
		out[i] = h.ID
	}
	return out
}

// cosine is the reference similarity; zero vectors score 0.
func cosine(a, b []float32) float64 {
	var dot, na, nb float64
	for i := range a {
		dot += float64(a[i]) * float64(b[i])
		na += float64(a[i]) * float64(a[i])
		nb += float64(b[i]) * float64(b[i])
	}
	if na == 0 || nb == 0 {
		return 0
	}
	return dot / math.Sqrt(na*nb)
}

// bruteForce returns the ids of the k records nearest to q by cosine.
func bruteForce(recs []kgmem.VectorRecord, q []float32, k int) []string {
	type scored struct {
		id string
		s  float64
	}
	all := make([]scored, len(recs))
	for i, r := range recs {
		all[i] = scored{r.ID, cosine(q, r.Vector)}
	}
	sort.Slice(all, func(i, j int) bool { return all[i].s > all[j].s })
	out := make([]string, 0, k)
	for _, s := range all[:min(k, len(all))] {
		out = append(out, s.id)
	}
	return out
}

// wantErr asserts err wraps target.
func wantErr(t *testing.T, what string, err, target error) {
	t.Helper()
	if !errors.Is(err, target) {
		t.Errorf("%s: got error %v, want one wrapping %v", what, err, target)
	}
}
