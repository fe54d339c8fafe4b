package synth

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sync"
	"time"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/memory"
	"golang.org/x/sync/errgroup"
)

// Searcher is the search the benchmark measures: memory.Engine's.
type Searcher interface {
	Search(ctx context.Context, req memory.SearchRequest) (memory.SearchResult, error)
}

var _ Searcher = (*memory.Engine)(nil)

// SearchStats are the latencies of one pass over the queries.
type SearchStats struct {
	Concurrency int     `json:"concurrency"`
	Queries     int     `json:"queries"`
	Errors      int     `json:"errors"`
	FirstError  string  `json:"first_error,omitempty"`
	Degraded    int     `json:"degraded"`
	P50Ms       float64 `json:"p50_ms"`
	P95Ms       float64 `json:"p95_ms"`
	P99Ms       float64 `json:"p99_ms"`
	MaxMs       float64 `json:"max_ms"`
	MeanMs      float64 `json:"mean_ms"`
	QPS         float64 `json:"qps"`
	// Found is the share of queries whose source record (Query.Kind, ID)
	// is among the results; FoundByStyle splits it by query style.
	Found        float64            `json:"found"`
	FoundByStyle map[string]float64 `json:"found_by_style"`
	// AllocBytesPerQuery is what the process allocated during the pass per
	// query, and GCCycles the collections that ran in it: the searches'
	// garbage, and the collector's share of their CPU and tail latency.
	AllocBytesPerQuery float64 `json:"alloc_bytes_per_query"`
	GCCycles           uint32  `json:"gc_cycles"`
	// CPUMsPerQuery is the process's CPU time (user and system) during the
	// pass per query: the searches' work, the collector's included, which
	// a neighbour on the machine moves less than it moves latency.
	CPUMsPerQuery float64 `json:"cpu_ms_per_query"`
	// Slowest are the pass's slowest searches, slowest first: where its
	// tail comes from.
	Slowest []SlowSearch `json:"slowest"`
}

// SlowSearch is one search of a pass and how long it took.
type SlowSearch struct {
	Query Query   `json:"query"`
	Ms    float64 `json:"ms"`
}

// slowestShown is how many of a pass's slowest searches SearchStats keeps.
const slowestShown = 5

// MeasureSearch runs every query through s, concurrency at a time, each a
// full search (all kinds, limit results per kind, no reinforcement), and
// reports latency percentiles (nearest rank), throughput over the wall
// time, and how often the source record was found.
func MeasureSearch(ctx context.Context, s Searcher, queries []Query, concurrency, limit int) SearchStats {
	concurrency = max(1, concurrency)
	lat := make([]time.Duration, len(queries))
	found := make([]bool, len(queries))
	var mu sync.Mutex
	st := SearchStats{Concurrency: concurrency, Queries: len(queries)}
	var eg errgroup.Group
	eg.SetLimit(concurrency)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	cpuBefore := ProcessCPU()
	start := time.Now()
	for i, q := range queries {
		eg.Go(func() error {
			t0 := time.Now()
			res, err := s.Search(ctx, memory.SearchRequest{Namespace: q.Namespace, Query: q.Text, Limit: limit})
			lat[i] = time.Since(t0)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				st.Errors++
				if st.FirstError == "" {
					st.FirstError = fmt.Sprintf("%q in %s: %v", q.Text, q.Namespace, err)
				}
				return nil
			}
			if len(res.Warnings) > 0 {
				st.Degraded++
			}
			found[i] = contains(res, q.Kind, q.ID)
			return nil
		})
	}
	_ = eg.Wait() // errors are counted, not returned
	wall := time.Since(start)
	cpu := ProcessCPU() - cpuBefore
	runtime.ReadMemStats(&after)
	if len(queries) == 0 {
		return st
	}
	st.AllocBytesPerQuery = float64(after.TotalAlloc-before.TotalAlloc) / float64(len(queries))
	st.GCCycles = after.NumGC - before.NumGC
	st.CPUMsPerQuery = float64(cpu.Microseconds()) / 1000 / float64(len(queries))
	sorted := slices.Clone(lat)
	slices.Sort(sorted)
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	var sum time.Duration
	for _, d := range sorted {
		sum += d
	}
	st.P50Ms, st.P95Ms, st.P99Ms = ms(Percentile(sorted, 0.50)), ms(Percentile(sorted, 0.95)), ms(Percentile(sorted, 0.99))
	st.MaxMs, st.MeanMs = ms(sorted[len(sorted)-1]), ms(sum/time.Duration(len(sorted)))
	st.QPS = float64(len(queries)) / wall.Seconds()
	order := make([]int, len(queries))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(lat[b], lat[a]) })
	for _, i := range order[:min(slowestShown, len(order))] {
		st.Slowest = append(st.Slowest, SlowSearch{Query: queries[i], Ms: ms(lat[i])})
	}
	hits, per, total := 0, map[string]int{}, map[string]int{}
	for i, q := range queries {
		total[q.Style]++
		if found[i] {
			hits++
			per[q.Style]++
		}
	}
	st.Found = float64(hits) / float64(len(queries))
	st.FoundByStyle = map[string]float64{}
	for style, n := range total {
		st.FoundByStyle[style] = float64(per[style]) / float64(n)
	}
	return st
}

