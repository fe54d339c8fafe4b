package memory_test

import (
	"context"
	"log/slog"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/decay"
	"github.com/kgmem/kgmem/embed"
	"github.com/kgmem/kgmem/episodes"
	"github.com/kgmem/kgmem/graph/sqlite"
	"github.com/kgmem/kgmem/internal/llmtest"
	"github.com/kgmem/kgmem/memory"
	"github.com/kgmem/kgmem/triples"
	"github.com/kgmem/kgmem/vector/hnsw"
	"github.com/prometheus/client_golang/prometheus"
	openai "github.com/sashabaranov/go-openai"
)

// fakeClock is a settable clock, so tests run months in milliseconds.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// harness is an engine over the real embedded backends in a temporary directory.
type harness struct {
	engine     *memory.Engine
	graph      kgmem.GraphStore
	clock      *fakeClock
	reinforcer *decay.Reinforcer
	llm        *llmtest.Server
	metrics    *prometheus.Registry
}

func newHarness(t *testing.T, llm *llmtest.Server) *harness {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	clock := &fakeClock{now: time.Date(2024, 6, 1, 12, 0, 0, 0, time.UTC)}
	g, err := sqlite.Open(ctx, filepath.Join(dir, "graph.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = g.Close() })
	emb := embed.NewHashing(256)
	v, err := hnsw.Open(ctx, filepath.Join(dir, "vectors.db"), emb.Dimension(), hnsw.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = v.Close() })
	quiet := slog.New(slog.DiscardHandler)
	r, err := decay.NewReinforcer(decay.ReinforcerConfig{Store: g, JournalPath: filepath.Join(dir, "recall.journal"), Clock: clock, Interval: time.Hour, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = r.Close(context.Background()) })
	reg := prometheus.NewRegistry()
	cfg := memory.Config{Graph: g, Vectors: v, Embedder: emb, Clock: clock, Logger: quiet, Reinforcer: r, Metrics: reg,
		Integrator: triples.NewIntegrator(g, triples.IntegratorOptions{Clock: clock})}
	if llm != nil {
		llmCfg := triples.LLMConfig{BaseURL: llm.URL(), Model: "test-model", MaxRetries: 2, MinBackoff: time.Millisecond, MaxBackoff: 5 * time.Millisecond}
		x, err := triples.NewExtractor(llmCfg)
		if err != nil {
			t.Fatal(err)
		}
		cfg.Extractor = x
		cfg.Integrator = triples.NewIntegrator(g, triples.IntegratorOptions{Clock: clock, LLM: &llmCfg})
	}
	eng, err := memory.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return &harness{engine: eng, graph: g, clock: clock, reinforcer: r, llm: llm, metrics: reg}
}

func msg(id, name, content, ts string) episodes.Message {
	t, err := time.Parse(time.RFC3339, ts)
	if err != nil {
		panic(err)
	}
	return episodes.Message{ID: id, Name: name, Role: "user", Content: content, Timestamp: t}
}

func TestIngestWithExtractionInvalidatesAndCountsCalls(t *testing.T) {
	llm := llmtest.New(t, llmtest.WithScript(
		llmtest.On("I mentor Bob", llmtest.Text(llmtest.ExtractionJSON(
			[]llmtest.Entity{{Name: "Alice", Type: "Person"}, {Name: "ML team", Type: "Team"}, {Name: "Bob", Type: "Person"}},
			[]llmtest.Fact{
				{Subject: "Alice", Predicate: "manages", Object: "ML team", Text: "Alice manages the ML team.", ValidAt: "2024-01-10T09:00:00Z"},
				{Subject: "Alice", Predicate: "mentors", Object: "Bob", Text: "Alice mentors Bob."},
			}))),
		llmtest.On("now leads", llmtest.Text(llmtest.ExtractionJSON(
			[]llmtest.Entity{{Name: "Bob", Type: "Person"}, {Name: "ML team", Type: "Team"}, {Name: "NLP project", Type: "Project"}},
			[]llmtest.Fact{
				{Subject: "Bob", Predicate: "leads", Object: "ML team", Text: "Bob leads the ML team.", ValidAt: "2024-03-01T09:30:00Z"},
				{Subject: "Bob", Predicate: "leads", Object: "NLP project", Text: "Bob leads the NLP project.", ValidAt: "2024-03-01T09:30:00Z"},
			}))),
	))
	h := newHarness(t, llm)
	ctx := context.Background()
	const ns = kgmem.Namespace("team")

	first, err := h.engine.Ingest(ctx, memory.IngestRequest{Namespace: ns, ThreadID: "t", Extract: true,
		Messages: []episodes.Message{msg("m1", "Alice", "I manage the ML team and I mentor Bob.", "2024-01-10T09:00:00Z")}})
	if err != nil {
		t.Fatal(err)
	}
	if n := countOps(first.Facts, kgmem.OpAdded); n != 2 {
		t.Fatalf("first message: %d facts added, want 2: %+v", n, first.Facts)
	}
	if first.Usage.Calls < 1 || first.Usage.PromptTokens == 0 {
		t.Errorf("usage %+v: want the extraction call and its tokens counted", first.Usage)
	}
	second, err := h.engine.Ingest(ctx, memory.IngestRequest{Namespace: ns, ThreadID: "t", Extract: true,
		Messages: []episodes.Message{msg("m2", "Bob", "Bob now leads the ML team and the NLP project.", "2024-03-01T09:30:00Z")}})
	if err != nil {
		t.Fatal(err)
	}
	if countOps(second.Facts, kgmem.OpAdded) != 2 || countOps(second.Facts, kgmem.OpInvalidated) != 1 {
		t.Fatalf("second message: %+v, want 2 added and Alice's managing invalidated", second.Facts)
	}
	if second.Usage.Calls > 2 {
		t.Errorf("second message cost %d LLM calls, want at most 2", second.Usage.Calls)
	}

	res, err := h.engine.Search(ctx, memory.SearchRequest{Namespace: ns, Query: "who manages or leads the ML team", Include: []kgmem.Kind{kgmem.KindFact}, Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	texts := map[string]string{}
	for _, f := range res.Facts {
		texts[f.Text] = string(f.Status)
	}
	if texts["Bob leads the ML team."] != "current" || texts["Alice mentors Bob."] != "current" {
		t.Errorf("current facts %v", texts)
	}
	if _, ok := texts["Alice manages the ML team."]; ok {
		t.Errorf("invalidated fact returned without include_history: %v", texts)
	}
	hist, err := h.engine.Search(ctx, memory.SearchRequest{Namespace: ns, Query: "Alice manages the ML team", Include: []kgmem.Kind{kgmem.KindFact}, IncludeHistory: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(hist.Facts) == 0 || hist.Facts[0].Status != "invalidated" || hist.Facts[0].InvalidAt.IsZero() || hist.Facts[0].ExpiredAt.IsZero() {
		t.Fatalf("history search: %+v", hist.Facts)
	}
	// As of February, Alice still managed the team.
	feb, err := h.engine.Search(ctx, memory.SearchRequest{Namespace: ns, Query: "manages leads ML team", Include: []kgmem.Kind{kgmem.KindFact}, AsOf: time.Date(2024, 2, 1, 0, 0, 0, 0, time.UTC)})
	if err != nil {
		t.Fatal(err)
	}
	asOf := map[string]bool{}
	for _, f := range feb.Facts {
		asOf[f.Text] = true
	}
	if !asOf["Alice manages the ML team."] || asOf["Bob leads the ML team."] {
		t.Errorf("as of 2024-02-01: %v, want Alice's managing and not Bob's leading", asOf)
	}

	// The cumulative counters agree with what the responses reported.
	total := first.Usage.Add(second.Usage)
	for name, want := range map[string]float64{
		"kgmem_llm_calls_total":             float64(total.Calls),
		"kgmem_llm_prompt_tokens_total":     float64(total.PromptTokens),
		"kgmem_llm_completion_tokens_total": float64(total.CompletionTokens),
		"kgmem_ingested_messages_total":     2,
	} {
		if got := counter(t, h.metrics, name); got != want {
			t.Errorf("%s = %v, want %v", name, got, want)
		}
	}

	// Re-posting a known message makes no LLM call and changes nothing.
	before := llm.ChatCalls()
	again, err := h.engine.Ingest(ctx, memory.IngestRequest{Namespace: ns, ThreadID: "t", Extract: true,
		Messages: []episodes.Message{msg("m2", "Bob", "Bob now leads the ML team and the NLP project.", "2024-03-01T09:30:00Z")}})
	if err != nil {
		t.Fatal(err)
	}
	if llm.ChatCalls() != before || len(again.Facts) != 0 || again.Episodes[0].Created {
		t.Errorf("re-post: %d new LLM calls, %d fact changes, created=%v", llm.ChatCalls()-before, len(again.Facts), again.Episodes[0].Created)
	}
}

func TestLLMOutageKeepsEpisodes(t *testing.T) {
	llm := llmtest.New(t, llmtest.WithResponder(func(openai.ChatCompletionRequest) (llmtest.Reply, error) {
		return llmtest.Status(503), nil
	}))
	h := newHarness(t, llm)
	ctx := context.Background()
	res, err := h.engine.Ingest(ctx, memory.IngestRequest{Namespace: "down", ThreadID: "t", Extract: true,
		Messages: []episodes.Message{msg("m1", "Ann", "I moved to Lisbon last month.", "2024-05-01T10:00:00Z")}})
	if err != nil {
		t.Fatalf("an LLM outage failed the ingest: %v", err)
	}
	if len(res.Episodes) != 1 || !res.Episodes[0].Created || len(res.Warnings) == 0 {
		t.Fatalf("result %+v: want the episode stored and a warning", res)
	}
	if llm.ChatCalls() < 2 {
		t.Errorf("%d LLM calls: want retries before giving up", llm.ChatCalls())
	}
	found, err := h.engine.Search(ctx, memory.SearchRequest{Namespace: "down", Query: "Lisbon", Include: []kgmem.Kind{kgmem.KindEpisode}})
	if err != nil {
		t.Fatal(err)
	}
	if len(found.Episodes) != 1 {
		t.Fatalf("episode not searchable after the outage: %+v", found)
	}
}

func countOps(changes []kgmem.FactChange, op kgmem.ChangeOp) int {
	n := 0
	for _, c := range changes {
		if c.Op == op {
			n++
		}
	}
	return n
}

// counter sums the samples of the named metric family in reg.
func counter(t *testing.T, reg *prometheus.Registry, name string) float64 {
	t.Helper()
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	sum := 0.0
	for _, f := range families {
		if f.GetName() == name {
			for _, m := range f.GetMetric() {
				sum += m.GetCounter().GetValue()
			}
		}
	}
	return sum
}
