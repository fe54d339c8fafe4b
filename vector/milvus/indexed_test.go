package milvus_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/vector/milvus"
)

// TestSearchOnBuiltIndex repeats the core search checks after Flush, when
// Milvus answers from sealed segments through the HNSW index instead of
// scanning growing segments (what the conformance suite mostly exercises).
func TestSearchOnBuiltIndex(t *testing.T) {
	const dim, n, k = 32, 3000, 10
	ix := openFresh(t, milvus.Config{Dim: dim})
	c, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	rng := rand.New(rand.NewPCG(7, 77))
	vec := gaussian(rng, dim)
	nss := []kgmem.Namespace{"idx/a", "idx/b", "idx/c"}
	recs := make([]kgmem.VectorRecord, n)
	for i := range recs {
		recs[i] = kgmem.VectorRecord{ID: fmt.Sprintf("v-%d", i), Namespace: nss[i%3], Kind: kgmem.AllKinds()[i%3], Vector: vec()}
	}
	if err := ix.Upsert(c, recs); err != nil {
		t.Fatal(err)
	}
	if err := ix.Flush(c); err != nil {
		t.Fatalf("Flush: %v", err)
	}
	var pool []kgmem.VectorRecord
	for _, r := range recs {
		if r.Namespace == nss[1] {
			pool = append(pool, r)
		}
	}
	// Exact matches come first with their cosine score.
	for _, r := range pool[:20] {
		hits, err := ix.Search(c, kgmem.VectorQuery{Namespace: nss[1], Vector: r.Vector, K: 3})
		if err != nil {
			t.Fatal(err)
		}
		if len(hits) != 3 || hits[0].ID != r.ID || math.Abs(hits[0].Score-1) > 1e-3 {
			t.Fatalf("query %s: got %+v, want it first with score ~1", r.ID, hits)
		}
		for _, h := range hits {
			if !slices.ContainsFunc(pool, func(p kgmem.VectorRecord) bool { return p.ID == h.ID }) {
				t.Fatalf("hit %s is not in %s", h.ID, nss[1])
			}
		}
	}
	// Recall@10 against exact search in the namespace.
	found, queries := 0, 50
	for range queries {
		q := vec()
		want := exactTopK(pool, q, k)
		hits, err := ix.Search(c, kgmem.VectorQuery{Namespace: nss[1], Vector: q, K: k})
		if err != nil {
			t.Fatal(err)
		}
		for _, h := range hits {
			if slices.Contains(want, h.ID) {
				found++
			}
		}
	}
	recall := float64(found) / float64(queries*k)
	t.Logf("recall@%d on the built index: %.3f", k, recall)
	if recall < 0.9 {
		t.Errorf("recall@%d on the built index = %.3f, want >= 0.9", k, recall)
	}
	// Deletes reach sealed, indexed segments too.
	if err := ix.Delete(c, nss[1], []string{pool[0].ID}); err != nil {
		t.Fatal(err)
	}
	hits, err := ix.Search(c, kgmem.VectorQuery{Namespace: nss[1], Vector: pool[0].Vector, K: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) == 1 && hits[0].ID == pool[0].ID {
		t.Errorf("deleted %s still found on the built index", pool[0].ID)
	}
	if got, err := ix.Count(c, nss[1], ""); err != nil || got != len(pool)-1 {
		t.Errorf("Count = %d, %v; want %d", got, err, len(pool)-1)
	}
}
