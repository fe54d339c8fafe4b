package jobs_test

import (
	"context"
	"fmt"
	"log/slog"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/chatlog/gen/gentest"
	"github.com/kgmem/kgmem/embed"
	"github.com/kgmem/kgmem/episodes"
	"github.com/kgmem/kgmem/graph/sqlite"
	"github.com/kgmem/kgmem/jobs"
	"github.com/kgmem/kgmem/memory"
	"github.com/kgmem/kgmem/triples"
	"github.com/kgmem/kgmem/vector/hnsw"
)

// factOutage is a graph store that, while down, refuses change sets with
// facts as an unavailable backend: the outage begins after the messages
// were stored and before the facts extracted from them are.
type factOutage struct {
	kgmem.GraphStore
	down    atomic.Bool
	refused atomic.Int64
}

func (g *factOutage) Apply(ctx context.Context, cs kgmem.ChangeSet) error {
	if g.down.Load() && len(cs.Facts) > 0 {
		g.refused.Add(1)
		return fmt.Errorf("graph store: %w", kgmem.ErrUnavailable)
	}
	return g.GraphStore.Apply(ctx, cs)
}

// TestFactsMeetingAnOutageAreExtractedAgain: a job whose messages are
// stored but whose facts meet an unavailable graph stays queued and, once
// the graph is back, extracts and writes them (not "succeeded" without
// facts).
func TestFactsMeetingAnOutageAreExtractedAgain(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	store, err := sqlite.Open(ctx, filepath.Join(dir, "graph.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = store.Close() })
	g := &factOutage{GraphStore: store}
	g.down.Store(true)
	emb := embed.NewHashing(256)
	v, err := hnsw.Open(ctx, filepath.Join(dir, "vectors.db"), emb.Dimension(), hnsw.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = v.Close() })
	llmCfg := triples.LLMConfig{BaseURL: gentest.LLM(t, 0).URL(), Model: "test-model", MaxRetries: -1, Timeout: time.Minute}
	x, err := triples.NewExtractor(llmCfg)
	if err != nil {
		t.Fatal(err)
	}
	quiet := slog.New(slog.DiscardHandler)
	eng, err := memory.New(memory.Config{Graph: g, Vectors: v, Embedder: emb, Logger: quiet, Extractor: x,
		Integrator: triples.NewIntegrator(g, triples.IntegratorOptions{Embedder: emb, LLM: &llmCfg})})
	if err != nil {
		t.Fatal(err)
	}
	r, err := jobs.Open(ctx, jobs.Config{Engine: eng, DataDir: t.TempDir(), Workers: 1, Logger: quiet,
		RetryMin: 10 * time.Millisecond, RetryMax: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	const ns = kgmem.Namespace("outage")
	j, err := r.Submit(ctx, memory.IngestRequest{Namespace: ns, ThreadID: "t", Extract: true, Messages: []episodes.Message{message(0)}})
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(time.Minute)
	for g.refused.Load() == 0 {
		if time.Now().After(deadline) {
			t.Fatal("no fact write reached the graph within a minute")
		}
		time.Sleep(10 * time.Millisecond) // polling interval under the deadline above
	}
	if eps, err := store.ListEpisodes(ctx, ns, kgmem.Page{Limit: 10}); err != nil || len(eps) != 1 {
		t.Fatalf("during the outage: %d episodes (%v), want the message stored", len(eps), err)
	}
	g.down.Store(false)
	done := waitDone(t, r, ns, []string{j.ID})[0]
	if done.Status != jobs.StatusSucceeded || done.Result == nil || len(done.Result.Facts) == 0 {
		t.Fatalf("job after the outage: %s %s %+v, want its facts", done.Status, done.Error, done.Result)
	}
	facts, err := eng.ListFacts(ctx, memory.ListFactsRequest{Namespace: ns})
	if err != nil || len(facts) == 0 {
		t.Fatalf("%d facts stored (%v), want the message's", len(facts), err)
	}
}
