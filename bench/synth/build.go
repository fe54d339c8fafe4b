package synth

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"time"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/memory"
	"golang.org/x/sync/errgroup"
)

// Sink is where a memory is written: the real stores, through their
// batch writes (GraphStore.Apply, VectorIndex.Upsert), with the vectors the
// engine would write (memory.EpisodeText, memory.EntityText, the fact text).
type Sink struct {
	Graph    kgmem.GraphStore
	Vectors  kgmem.VectorIndex
	Embedder kgmem.Embedder
}

// BuildOptions tune Build.
type BuildOptions struct {
	// Workers generate and embed namespaces in parallel (default GOMAXPROCS).
	Workers int
	// Batch is the most records per change set and per vector upsert (default 5,000).
	Batch int
	// Progress, when set, is called after each namespace is fully written.
	Progress func(done, total int)
}

// BuildStats reports what Build wrote and how fast.
type BuildStats struct {
	Namespaces int         `json:"namespaces"`
	Entities   int         `json:"entities"`
	Facts      int         `json:"facts"`
	Episodes   int         `json:"episodes"`
	Mentions   int         `json:"mentions"`
	Vectors    int         `json:"vectors"`
	Seconds    float64     `json:"seconds"`
	Degrees    DegreeStats `json:"degrees"`
}

// FactsPerSecond is the build throughput in facts.
func (s BuildStats) FactsPerSecond() float64 {
	if s.Seconds <= 0 {
		return 0
	}
	return float64(s.Facts) / s.Seconds
}

// prepared is one namespace, generated and embedded, ready to write.
type prepared struct {
	mem     Memory
	records []kgmem.VectorRecord
}

