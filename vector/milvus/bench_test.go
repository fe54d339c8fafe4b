package milvus_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"sort"
	"strconv"
	"testing"
	"time"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/vector/milvus"
)

// benchEnv turns TestBenchmarkMilvus on; it is too slow for the normal suite.
const benchEnv = "KGMEM_MILVUS_BENCH"

// envInt reads a positive integer override of a benchmark size.
func envInt(t *testing.T, name string, def int) int {
	t.Helper()
	s := os.Getenv(name)
	if s == "" {
		return def
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 {
		t.Fatalf("%s=%q: want a positive integer", name, s)
	}
	return n
}

// TestBenchmarkMilvus loads N vectors (default 100,000 of dim 256, spread over
// 10 namespaces), then measures upsert throughput, the time for the HNSW index
// to cover them, filtered search latency (p50/p99) and recall@10 against exact
// cosine search within the queried namespace. Run it with:
//
//	scripts/milvus.sh start
//	KGMEM_TEST_MILVUS_ADDR=127.0.0.1:19530 KGMEM_MILVUS_BENCH=1 \
//	  go test ./vector/milvus -run TestBenchmarkMilvus -v -timeout 30m
//
// Sizes: KGMEM_MILVUS_BENCH_N, _DIM, _NAMESPACES, _QUERIES; data:
// KGMEM_MILVUS_BENCH_DATA=gaussian (default, i.i.d. Gaussian, worst case for
// HNSW) or latent (16-dimensional latent structure, closer to text embeddings).
func TestBenchmarkMilvus(t *testing.T) {
	if os.Getenv(benchEnv) == "" {
		t.Skipf("set %s=1 to run the Milvus benchmark", benchEnv)
	}
	n := envInt(t, "KGMEM_MILVUS_BENCH_N", 100_000)
	dim := envInt(t, "KGMEM_MILVUS_BENCH_DIM", 256)
	nss := envInt(t, "KGMEM_MILVUS_BENCH_NAMESPACES", 10)
	queries := envInt(t, "KGMEM_MILVUS_BENCH_QUERIES", 500)
	const k = 10

	ix := openFresh(t, milvus.Config{Dim: dim})
	c, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	defer cancel()
	rng := rand.New(rand.NewPCG(42, 4242))
	randVec := gaussian(rng, dim)
	data := os.Getenv("KGMEM_MILVUS_BENCH_DATA")
	switch data {
	case "", "gaussian":
		data = "gaussian"
	case "latent":
		randVec = latent(rng, dim, 16)
	default:
		t.Fatalf("KGMEM_MILVUS_BENCH_DATA=%q: want gaussian or latent", data)
	}
	t.Logf("data: %s, %d vectors of dim %d in %d namespaces", data, n, dim, nss)
	recs := make([]kgmem.VectorRecord, n)
	kinds := kgmem.AllKinds()
	for i := range recs {
		recs[i] = kgmem.VectorRecord{
			ID:        fmt.Sprintf("bench-%d", i),
			Namespace: kgmem.Namespace(fmt.Sprintf("bench/ns%d", i%nss)),
			Kind:      kinds[i%len(kinds)],
			Vector:    randVec(),
			CreatedAt: time.Now(),
		}
	}

	start := time.Now()
	for batch := range slices.Chunk(recs, 10_000) {
		if err := ix.Upsert(c, batch); err != nil {
			t.Fatalf("Upsert: %v", err)
		}
	}
	upsertDur := time.Since(start)
	t.Logf("upsert: %d vectors of dim %d in %s = %.0f vectors/s", n, dim, upsertDur.Round(time.Millisecond), float64(n)/upsertDur.Seconds())

	start = time.Now()
	if err := ix.Flush(c); err != nil {
		t.Fatalf("Flush: %v", err)
	}
	t.Logf("flush + HNSW index build: %s", time.Since(start).Round(time.Millisecond))

	qns := kgmem.Namespace(fmt.Sprintf("bench/ns%d", min(3, nss-1)))
	var pool []kgmem.VectorRecord
	for _, r := range recs {
		if r.Namespace == qns {
			pool = append(pool, r)
		}
	}
	if got, err := ix.Count(c, qns, ""); err != nil || got != len(pool) {
		t.Fatalf("Count(%s) = %d, %v; want %d", qns, got, err, len(pool))
	}

	for _, run := range []struct {
		level milvus.Consistency
		ef    int
	}{
		{milvus.Strong, milvus.DefaultEf},
		{milvus.Session, milvus.DefaultEf},
		{milvus.Bounded, milvus.DefaultEf},
		{milvus.Bounded, 64},
		{milvus.Bounded, 256},
		{milvus.Bounded, 512},
	} {
		sx, err := milvus.Open(c, milvus.Config{Address: testenvAddr(t), Collection: ix.Collection(), Dim: dim, Ef: run.ef, ConsistencyLevel: run.level})
		if err != nil {
			t.Fatal(err)
		}
		lat := make([]time.Duration, 0, queries)
		found := 0
		for range queries {
			q := randVec()
			t0 := time.Now()
			hits, err := sx.Search(c, kgmem.VectorQuery{Namespace: qns, Vector: q, K: k})
			lat = append(lat, time.Since(t0))
			if err != nil {
				t.Fatalf("Search: %v", err)
			}
			want := exactTopK(pool, q, k)
			for _, h := range hits {
				if slices.Contains(want, h.ID) {
					found++
				}
			}
		}
		if err := sx.Close(); err != nil {
			t.Fatal(err)
		}
		sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
		recall := float64(found) / float64(queries*k)
		t.Logf("search %s ef=%d in %s (%d of %d vectors): p50 %s, p99 %s, recall@%d %.3f over %d queries",
			run.level, run.ef, qns, len(pool), n, pct(lat, 0.50), pct(lat, 0.99), k, recall, queries)
		// Random Gaussian vectors are the hardest case for HNSW (no cluster
		// structure); this floor only catches a broken index or filter.
		if recall < 0.5 {
			t.Errorf("%s ef=%d: recall@%d = %.3f, want >= 0.5", run.level, run.ef, k, recall)
		}
	}
}

// gaussian returns a generator of i.i.d. Gaussian vectors: no structure at
// all, the hardest case for a graph index.
func gaussian(rng *rand.Rand, dim int) func() []float32 {
	return func() []float32 {
		v := make([]float32, dim)
		for i := range v {
			v[i] = float32(rng.NormFloat64())
		}
		return v
	}
}

// latent returns a generator of vectors with a low intrinsic dimension, like
// text embeddings: a fixed random linear map of a k-dimensional Gaussian, plus
// 10% isotropic noise.
func latent(rng *rand.Rand, dim, k int) func() []float32 {
	proj := make([][]float32, k)
	for i := range proj {
		proj[i] = gaussian(rng, dim)()
	}
	return func() []float32 {
		v := make([]float32, dim)
		for i := range proj {
			z := float32(rng.NormFloat64())
			for j := range v {
				v[j] += z * proj[i][j]
			}
		}
		scale := float32(0.1 * math.Sqrt(float64(k)))
		for j := range v {
			v[j] += scale * float32(rng.NormFloat64())
		}
		return v
	}
}

func pct(sorted []time.Duration, p float64) time.Duration {
	i := int(math.Ceil(p*float64(len(sorted)))) - 1
	return sorted[max(i, 0)].Round(10 * time.Microsecond)
}

// exactTopK returns the ids of the k records nearest to q by cosine.
func exactTopK(recs []kgmem.VectorRecord, q []float32, k int) []string {
	type scored struct {
		id string
		s  float64
	}
	norm := func(v []float32) float64 {
		var s float64
		for _, x := range v {
			s += float64(x) * float64(x)
		}
		return math.Sqrt(s)
	}
	qn := norm(q)
	all := make([]scored, len(recs))
	for i, r := range recs {
		var dot float64
		for j := range q {
			dot += float64(q[j]) * float64(r.Vector[j])
		}
		all[i] = scored{r.ID, dot / (qn * norm(r.Vector))}
	}
	sort.Slice(all, func(i, j int) bool { return all[i].s > all[j].s })
	out := make([]string, 0, k)
	for _, s := range all[:min(k, len(all))] {
		out = append(out, s.id)
	}
	return out
}