// Percentile is the nearest-rank p-quantile (0 < p ≤ 1) of sorted.
func Percentile(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := int(math.Ceil(p*float64(len(sorted)))) - 1
	return sorted[min(max(i, 0), len(sorted)-1)]
}

// contains reports whether res holds the record (kind, id).
func contains(res memory.SearchResult, kind kgmem.Kind, id string) bool {
	switch kind {
	case kgmem.KindFact:
		return slices.ContainsFunc(res.Facts, func(f memory.FactResult) bool { return f.ID == id })
	case kgmem.KindEntity:
		return slices.ContainsFunc(res.Entities, func(e memory.EntityResult) bool { return e.ID == id })
	case kgmem.KindEpisode:
		return slices.ContainsFunc(res.Episodes, func(e memory.EpisodeResult) bool { return e.ID == id })
	}
	return false
}

// WarmUp loads every namespace of plan, workers at a time, so that the
// measured searches find them loaded: it searches the vector index directly
// (the embedded index loads a namespace, and builds its graphs, on first
// search, which can outlast the engine's per-retriever deadline) and then
// runs one engine search per namespace.
func WarmUp(ctx context.Context, s Searcher, ix kgmem.VectorIndex, plan []NamespacePlan, workers int) (time.Duration, error) {
	start := time.Now()
	probe := make([]float32, ix.Dimension())
	probe[0] = 1
	var eg errgroup.Group
	eg.SetLimit(max(1, workers))
	for _, p := range plan {
		eg.Go(func() error {
			if _, err := ix.Search(ctx, kgmem.VectorQuery{Namespace: p.Namespace, Vector: probe, K: 1}); err != nil {
				return fmt.Errorf("warm up %s: %w", p.Namespace, err)
			}
			if _, err := s.Search(ctx, memory.SearchRequest{Namespace: p.Namespace, Query: "warm up", Limit: 1}); err != nil {
				return fmt.Errorf("warm up %s: %w", p.Namespace, err)
			}
			return nil
		})
	}
	err := eg.Wait()
	return time.Since(start), err
}

// RecallStats is recall@K of the vector step against exact search.
type RecallStats struct {
	K       int `json:"k"`
	Queries int `json:"queries"`
	// Searches counts (query, kind) pairs with something to find.
	Searches int     `json:"searches"`
	Mean     float64 `json:"mean"`
	Min      float64 `json:"min"`
	// ByKind is the mean recall per record kind.
	ByKind map[kgmem.Kind]float64 `json:"by_kind"`
	// LargeShard is the size from which a (namespace, kind) counts as large
	// (the embedded index searches such shards through its graph, not by a
	// scan); LargeSearches and LargeMean are the searches on large shards.
	LargeShard    int     `json:"large_shard"`
	LargeSearches int     `json:"large_searches"`
	LargeMean     float64 `json:"large_mean"`
	// Worst is the search with the lowest recall (the first, on ties).
	Worst *RecallCase `json:"worst,omitempty"`
}