// Build generates every namespace of g and writes it to sink. Workers
// generate and embed in parallel; one goroutine applies the change sets to
// the graph and another upserts the vectors, so the two stores are written
// concurrently. Namespaces are written whole, each as a few change sets.
func Build(ctx context.Context, g *Generator, sink Sink, opts BuildOptions) (BuildStats, error) {
	if opts.Workers <= 0 {
		opts.Workers = runtime.GOMAXPROCS(0)
	}
	if opts.Batch <= 0 {
		opts.Batch = 5000
	}
	start := time.Now()
	eg, ctx := errgroup.WithContext(ctx)
	jobs := make(chan int)
	toGraph := make(chan prepared, opts.Workers)
	toVectors := make(chan prepared, opts.Workers)
	eg.Go(func() error {
		defer close(jobs)
		for i := range g.plan {
			select {
			case jobs <- i:
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		return nil
	})
	var workers errgroup.Group
	for range opts.Workers {
		workers.Go(func() error {
			for i := range jobs {
				p, err := prepare(ctx, g, sink.Embedder, i)
				if err != nil {
					return err
				}
				for _, ch := range []chan prepared{toGraph, toVectors} {
					select {
					case ch <- p:
					case <-ctx.Done():
						return ctx.Err()
					}
				}
			}
			return nil
		})
	}
	eg.Go(func() error {
		defer close(toGraph)
		defer close(toVectors)
		return workers.Wait()
	})
	// Both writers report each namespace; it is done when both have.
	done := make(chan kgmem.Namespace, 2*opts.Workers)
	var stats BuildStats
	var degrees Degrees
	eg.Go(func() error {
		for p := range toGraph {
			for _, cs := range p.mem.ChangeSets(opts.Batch) {
				if err := sink.Graph.Apply(ctx, cs); err != nil {
					return fmt.Errorf("write %s to the graph: %w", p.mem.Plan.Namespace, err)
				}
			}
			stats.Entities += len(p.mem.Entities)
			stats.Facts += len(p.mem.Facts)
			stats.Episodes += len(p.mem.Episodes)
			stats.Mentions += len(p.mem.Mentions)
			degrees.Add(p.mem)
			done <- p.mem.Plan.Namespace
		}
		return nil
	})
	eg.Go(func() error {
		for p := range toVectors {
			for chunk := range slices.Chunk(p.records, opts.Batch) {
				if err := sink.Vectors.Upsert(ctx, chunk); err != nil {
					return fmt.Errorf("write %s to the vector index: %w", p.mem.Plan.Namespace, err)
				}
			}
			stats.Vectors += len(p.records)
			done <- p.mem.Plan.Namespace
		}
		return nil
	})
	eg.Go(func() error {
		halves := map[kgmem.Namespace]bool{}
		for finished := 0; finished < len(g.plan); {
			select {
			case ns := <-done:
				if halves[ns] {
					delete(halves, ns)
					finished++
					stats.Namespaces++
					if opts.Progress != nil {
						opts.Progress(finished, len(g.plan))
					}
				} else {
					halves[ns] = true
				}
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		return nil
	})
	if err := eg.Wait(); err != nil {
		return stats, fmt.Errorf("build synthetic memory: %w", err)
	}
	stats.Seconds = time.Since(start).Seconds()
	stats.Degrees = degrees.Stats()
	return stats, nil
}

// prepare generates namespace i and embeds its records.
func prepare(ctx context.Context, g *Generator, emb kgmem.Embedder, i int) (prepared, error) {
	m := g.Namespace(i)
	records, texts := VectorRecords(m)
	vecs, err := emb.Embed(ctx, texts)
	if err != nil {
		return prepared{}, fmt.Errorf("embed %s: %w", m.Plan.Namespace, err)
	}
	if len(vecs) != len(records) {
		return prepared{}, fmt.Errorf("embedder %s returned %d vectors for %d texts", emb.Name(), len(vecs), len(texts))
	}
	for j := range records {
		records[j].Vector = vecs[j]
	}
	return prepared{mem: m, records: records}, nil
}

// VectorRecords lists the vector records of m (without vectors) and the
// texts to embed for them, as the engine embeds them on ingest.
func VectorRecords(m Memory) ([]kgmem.VectorRecord, []string) {
	records := make([]kgmem.VectorRecord, 0, m.Records())
	texts := make([]string, 0, m.Records())
	ns := m.Plan.Namespace
	for _, e := range m.Entities {
		records = append(records, kgmem.VectorRecord{ID: e.ID, Namespace: ns, Kind: kgmem.KindEntity, CreatedAt: e.CreatedAt})
		texts = append(texts, memory.EntityText(e))
	}
	for _, ep := range m.Episodes {
		records = append(records, kgmem.VectorRecord{ID: ep.ID, Namespace: ns, Kind: kgmem.KindEpisode, CreatedAt: ep.CreatedAt})
		texts = append(texts, memory.EpisodeText(ep))
	}
	for _, f := range m.Facts {
		records = append(records, kgmem.VectorRecord{ID: f.ID, Namespace: ns, Kind: kgmem.KindFact, CreatedAt: f.CreatedAt})
		texts = append(texts, f.Text)
	}
	return records, texts
}

// Purge removes every namespace of g from sink: from the graph, and from the
// vector index unless sink.Vectors is nil (a caller that drops the whole
// collection instead).
func Purge(ctx context.Context, g *Generator, sink Sink) (kgmem.PurgeStats, error) {
	var total kgmem.PurgeStats
	for _, p := range g.plan {
		st, err := sink.Graph.PurgeNamespace(ctx, p.Namespace)
		if err != nil {
			return total, fmt.Errorf("purge %s from the graph: %w", p.Namespace, err)
		}
		if sink.Vectors != nil {
			if err := sink.Vectors.DeleteNamespace(ctx, p.Namespace); err != nil {
				return total, fmt.Errorf("purge %s from the vector index: %w", p.Namespace, err)
			}
		}
		total.Episodes += st.Episodes
		total.Entities += st.Entities
		total.Facts += st.Facts
	}
	return total, nil
}

// CheckBuilt reports whether sink holds g's memory, so that a run can search
// what an earlier one built and kept: every namespace must have its planned
// numbers of fact, entity and episode vectors, and its last fact in the graph.
// It returns the memory's statistics (Seconds is 0: nothing was built); the
// error names the first namespace that differs.
func CheckBuilt(ctx context.Context, g *Generator, sink Sink) (BuildStats, error) {
	var stats BuildStats
	var degrees Degrees
	for i, p := range g.plan {
		m := g.Namespace(i)
		for kind, want := range map[kgmem.Kind]int{kgmem.KindFact: len(m.Facts), kgmem.KindEntity: len(m.Entities), kgmem.KindEpisode: len(m.Episodes)} {
			got, err := sink.Vectors.Count(ctx, p.Namespace, kind)
			if err != nil {
				return stats, fmt.Errorf("count the %s vectors of %s: %w", kind, p.Namespace, err)
			}
			if got != want {
				return stats, fmt.Errorf("%s holds %d %s vectors, the memory has %d: %w", p.Namespace, got, kind, want, kgmem.ErrNotFound)
			}
		}
		last := m.Facts[len(m.Facts)-1].ID
		if _, err := sink.Graph.Fact(ctx, p.Namespace, last); err != nil {
			return stats, fmt.Errorf("fact %s of %s: %w", last, p.Namespace, err)
		}
		stats.Namespaces++
		stats.Entities += len(m.Entities)
		stats.Facts += len(m.Facts)
		stats.Episodes += len(m.Episodes)
		stats.Mentions += len(m.Mentions)
		stats.Vectors += m.Records()
		degrees.Add(m)
	}
	stats.Degrees = degrees.Stats()
	return stats, nil
}
