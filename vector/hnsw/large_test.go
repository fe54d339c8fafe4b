package hnsw_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"testing"
	"time"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/vector/hnsw"
)

// dataset draws vectors like real embeddings: around one of a fixed set of
// centres (topics), with Gaussian noise. centres == 0 gives pure Gaussian
// vectors, the worst case for any graph index.
type dataset struct {
	rng     *rand.Rand
	dim     int
	centres [][]float32
	noise   float64
}

func newDataset(seed uint64, dim, centres int, noise float64) *dataset {
	d := &dataset{rng: rand.New(rand.NewPCG(seed, 7)), dim: dim, noise: noise}
	for range centres {
		d.centres = append(d.centres, randVec(d.rng, dim))
	}
	return d
}

func (d *dataset) vec() []float32 {
	v := randVec(d.rng, d.dim)
	if len(d.centres) == 0 {
		return v
	}
	c := d.centres[d.rng.IntN(len(d.centres))]
	for i := range v {
		v[i] = c[i] + float32(d.noise)*v[i]
	}
	return v
}

func (d *dataset) records(ns kgmem.Namespace, n int) []kgmem.VectorRecord {
	recs := make([]kgmem.VectorRecord, n)
	for i := range recs {
		recs[i] = kgmem.VectorRecord{ID: fmt.Sprintf("%s/%d", ns, i), Namespace: ns, Kind: kgmem.KindFact, Vector: d.vec()}
	}
	return recs
}

func upsertAll(tb testing.TB, idx *hnsw.Index, recs []kgmem.VectorRecord) {
	tb.Helper()
	for batch := range slices.Chunk(recs, 2000) {
		if err := idx.Upsert(context.Background(), batch); err != nil {
			tb.Fatal(err)
		}
	}
}

// exact is a brute-force reference over unit vectors in float64.
type exact struct {
	ids  []string
	vecs [][]float64
}

func newExact(recs []kgmem.VectorRecord) *exact {
	e := &exact{}
	for _, r := range recs {
		e.ids = append(e.ids, r.ID)
		e.vecs = append(e.vecs, unit(r.Vector))
	}
	return e
}

// top returns the ids of the k records nearest q by cosine.
func (e *exact) top(q []float32, k int) map[string]bool {
	type scored struct {
		id string
		s  float64
	}
	qn := unit(q)
	all := make([]scored, len(e.ids))
	for i, v := range e.vecs {
		var s float64
		for j := range v {
			s += v[j] * qn[j]
		}
		all[i] = scored{e.ids[i], s}
	}
	sort.Slice(all, func(i, j int) bool { return all[i].s > all[j].s })
	out := map[string]bool{}
	for _, s := range all[:k] {
		out[s.id] = true
	}
	return out
}

func unit(v []float32) []float64 {
	var n float64
	for _, x := range v {
		n += float64(x) * float64(x)
	}
	n = max(math.Sqrt(n), 1e-30)
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = float64(x) / n
	}
	return out
}

// TestRecallLargeNamespace checks graph search on one namespace of 20,000
// vectors of dimension 256 against exact brute force.
func TestRecallLargeNamespace(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a 20k-vector graph; skipped with -short")
	}
	const n, dim, queries, k = 20000, 256, 100, 10
	tests := []struct {
		name      string
		data      *dataset
		minRecall float64
	}{
		// Embedding-like data: 200 topics; queries are new draws from the same topics.
		{"clustered", newDataset(1, dim, 200, 1), 0.95},
		// Pure Gaussian vectors and queries: no structure, the true top 10
		// barely stand out (cosine ~0.2 against ~0 for the rest). The worst
		// case for any graph index; the floor only guards against regressions.
		{"gaussian", newDataset(2, dim, 0, 0), 0.4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			idx := open(t, filepath.Join(t.TempDir(), "vectors.db"), dim, hnsw.Options{})
			recs := tt.data.records("big", n)
			start := time.Now()
			upsertAll(t, idx, recs)
			t.Logf("upsert of %d vectors: %v", n, time.Since(start))
			ref := newExact(recs)
			start = time.Now()
			if _, err := idx.Search(ctx, kgmem.VectorQuery{Namespace: "big", Vector: tt.data.vec(), K: k}); err != nil {
				t.Fatal(err)
			}
			t.Logf("first search (load + graph build of %d vectors): %v", n, time.Since(start))
			found := 0
			var lat []time.Duration
			for range queries {
				q := tt.data.vec()
				want := ref.top(q, k)
				start := time.Now()
				hits, err := idx.Search(ctx, kgmem.VectorQuery{Namespace: "big", Vector: q, K: k})
				lat = append(lat, time.Since(start))
				if err != nil {
					t.Fatal(err)
				}
				for _, h := range hits {
					if want[h.ID] {
						found++
					}
				}
			}
			slices.Sort(lat)
			recall := float64(found) / float64(queries*k)
			t.Logf("recall@%d = %.3f, search p50 = %v, p99 = %v", k, recall, lat[len(lat)/2], lat[len(lat)*99/100])
			if recall < tt.minRecall {
				t.Errorf("recall@%d = %.3f, want >= %.2f", k, recall, tt.minRecall)
			}
		})
	}
}

