package hnsw_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/vector/hnsw"
	"github.com/kgmem/kgmem/vector/vectortest"
)

// opener returns a vectortest opener of fresh indexes with opts.
func opener(opts hnsw.Options) func(t *testing.T, dim int) kgmem.VectorIndex {
	return func(t *testing.T, dim int) kgmem.VectorIndex {
		return open(t, filepath.Join(t.TempDir(), "vectors.db"), dim, opts)
	}
}

func open(t testing.TB, path string, dim int, opts hnsw.Options) *hnsw.Index {
	t.Helper()
	idx, err := hnsw.Open(context.Background(), path, dim, opts)
	if err != nil {
		t.Fatalf("Open(%s, %d): %v", path, dim, err)
	}
	t.Cleanup(func() { _ = idx.Close() })
	return idx
}

func TestConformance(t *testing.T) {
	tests := []struct {
		name string
		opts hnsw.Options
	}{
		{"defaults", hnsw.Options{}},
		// Every non-empty shard is a graph: the suite then exercises graph
		// search, tombstones and compaction rather than the exact scan.
		{"graph always", hnsw.Options{ExactBelow: 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { vectortest.Run(t, opener(tt.opts)) })
	}
}

func randVec(rng *rand.Rand, dim int) []float32 {
	v := make([]float32, dim)
	for i := range v {
		v[i] = float32(rng.NormFloat64())
	}
	return v
}

func TestReopenKeepsData(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "vectors.db")
	rng := rand.New(rand.NewPCG(1, 2))
	idx, err := hnsw.Open(ctx, path, 8, hnsw.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var recs []kgmem.VectorRecord
	for i := range 30 {
		recs = append(recs, kgmem.VectorRecord{ID: fmt.Sprintf("r%d", i), Namespace: "a", Kind: kgmem.AllKinds()[i%3], Vector: randVec(rng, 8)})
	}
	if err := idx.Upsert(ctx, recs); err != nil {
		t.Fatal(err)
	}
	if err := idx.Delete(ctx, "a", []string{"r0", "r1"}); err != nil {
		t.Fatal(err)
	}
	if err := idx.Close(); err != nil {
		t.Fatal(err)
	}

	idx = open(t, path, 8, hnsw.Options{})
	if n, err := idx.Count(ctx, "a", ""); err != nil || n != 28 {
		t.Fatalf("Count after reopen = %d, %v; want 28", n, err)
	}
	hits, err := idx.Search(ctx, kgmem.VectorQuery{Namespace: "a", Vector: recs[7].Vector, K: 1})
	if err != nil || len(hits) != 1 || hits[0].ID != "r7" || hits[0].Kind != recs[7].Kind {
		t.Fatalf("Search after reopen = %+v, %v; want r7 (%s)", hits, err, recs[7].Kind)
	}
	hits, err = idx.Search(ctx, kgmem.VectorQuery{Namespace: "a", Vector: recs[0].Vector, K: 30})
	if err != nil || len(hits) != 28 {
		t.Fatalf("Search after reopen: %d hits, %v; want 28", len(hits), err)
	}
	for _, h := range hits {
		if h.ID == "r0" || h.ID == "r1" {
			t.Errorf("deleted %s came back after reopen", h.ID)
		}
	}
}

func TestOpenChecksDimension(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "vectors.db")
	open(t, path, 8, hnsw.Options{}).Close()
	_, err := hnsw.Open(ctx, path, 16, hnsw.Options{})
	if !errors.Is(err, kgmem.ErrDimensionMismatch) {
		t.Fatalf("Open with dimension 16 of an 8-dimension file: %v, want ErrDimensionMismatch", err)
	}
	if msg := err.Error(); !strings.Contains(msg, "8") || !strings.Contains(msg, "16") {
		t.Errorf("error %q does not name both dimensions", msg)
	}
	for _, tt := range []struct {
		path string
		dim  int
	}{{path, 0}, {path, -1}, {"", 8}} {
		if _, err := hnsw.Open(ctx, tt.path, tt.dim, hnsw.Options{}); !errors.Is(err, kgmem.ErrInvalid) {
			t.Errorf("Open(%q, %d): %v, want ErrInvalid", tt.path, tt.dim, err)
		}
	}
}

// TestConcurrentUse runs writers and searchers together; run it with -race.
func TestConcurrentUse(t *testing.T) {
	ctx := context.Background()
	idx := open(t, filepath.Join(t.TempDir(), "vectors.db"), 16, hnsw.Options{ExactBelow: 50})
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(w), 9))
			ns := kgmem.Namespace(fmt.Sprintf("ns%d", w%2))
			for i := range 40 {
				rec := kgmem.VectorRecord{ID: fmt.Sprintf("w%d-%d", w, i), Namespace: ns, Kind: kgmem.KindFact, Vector: randVec(rng, 16)}
				if err := idx.Upsert(ctx, []kgmem.VectorRecord{rec}); err != nil {
					t.Error(err)
					return
				}
				hits, err := idx.Search(ctx, kgmem.VectorQuery{Namespace: ns, Vector: rec.Vector, K: 3})
				if err != nil || len(hits) == 0 || hits[0].ID != rec.ID {
					t.Errorf("search right after upsert of %s: %v, %v", rec.ID, hits, err)
					return
				}
				if i%5 == 0 {
					if err := idx.Delete(ctx, ns, []string{rec.ID}); err != nil {
						t.Error(err)
						return
					}
				}
			}
		}()
	}
	wg.Wait()
	total := 0
	for _, ns := range []kgmem.Namespace{"ns0", "ns1"} {
		n, err := idx.Count(ctx, ns, kgmem.KindFact)
		if err != nil {
			t.Fatal(err)
		}
		total += n
	}
	if want := 4 * (40 - 8); total != want {
		t.Errorf("Count after concurrent writes = %d, want %d", total, want)
	}
}

