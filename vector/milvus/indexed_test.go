package milvus_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/milvus-io/milvus-sdk-go/v2/entity"

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

// TestSettleWaitsOutACompaction starts a compaction of a flushed, indexed
// segment that holds deletes, as Milvus does by itself after a bulk load,
// and checks that Settle sees the segments change, returns only after the
// compaction completed, with search and count answering, and
// that a context shorter than the quiet period ends it with the context's
// error. Settle cannot see a compaction that has not changed the segments
// yet, so quiet must outlast one: 20 s is over twice what this one takes
// here (the test logs when Settle returned).
func TestSettleWaitsOutACompaction(t *testing.T) {
	const dim, n, quiet = 16, 2000, 20 * time.Second
	ix := openFresh(t, milvus.Config{Dim: dim})
	c, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	rng := rand.New(rand.NewPCG(3, 33))
	vec := gaussian(rng, dim)
	recs := make([]kgmem.VectorRecord, n)
	for i := range recs {
		recs[i] = kgmem.VectorRecord{ID: fmt.Sprintf("s-%d", i), Namespace: "settle/a", Kind: kgmem.KindFact, Vector: vec()}
	}
	if err := ix.Upsert(c, recs); err != nil {
		t.Fatal(err)
	}
	if err := ix.Flush(c); err != nil {
		t.Fatalf("Flush: %v", err)
	}
	deleted := make([]string, 0, n/4)
	for _, r := range recs[:n/4] {
		deleted = append(deleted, r.ID)
	}
	if err := ix.Delete(c, "settle/a", deleted); err != nil {
		t.Fatal(err)
	}
	if err := ix.Flush(c); err != nil {
		t.Fatalf("Flush after deletes: %v", err)
	}

	short, cancelShort := context.WithTimeout(c, time.Second)
	_, err := ix.Settle(short, quiet)
	cancelShort()
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Settle with a context shorter than quiet: %v, want context.DeadlineExceeded", err)
	}

	cl := rawClient(t, c)
	t0 := time.Now()
	id, err := cl.ManualCompaction(c, ix.Collection(), 0)
	if err != nil {
		t.Fatal(err)
	}
	st, err := ix.Settle(c, quiet)
	if err != nil {
		t.Fatalf("Settle: %v", err)
	}
	t.Logf("settled %s after the compaction request, waiting %s, after %d segment changes", time.Since(t0), st.Waited, st.Changes)
	if st.Changes < 1 || st.Waited < quiet {
		t.Errorf("Settle = %+v, want at least one segment change (the compaction) and a wait of at least %s", st, quiet)
	}
	state, err := cl.GetCompactionState(c, id)
	if err != nil || state != entity.CompactionStateCompleted {
		t.Errorf("compaction state after Settle: %v, %v; want completed", state, err)
	}
	if got, err := ix.Count(c, "settle/a", ""); err != nil || got != n-n/4 {
		t.Errorf("Count after Settle = %d, %v; want %d", got, err, n-n/4)
	}
	live := recs[n/4]
	hits, err := ix.Search(c, kgmem.VectorQuery{Namespace: "settle/a", Vector: live.Vector, K: 1})
	if err != nil || len(hits) != 1 || hits[0].ID != live.ID {
		t.Errorf("search after Settle: %+v, %v; want %s", hits, err, live.ID)
	}
}
