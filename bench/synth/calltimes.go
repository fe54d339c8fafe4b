package synth

import (
	"context"
	"fmt"
	"io"
	"slices"
	"sync"
	"time"

	"github.com/kgmem/kgmem"
)

// CallTimes records the wall time of every store call searches make, per
// call kind, so the benchmark can say where a search's latency goes on a
// backend whose work happens in another process (Neo4j, Milvus), which a
// CPU profile of the client cannot show. Wrap the stores the engine is given
// with Graph and Vectors. A CallTimes is safe for concurrent use.
type CallTimes struct {
	mu    sync.Mutex
	calls map[string][]time.Duration
}

// NewCallTimes returns an empty recorder.
func NewCallTimes() *CallTimes { return &CallTimes{calls: map[string][]time.Duration{}} }

// Reset forgets every call recorded.
func (c *CallTimes) Reset() {
	c.mu.Lock()
	defer c.mu.Unlock()
	clear(c.calls)
}

// record adds one call of kind name that began at start.
func (c *CallTimes) record(name string, start time.Time) {
	d := time.Since(start)
	c.mu.Lock()
	defer c.mu.Unlock()
	c.calls[name] = append(c.calls[name], d)
}

// Report writes, per call kind, the calls per search and their p50, p95
// and total wall time per search, for searches searches.
func (c *CallTimes) Report(w io.Writer, searches int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	names := make([]string, 0, len(c.calls))
	for n := range c.calls {
		names = append(names, n)
	}
	slices.Sort(names)
	ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
	fmt.Fprintf(w, "%-28s %10s %8s %8s %14s\n", "store call", "per search", "p50 ms", "p95 ms", "ms per search")
	for _, n := range names {
		d := slices.Sorted(slices.Values(c.calls[n]))
		var total time.Duration
		for _, x := range d {
			total += x
		}
		fmt.Fprintf(w, "%-28s %10.2f %8.2f %8.2f %14.2f\n", n, float64(len(d))/float64(max(searches, 1)),
			ms(Percentile(d, 0.5)), ms(Percentile(d, 0.95)), ms(total)/float64(max(searches, 1)))
	}
}

// Graph returns g with the calls searches make timed.
func (c *CallTimes) Graph(g kgmem.GraphStore) kgmem.GraphStore {
	return timedGraph{GraphStore: g, t: c}
}

// Vectors returns v with its searches timed.
func (c *CallTimes) Vectors(v kgmem.VectorIndex) kgmem.VectorIndex {
	return timedVectors{VectorIndex: v, t: c}
}

// timedGraph times the read calls of a search.
type timedGraph struct {
	kgmem.GraphStore
	t *CallTimes
}

func (g timedGraph) SearchText(ctx context.Context, ns kgmem.Namespace, q kgmem.TextQuery) ([]kgmem.Hit, error) {
	defer g.t.record("graph SearchText", time.Now())
	return g.GraphStore.SearchText(ctx, ns, q)
}

func (g timedGraph) FindEntities(ctx context.Context, ns kgmem.Namespace, f kgmem.EntityFilter) ([]kgmem.Entity, error) {
	defer g.t.record("graph FindEntities", time.Now())
	return g.GraphStore.FindEntities(ctx, ns, f)
}

func (g timedGraph) Neighborhood(ctx context.Context, ns kgmem.Namespace, q kgmem.NeighborhoodQuery) (kgmem.Subgraph, error) {
	defer g.t.record("graph Neighborhood", time.Now())
	return g.GraphStore.Neighborhood(ctx, ns, q)
}

func (g timedGraph) WalkFacts(ctx context.Context, ns kgmem.Namespace, q kgmem.NeighborhoodQuery, visit func(kgmem.WalkedFact)) error {
	defer g.t.record("graph WalkFacts", time.Now())
	return g.GraphStore.WalkFacts(ctx, ns, q, visit)
}

func (g timedGraph) ThreadNeighbors(ctx context.Context, ns kgmem.Namespace, q kgmem.ThreadNeighborsQuery) ([]kgmem.ThreadNeighbor, error) {
	defer g.t.record("graph ThreadNeighbors", time.Now())
	return g.GraphStore.ThreadNeighbors(ctx, ns, q)
}

func (g timedGraph) EpisodeSpeakers(ctx context.Context, ns kgmem.Namespace, ids []string) ([]string, bool, error) {
	defer g.t.record("graph EpisodeSpeakers", time.Now())
	return g.GraphStore.EpisodeSpeakers(ctx, ns, ids)
}

func (g timedGraph) Facts(ctx context.Context, ns kgmem.Namespace, ids []string) ([]kgmem.Fact, error) {
	defer g.t.record("graph Facts", time.Now())
	return g.GraphStore.Facts(ctx, ns, ids)
}

func (g timedGraph) Entities(ctx context.Context, ns kgmem.Namespace, ids []string) ([]kgmem.Entity, error) {
	defer g.t.record("graph Entities", time.Now())
	return g.GraphStore.Entities(ctx, ns, ids)
}

func (g timedGraph) Episodes(ctx context.Context, ns kgmem.Namespace, ids []string) ([]kgmem.Episode, error) {
	defer g.t.record("graph Episodes", time.Now())
	return g.GraphStore.Episodes(ctx, ns, ids)
}

func (g timedGraph) Settings(ctx context.Context, ns kgmem.Namespace) (kgmem.NamespaceSettings, error) {
	defer g.t.record("graph Settings", time.Now())
	return g.GraphStore.Settings(ctx, ns)
}

// timedVectors times vector searches.
type timedVectors struct {
	kgmem.VectorIndex
	t *CallTimes
}

func (v timedVectors) Search(ctx context.Context, q kgmem.VectorQuery) ([]kgmem.Hit, error) {
	defer v.t.record("vector Search", time.Now())
	return v.VectorIndex.Search(ctx, q)
}