func TestEvictsLeastRecentlyUsed(t *testing.T) {
	ctx := context.Background()
	const dim, perNS = 8, 100
	// Room for about two namespaces of 100 vectors: (4·8 + 8·16 + 64) · 250.
	idx := open(t, filepath.Join(t.TempDir(), "vectors.db"), dim, hnsw.Options{MaxLoadedBytes: 224 * 250})
	rng := rand.New(rand.NewPCG(3, 4))
	recs := map[kgmem.Namespace][]kgmem.VectorRecord{}
	for i := range 5 {
		ns := kgmem.Namespace(fmt.Sprintf("ns%d", i))
		for j := range perNS {
			recs[ns] = append(recs[ns], kgmem.VectorRecord{ID: fmt.Sprintf("%s-%d", ns, j), Namespace: ns, Kind: kgmem.KindFact, Vector: randVec(rng, dim)})
		}
		if err := idx.Upsert(ctx, recs[ns]); err != nil {
			t.Fatal(err)
		}
	}
	for round := range 3 {
		for i := range 5 {
			ns := kgmem.Namespace(fmt.Sprintf("ns%d", i))
			want := recs[ns][(round*7+i)%perNS]
			hits, err := idx.Search(ctx, kgmem.VectorQuery{Namespace: ns, Vector: want.Vector, K: 1})
			if err != nil || len(hits) != 1 || hits[0].ID != want.ID {
				t.Fatalf("round %d, %s: got %v, %v; want %s", round, ns, hits, err, want.ID)
			}
			if n, v := idx.Loaded(); n > 2 || v > 2*perNS {
				t.Fatalf("after searching %s: %d namespaces, %d vectors loaded; want at most 2 and %d", ns, n, v, 2*perNS)
			}
		}
	}
	// A write to an unloaded namespace is seen when it loads again.
	extra := kgmem.VectorRecord{ID: "extra", Namespace: "ns0", Kind: kgmem.KindEntity, Vector: randVec(rng, dim)}
	if err := idx.Upsert(ctx, []kgmem.VectorRecord{extra}); err != nil {
		t.Fatal(err)
	}
	hits, err := idx.Search(ctx, kgmem.VectorQuery{Namespace: "ns0", Vector: extra.Vector, K: 1})
	if err != nil || len(hits) != 1 || hits[0].ID != "extra" {
		t.Fatalf("after reload: got %v, %v; want extra", hits, err)
	}
}

// TestLoadOutlivesGivingUp checks that a search that gives up while its
// namespace is read from the store leaves the read to finish: the next
// search finds the namespace loaded rather than reading it again under its
// own deadline (a large namespace then never loaded within the retriever
// deadline, and every search ran without vector recall).
func TestLoadOutlivesGivingUp(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "vectors.db")
	const dim, n = 16, 2000
	rng := rand.New(rand.NewPCG(1, 2))
	recs := make([]kgmem.VectorRecord, n)
	for i := range recs {
		recs[i] = kgmem.VectorRecord{Namespace: "big", Kind: kgmem.KindFact, ID: fmt.Sprintf("f%04d", i), Vector: randVec(rng, dim)}
	}
	seed := open(t, path, dim, hnsw.Options{})
	if err := seed.Upsert(ctx, recs); err != nil {
		t.Fatal(err)
	}
	if err := seed.Close(); err != nil {
		t.Fatal(err)
	}
	idx := open(t, path, dim, hnsw.Options{}) // reopened: nothing loaded
	gaveUp, cancel := context.WithCancel(ctx)
	cancel()
	_, err := idx.Search(gaveUp, kgmem.VectorQuery{Namespace: "big", Vector: recs[0].Vector, K: 1})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("search with a cancelled context: %v, want context.Canceled", err)
	}
	deadline, tick := time.Now().Add(30*time.Second), time.NewTicker(10*time.Millisecond)
	defer tick.Stop()
	for nss, vecs := idx.Loaded(); nss != 1 || vecs != n; nss, vecs = idx.Loaded() {
		if time.Now().After(deadline) {
			t.Fatalf("after the search gave up, loaded %d namespaces / %d vectors, want 1 / %d", nss, vecs, n)
		}
		<-tick.C
	}
	hits, err := idx.Search(ctx, kgmem.VectorQuery{Namespace: "big", Vector: recs[7].Vector, K: 1})
	if err != nil || len(hits) != 1 || hits[0].ID != recs[7].ID {
		t.Fatalf("search after the load: %v %v, want %s", hits, err, recs[7].ID)
	}
}