// BenchmarkSearch measures search latency on the two shard shapes: the
// issue #7 target shape (1,000 vectors per namespace, exact scan) and one
// large namespace (20,000 vectors, graph). Set KGMEM_BENCH_NAMESPACES to
// load more 1,000-vector namespaces (1000 = the full 1M-vector target).
func BenchmarkSearch(b *testing.B) {
	const dim = 256
	namespaces := 20
	if v := os.Getenv("KGMEM_BENCH_NAMESPACES"); v != "" {
		if _, err := fmt.Sscan(v, &namespaces); err != nil {
			b.Fatalf("KGMEM_BENCH_NAMESPACES=%q: %v", v, err)
		}
	}
	ctx := context.Background()
	b.Run(fmt.Sprintf("ns=%dx1000", namespaces), func(b *testing.B) {
		data := newDataset(2, dim, 200, 0.6)
		idx := open(b, filepath.Join(b.TempDir(), "vectors.db"), dim, hnsw.Options{})
		for i := range namespaces {
			ns := kgmem.Namespace(fmt.Sprintf("tenant/%d", i))
			recs := data.records(ns, 1000)
			for j := range recs {
				recs[j].Kind = kgmem.AllKinds()[j%3]
			}
			upsertAll(b, idx, recs)
		}
		for i := range namespaces { // load every namespace before timing
			if _, err := idx.Search(ctx, kgmem.VectorQuery{Namespace: kgmem.Namespace(fmt.Sprintf("tenant/%d", i)), Vector: data.vec(), K: 10}); err != nil {
				b.Fatal(err)
			}
		}
		benchQueries(b, idx, data, func(i int) kgmem.Namespace { return kgmem.Namespace(fmt.Sprintf("tenant/%d", i%namespaces)) })
	})
	// Every search loads its namespace from the file: MaxLoadedBytes keeps
	// only the namespace last searched.
	b.Run("ns=20x1000/cold", func(b *testing.B) {
		data := newDataset(4, dim, 200, 0.6)
		idx := open(b, filepath.Join(b.TempDir(), "vectors.db"), dim, hnsw.Options{MaxLoadedBytes: 1})
		for i := range 20 {
			upsertAll(b, idx, data.records(kgmem.Namespace(fmt.Sprintf("tenant/%d", i)), 1000))
		}
		benchQueries(b, idx, data, func(i int) kgmem.Namespace { return kgmem.Namespace(fmt.Sprintf("tenant/%d", i%20)) })
	})
	b.Run("ns=1x20000", func(b *testing.B) {
		data := newDataset(3, dim, 200, 0.6)
		idx := open(b, filepath.Join(b.TempDir(), "vectors.db"), dim, hnsw.Options{})
		upsertAll(b, idx, data.records("big", 20000))
		if _, err := idx.Search(ctx, kgmem.VectorQuery{Namespace: "big", Vector: data.vec(), K: 10}); err != nil {
			b.Fatal(err)
		}
		benchQueries(b, idx, data, func(int) kgmem.Namespace { return "big" })
	})
}

// benchQueries times K=10 searches and reports the median latency.
func benchQueries(b *testing.B, idx *hnsw.Index, data *dataset, ns func(i int) kgmem.Namespace) {
	queries := make([][]float32, 256)
	for i := range queries {
		queries[i] = data.vec()
	}
	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := range b.N {
		start := time.Now()
		if _, err := idx.Search(context.Background(), kgmem.VectorQuery{Namespace: ns(i), Vector: queries[i%len(queries)], K: 10}); err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(start))
	}
	b.StopTimer()
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-µs")
}