// RecallCase is one vector search of the recall check.
type RecallCase struct {
	Query  Query      `json:"query"`
	Kind   kgmem.Kind `json:"kind"`
	Recall float64    `json:"recall"`
	// Shard is how many vectors of Kind the namespace holds.
	Shard int `json:"shard"`
	// Exact and Approx are the two top-k lists (ids and cosine scores).
	Exact  []Scored    `json:"exact"`
	Approx []kgmem.Hit `json:"approx"`
}

// MeasureRecall compares, for every query and every kind, the vector
// index's top k in the query's namespace with the exact top k over the
// same namespace's vectors (regenerated and re-embedded here, as Build
// wrote them).
func MeasureRecall(ctx context.Context, g *Generator, ix kgmem.VectorIndex, emb kgmem.Embedder, queries []Query, k, largeShard int) (RecallStats, error) {
	st := RecallStats{K: k, Queries: len(queries), Min: 1, ByKind: map[kgmem.Kind]float64{}, LargeShard: largeShard}
	byNS := map[kgmem.Namespace][]Query{}
	var order []kgmem.Namespace
	for _, q := range queries {
		if byNS[q.Namespace] == nil {
			order = append(order, q.Namespace)
		}
		byNS[q.Namespace] = append(byNS[q.Namespace], q)
	}
	index := map[kgmem.Namespace]int{}
	for _, p := range g.plan {
		index[p.Namespace] = p.Index
	}
	var sum, largeSum float64
	kindSum, kindN := map[kgmem.Kind]float64{}, map[kgmem.Kind]int{}
	for _, ns := range order {
		i, ok := index[ns]
		if !ok {
			return st, kgmem.Invalidf("namespace", "%q is not part of this memory", ns)
		}
		records, texts := VectorRecords(g.Namespace(i))
		vecs, err := emb.Embed(ctx, texts)
		if err != nil {
			return st, fmt.Errorf("embed %s: %w", ns, err)
		}
		ids, byKind := map[kgmem.Kind][]string{}, map[kgmem.Kind][][]float32{}
		for j, r := range records {
			ids[r.Kind] = append(ids[r.Kind], r.ID)
			byKind[r.Kind] = append(byKind[r.Kind], vecs[j])
		}
		for _, q := range byNS[ns] {
			qv, err := emb.Embed(ctx, []string{q.Text})
			if err != nil {
				return st, fmt.Errorf("embed query: %w", err)
			}
			for _, kind := range kgmem.AllKinds() {
				exact := ExactTopK(qv[0], ids[kind], byKind[kind], k)
				ann, err := ix.Search(ctx, kgmem.VectorQuery{Namespace: ns, Vector: qv[0], Kinds: []kgmem.Kind{kind}, K: k})
				if err != nil {
					return st, fmt.Errorf("vector search in %s: %w", ns, err)
				}
				r, ok := Recall(ann, exact, k)
				if !ok {
					continue
				}
				st.Searches++
				sum += r
				if st.Worst == nil || r < st.Worst.Recall {
					st.Worst = &RecallCase{Query: q, Kind: kind, Recall: r, Shard: len(ids[kind]), Exact: exact, Approx: ann}
				}
				st.Min = min(st.Min, r)
				kindSum[kind] += r
				kindN[kind]++
				if len(ids[kind]) >= largeShard {
					st.LargeSearches++
					largeSum += r
				}
			}
		}
	}
	if st.Searches > 0 {
		st.Mean = sum / float64(st.Searches)
	}
	if st.LargeSearches > 0 {
		st.LargeMean = largeSum / float64(st.LargeSearches)
	}
	for kind, n := range kindN {
		st.ByKind[kind] = kindSum[kind] / float64(n)
	}
	return st, nil
}
