package memory_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kgmem/kgmem/internal/polltest"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/embed"
	"github.com/kgmem/kgmem/episodes"
	"github.com/kgmem/kgmem/graph/sqlite"
	"github.com/kgmem/kgmem/internal/llmtest"
	"github.com/kgmem/kgmem/memory"
	"github.com/kgmem/kgmem/outbox"
	"github.com/kgmem/kgmem/triples"
	"github.com/kgmem/kgmem/vector/hnsw"
	"github.com/prometheus/client_golang/prometheus"
)

// flakyIndex is a vector index that fails every call on demand, like a vector
// server that went away.
type flakyIndex struct {
	kgmem.VectorIndex
	down atomic.Bool
}

func (f *flakyIndex) err() error {
	if f.down.Load() {
		return fmt.Errorf("flaky index: %w", kgmem.ErrUnavailable)
	}
	return nil
}

func (f *flakyIndex) Upsert(ctx context.Context, r []kgmem.VectorRecord) error {
	if err := f.err(); err != nil {
		return err
	}
	return f.VectorIndex.Upsert(ctx, r)
}

func (f *flakyIndex) Delete(ctx context.Context, ns kgmem.Namespace, ids []string) error {
	if err := f.err(); err != nil {
		return err
	}
	return f.VectorIndex.Delete(ctx, ns, ids)
}

func (f *flakyIndex) DeleteNamespace(ctx context.Context, ns kgmem.Namespace) error {
	if err := f.err(); err != nil {
		return err
	}
	return f.VectorIndex.DeleteNamespace(ctx, ns)
}

func (f *flakyIndex) Search(ctx context.Context, q kgmem.VectorQuery) ([]kgmem.Hit, error) {
	if err := f.err(); err != nil {
		return nil, err
	}
	return f.VectorIndex.Search(ctx, q)
}

func (f *flakyIndex) Ping(ctx context.Context) error {
	if err := f.err(); err != nil {
		return err
	}
	return f.VectorIndex.Ping(ctx)
}

func (f *flakyIndex) ListIDs(ctx context.Context, ns kgmem.Namespace, p kgmem.Page) ([]kgmem.VectorKey, error) {
	if err := f.err(); err != nil {
		return nil, err
	}
	return f.VectorIndex.ListIDs(ctx, ns, p)
}

// faultScript is the scripted LLM of the fault scenario: one person and one
// fact per message, and Dave's message supersedes Alice's.
func faultScript(t *testing.T) *llmtest.Server {
	type line struct{ who, what, subj, pred, obj, objType, text string }
	lines := []line{
		{"Alice", "I manage the ML team.", "Alice", "manages", "ML team", "Team", "Alice manages the ML team."},
		{"Bob", "I work on the NLP project.", "Bob", "works_on", "NLP project", "Project", "Bob works on the NLP project."},
		{"Carol", "I live in Lisbon.", "Carol", "lives_in", "Lisbon", "Place", "Carol lives in Lisbon."},
		{"Dave", "I lead the ML team since March.", "Dave", "manages", "ML team", "Team", "Dave manages the ML team."},
		{"Erin", "I play chess every weekend.", "Erin", "plays", "chess", "Concept", "Erin plays chess."},
		{"Frank", "I moved to Porto.", "Frank", "lives_in", "Porto", "Place", "Frank lives in Porto."},
	}
	var rules []llmtest.Rule
	for _, l := range lines {
		rules = append(rules, llmtest.On(l.what, llmtest.Text(llmtest.ExtractionJSON(
			[]llmtest.Entity{{Name: l.subj, Type: "Person"}, {Name: l.obj, Type: l.objType}},
			[]llmtest.Fact{{Subject: l.subj, Predicate: l.pred, Object: l.obj, Text: l.text}}))))
	}
	return llmtest.New(t, llmtest.WithScript(rules...))
}

// faultMessages are the scenario's messages, one per ingest.
var faultMessages = []episodes.Message{
	msg("m1", "Alice", "I manage the ML team.", "2024-01-10T09:00:00Z"),
	msg("m2", "Bob", "I work on the NLP project.", "2024-01-11T09:00:00Z"),
	msg("m3", "Carol", "I live in Lisbon.", "2024-01-12T09:00:00Z"),
	msg("m4", "Dave", "I lead the ML team since March.", "2024-03-01T09:00:00Z"),
	msg("m5", "Erin", "I play chess every weekend.", "2024-03-02T09:00:00Z"),
	msg("m6", "Frank", "I moved to Porto.", "2024-03-03T09:00:00Z"),
}

// faultEngine is an engine over an SQLite graph in dir and the given vectors,
// with extraction scripted and a file outbox in dir.
type faultEngine struct {
	engine *memory.Engine
	graph  kgmem.GraphStore
	box    *outbox.File
	reg    *prometheus.Registry
}

func newFaultEngine(t *testing.T, dir string, vectors kgmem.VectorIndex, llm *llmtest.Server) *faultEngine {
	t.Helper()
	ctx := context.Background()
	g, err := sqlite.Open(ctx, filepath.Join(dir, "graph.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = g.Close() })
	box, skipped, err := outbox.Open(filepath.Join(dir, "vector.outbox"))
	if err != nil || skipped != 0 {
		t.Fatalf("open outbox: %v (skipped %d)", err, skipped)
	}
	t.Cleanup(func() { _ = box.Close() })
	llmCfg := triples.LLMConfig{BaseURL: llm.URL(), Model: "test-model", MaxRetries: 2, MinBackoff: time.Millisecond, MaxBackoff: 5 * time.Millisecond}
	x, err := triples.NewExtractor(llmCfg)
	if err != nil {
		t.Fatal(err)
	}
	emb := embed.NewHashing(256)
	reg := prometheus.NewRegistry()
	eng, err := memory.New(memory.Config{
		Graph: g, Vectors: vectors, Embedder: emb, Extractor: x, Logger: slog.New(slog.DiscardHandler), Metrics: reg,
		Integrator: triples.NewIntegrator(g, triples.IntegratorOptions{LLM: &llmCfg}),
		Outbox:     box,
		// A short retriever deadline: a cut index costs searches this much.
		Search: memory.SearchOptions{RetrieverTimeout: 500 * time.Millisecond},
		OutboxOptions: memory.OutboxOptions{WriteTimeout: time.Second, ApplyTimeout: 3 * time.Second,
			MinBackoff: 20 * time.Millisecond, MaxBackoff: 500 * time.Millisecond},
	})
	if err != nil {
		t.Fatal(err)
	}
	return &faultEngine{engine: eng, graph: g, box: box, reg: reg}
}

// runOutbox runs the drain loop until the test ends.
func runOutbox(t *testing.T, eng *memory.Engine) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); eng.RunOutbox(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
}

// faultScenario ingests the scenario with the vector index failing from the
// fourth message on (cut), deletes a fact and purges a namespace while it is
// down, checks ingest and search keep working, restores it, waits for the
// outbox to drain, and checks that every record is searchable by vector
// exactly once and that no orphan is left either way. verify is the index
// the final checks read (for Milvus: a separate, Strong-consistency client).
func faultScenario(t *testing.T, f *faultEngine, verify kgmem.VectorIndex, cut func(), restore func()) {
	ctx := context.Background()
	const ns = kgmem.Namespace("fault/a")
	const gone = kgmem.Namespace("fault/purged")
	runOutbox(t, f.engine)

	if _, err := f.engine.Ingest(ctx, memory.IngestRequest{Namespace: gone, ThreadID: "x", Messages: []episodes.Message{msg("g1", "Zed", "I will be purged.", "2024-01-01T00:00:00Z")}}); err != nil {
		t.Fatal(err)
	}
	var carolsFact string
	began := time.Now()
	defer func() { t.Logf("scenario took %s", time.Since(began).Round(time.Millisecond)) }()
	for i, m := range faultMessages {
		if i == 3 {
			t.Logf("healthy ingest: %s", time.Since(began).Round(time.Millisecond))
			cut()
		}
		res, err := f.engine.Ingest(ctx, memory.IngestRequest{Namespace: ns, ThreadID: "t", Extract: true, Messages: []episodes.Message{m}})
		if err != nil {
			t.Fatalf("ingest %s with the vector index %s: %v", m.ID, map[bool]string{true: "down", false: "up"}[i >= 3], err)
		}
		if len(res.Facts) == 0 || !res.Episodes[0].Created {
			t.Fatalf("ingest %s: %+v, want a new episode and its fact", m.ID, res)
		}
		if m.ID == "m3" {
			carolsFact = res.Facts[0].Fact.ID
		}
	}
	if _, err := f.engine.AddFacts(ctx, memory.AddFactsRequest{Namespace: ns, Facts: []kgmem.Triple{
		{Subject: "Gina", SubjectType: "Person", Predicate: "likes", Object: "jazz", ObjectType: "Concept", Text: "Gina likes jazz."}}}); err != nil {
		t.Fatalf("post a fact with the vector index down: %v", err)
	}
	if err := f.engine.DeleteFact(ctx, ns, carolsFact); err != nil {
		t.Fatalf("delete a fact with the vector index down: %v", err)
	}
	if _, err := f.engine.PurgeNamespace(ctx, gone); err != nil {
		t.Fatalf("purge with the vector index down: %v", err)
	}
	if f.engine.OutboxDepth() == 0 {
		t.Fatal("vector writes failed but the outbox is empty")
	}
	if got := gauge(t, f.reg, "kgmem_vector_outbox_depth"); got != float64(f.engine.OutboxDepth()) {
		t.Errorf("kgmem_vector_outbox_depth = %v during the outage, want %d", got, f.engine.OutboxDepth())
	}

	// Search degrades to full-text, with a warning, and stays fast.
	start := time.Now()
	res, err := f.engine.Search(ctx, memory.SearchRequest{Namespace: ns, Query: "Who plays chess?", Reinforce: false})
	took := time.Since(start)
	if err != nil {
		t.Fatalf("search with the vector index down: %v", err)
	}
	if len(res.Warnings) == 0 || !strings.Contains(res.Warnings[0], "vector") {
		t.Errorf("search with the vector index down: warnings %q, want one naming vector recall", res.Warnings)
	}
	if len(res.Facts) == 0 || res.Facts[0].Text != "Erin plays chess." {
		t.Errorf("degraded search: facts %+v, want Erin's fact from full-text", res.Facts)
	}
	if took > 2*time.Second {
		t.Errorf("degraded search took %s, want it bounded by the vector deadline", took)
	}
	t.Logf("degraded search took %s; outbox depth %d", took, f.engine.OutboxDepth())

	t.Logf("before restore: %s", time.Since(began).Round(time.Millisecond))
	restore()
	restored := time.Now()
	polltest.Until(t, 90*time.Second, "the outbox to drain", func() bool { return f.engine.OutboxDepth() == 0 })
	t.Logf("outbox drained %s after the index came back", time.Since(restored).Round(time.Millisecond))
	if got := gauge(t, f.reg, "kgmem_vector_outbox_depth"); got != 0 {
		t.Errorf("kgmem_vector_outbox_depth = %v after the drain, want 0", got)
	}
	checkExactlyOnce(t, f, verify, ns)
	if keys, err := verify.ListIDs(ctx, gone, kgmem.Page{}); err != nil || len(keys) != 0 {
		t.Errorf("purged namespace still holds vectors %v (%v)", keys, err)
	}
	for _, k := range listAll(t, verify, ns) {
		if k.ID == carolsFact {
			t.Errorf("deleted fact %s still has a vector", carolsFact)
		}
	}
}

// gauge reads one gauge from reg.
func gauge(t *testing.T, reg *prometheus.Registry, name string) float64 {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() == name {
			return mf.GetMetric()[0].GetGauge().GetValue()
		}
	}
	t.Fatalf("metric %s not registered", name)
	return 0
}

// listAll pages through every vector id of ns.
func listAll(t *testing.T, idx kgmem.VectorIndex, ns kgmem.Namespace) []kgmem.VectorKey {
	t.Helper()
	var out []kgmem.VectorKey
	after := ""
	for {
		page, err := idx.ListIDs(context.Background(), ns, kgmem.Page{After: after, Limit: 100})
		if err != nil {
			t.Fatalf("ListIDs: %v", err)
		}
		out = append(out, page...)
		if len(page) < 100 {
			return out
		}
		after = page[len(page)-1].ID
	}
}

// checkExactlyOnce asserts that every episode, fact (history included) and
// entity of ns has exactly one vector, found first by a search with its own
// text, that no vector lacks a record, and that the engine's consistency
// check agrees.
func checkExactlyOnce(t *testing.T, f *faultEngine, verify kgmem.VectorIndex, ns kgmem.Namespace) {
	t.Helper()
	ctx := context.Background()
	emb := embed.NewHashing(256)
	type rec struct {
		kind kgmem.Kind
		id   string
		text string
	}
	var recs []rec
	eps, err := f.graph.ListEpisodes(ctx, ns, kgmem.Page{Limit: 1000})
	if err != nil {
		t.Fatal(err)
	}
	for _, ep := range eps {
		recs = append(recs, rec{kgmem.KindEpisode, ep.ID, memory.EpisodeText(ep)})
	}
	facts, err := f.graph.ListFacts(ctx, ns, kgmem.FactFilter{IncludeExpired: true, Page: kgmem.Page{Limit: 1000}})
	if err != nil {
		t.Fatal(err)
	}
	for _, fact := range facts {
		recs = append(recs, rec{kgmem.KindFact, fact.ID, fact.Text})
	}
	ents, err := f.graph.FindEntities(ctx, ns, kgmem.EntityFilter{Page: kgmem.Page{Limit: 1000}})
	if err != nil {
		t.Fatal(err)
	}
	for _, ent := range ents {
		recs = append(recs, rec{kgmem.KindEntity, ent.ID, memory.EntityText(ent)})
	}
	// 6 messages, Gina's posted fact: 6 episodes, 6 facts (Carol's deleted,
	// Alice's kept as history), 13 entities (ML team shared, Gina and jazz).
	if len(eps) != 6 || len(facts) != 6 || len(ents) != 13 {
		t.Fatalf("graph holds %d episodes, %d facts, %d entities; want 6, 6, 13", len(eps), len(facts), len(ents))
	}
	stored := map[string]int{}
	for _, k := range listAll(t, verify, ns) {
		stored[k.ID]++
	}
	want := map[string]bool{}
	for _, r := range recs {
		want[r.id] = true
		if n := stored[r.id]; n != 1 {
			t.Errorf("%s %s (%q) has %d vectors, want exactly 1", r.kind, r.id, r.text, n)
		}
		vec, err := emb.Embed(ctx, []string{r.text})
		if err != nil {
			t.Fatal(err)
		}
		hits, err := verify.Search(ctx, kgmem.VectorQuery{Namespace: ns, Vector: vec[0], Kinds: []kgmem.Kind{r.kind}, K: 50})
		if err != nil {
			t.Fatalf("vector search for %s: %v", r.id, err)
		}
		found := 0
		for _, h := range hits {
			if h.ID == r.id {
				found++
			}
		}
		if found != 1 || len(hits) == 0 || hits[0].Score < 0.999 {
			t.Errorf("vector search for %s %q: found %d times in %v, want once and first", r.kind, r.text, found, hits)
		}
	}
	for id, n := range stored {
		if !want[id] {
			t.Errorf("orphan vector %s (x%d) has no graph record", id, n)
		}
	}
	report, err := f.engine.CheckConsistency(ctx, ns)
	if err != nil {
		t.Fatal(err)
	}
	if !report.Consistent() || report.GraphRecords != len(recs) || report.Vectors != len(recs) || report.Queued != 0 {
		t.Errorf("consistency report %+v, want %d records, %d vectors, nothing missing, orphaned or queued", report, len(recs), len(recs))
	}
}

// TestVectorOutageEmbedded runs the fault scenario on the embedded index
// behind a wrapper that fails every call while "down".
func TestVectorOutageEmbedded(t *testing.T) {
	dir := t.TempDir()
	ix, err := hnsw.Open(context.Background(), filepath.Join(dir, "vectors.db"), 256, hnsw.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ix.Close() })
	flaky := &flakyIndex{VectorIndex: ix}
	f := newFaultEngine(t, dir, flaky, faultScript(t))
	faultScenario(t, f, ix, func() { flaky.down.Store(true) }, func() { flaky.down.Store(false) })
}

// TestOutboxReplaysAfterCrash leaves queued vector writes in the outbox of a
// process that dies (its journal abandoned without a final sync, its vector
// index down the whole time), then starts a new engine on the same data
// directory and checks the drain on start-up brings the vectors level with
// the graph.
func TestOutboxReplaysAfterCrash(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	ix, err := hnsw.Open(ctx, filepath.Join(dir, "vectors.db"), 256, hnsw.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ix.Close() })
	llm := faultScript(t)
	down := &flakyIndex{VectorIndex: ix}
	down.down.Store(true)
	first := newFaultEngine(t, dir, down, llm) // no drain loop: it "crashes" before retrying
	const ns = kgmem.Namespace("fault/a")
	for _, m := range faultMessages[:3] {
		if _, err := first.engine.Ingest(ctx, memory.IngestRequest{Namespace: ns, ThreadID: "t", Extract: true, Messages: []episodes.Message{m}}); err != nil {
			t.Fatal(err)
		}
	}
	queued := first.engine.OutboxDepth()
	first.box.Abandon()
	if n, _ := ix.Count(ctx, ns, ""); n != 0 || queued != 12 {
		t.Fatalf("before the restart: %d vectors stored, %d ops queued; want 0 and 12 (3 episodes, 3 facts, 6 entities)", n, queued)
	}

	second := newFaultEngine(t, dir, ix, llm)
	if got := second.engine.OutboxDepth(); got != queued {
		t.Fatalf("restarted engine found %d queued ops, want the %d the crashed one acknowledged", got, queued)
	}
	runOutbox(t, second.engine)
	polltest.Until(t, 30*time.Second, "the replayed outbox to drain", func() bool { return second.engine.OutboxDepth() == 0 })
	report, err := second.engine.CheckConsistency(ctx, ns)
	if err != nil {
		t.Fatal(err)
	}
	if !report.Consistent() || report.GraphRecords != 12 || report.Vectors != 12 {
		t.Errorf("after the replay: %+v, want 12 records and 12 vectors, consistent", report)
	}
}

// TestOutboxWithoutJournal checks the engine without a configured outbox: a
// failed vector write is retried from memory while a drain loop runs, and
// only logged (nothing queued for ever) when none does.
func TestOutboxWithoutJournal(t *testing.T) {
	for _, tt := range []struct {
		name     string
		draining bool
	}{
		{"drain loop running", true},
		{"no drain loop", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			dir := t.TempDir()
			g, err := sqlite.Open(ctx, filepath.Join(dir, "graph.db"))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = g.Close() })
			ix, err := hnsw.Open(ctx, filepath.Join(dir, "vectors.db"), 256, hnsw.Options{})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = ix.Close() })
			flaky := &flakyIndex{VectorIndex: ix}
			eng, err := memory.New(memory.Config{Graph: g, Vectors: flaky, Embedder: embed.NewHashing(256), Logger: slog.New(slog.DiscardHandler),
				OutboxOptions: memory.OutboxOptions{MinBackoff: 10 * time.Millisecond, MaxBackoff: 50 * time.Millisecond}})
			if err != nil {
				t.Fatal(err)
			}
			if tt.draining {
				runOutbox(t, eng)
				polltest.Until(t, 5*time.Second, "the drain loop to start", eng.OutboxDraining)
			}
			flaky.down.Store(true)
			const ns = kgmem.Namespace("mem/a")
			if _, err := eng.Ingest(ctx, memory.IngestRequest{Namespace: ns, ThreadID: "t", Messages: []episodes.Message{msg("m1", "Ann", "Rockets at dawn.", "2024-01-01T00:00:00Z")}}); err != nil {
				t.Fatal(err)
			}
			if got, want := eng.OutboxDepth(), map[bool]int{true: 1, false: 0}[tt.draining]; got != want {
				t.Fatalf("outbox depth %d after a failed vector write, want %d", got, want)
			}
			flaky.down.Store(false)
			if tt.draining {
				polltest.Until(t, 10*time.Second, "the in-memory outbox to drain", func() bool { return eng.OutboxDepth() == 0 })
			}
			report, err := eng.CheckConsistency(ctx, ns)
			if err != nil {
				t.Fatal(err)
			}
			if report.Consistent() != tt.draining || report.MissingVectors != map[bool]int{true: 0, false: 1}[tt.draining] {
				t.Errorf("consistency %+v; want the vector written only with a drain loop", report)
			}
		})
	}
}

// lostAnswerGraph is a graph store whose next Apply commits and then
// reports the connection lost, as a Neo4j that stalls mid-commit does.
type lostAnswerGraph struct {
	kgmem.GraphStore
	lose atomic.Bool
}

// Apply implements kgmem.GraphStore.
func (g *lostAnswerGraph) Apply(ctx context.Context, cs kgmem.ChangeSet) error {
	if err := g.GraphStore.Apply(ctx, cs); err != nil {
		return err
	}
	if g.lose.CompareAndSwap(true, false) {
		return fmt.Errorf("%w: connection lost before the commit's answer", kgmem.ErrUnavailable)
	}
	return nil
}

// TestOutboxKeepsOpsOfAnUnknownOutcome: a graph write that committed but
// lost its answer fails the request (the client re-posts, and finds its
// messages stored); its vectors must still be written, by the drain loop.
// Before, its journaled ops were settled as if nothing was written, and the
// episode kept no vector for good (server check failed).
func TestOutboxKeepsOpsOfAnUnknownOutcome(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	sq, err := sqlite.Open(ctx, filepath.Join(dir, "graph.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = sq.Close() })
	g := &lostAnswerGraph{GraphStore: sq}
	ix, err := hnsw.Open(ctx, filepath.Join(dir, "vectors.db"), 256, hnsw.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ix.Close() })
	eng, err := memory.New(memory.Config{Graph: g, Vectors: ix, Embedder: embed.NewHashing(256), Logger: slog.New(slog.DiscardHandler),
		OutboxOptions: memory.OutboxOptions{MinBackoff: 10 * time.Millisecond, MaxBackoff: 50 * time.Millisecond}})
	if err != nil {
		t.Fatal(err)
	}
	runOutbox(t, eng)
	polltest.Until(t, 5*time.Second, "the drain loop to start", eng.OutboxDraining)
	const ns = kgmem.Namespace("mem/lost")
	req := memory.IngestRequest{Namespace: ns, ThreadID: "t", Messages: []episodes.Message{msg("m1", "Ann", "Rockets at dawn.", "2024-01-01T00:00:00Z")}}
	g.lose.Store(true)
	if _, err := eng.Ingest(ctx, req); !errors.Is(err, kgmem.ErrUnavailable) {
		t.Fatalf("ingest whose answer was lost: %v, want ErrUnavailable", err)
	}
	res, err := eng.Ingest(ctx, req) // the client's re-post
	if err != nil || len(res.Episodes) != 1 || res.Episodes[0].Created {
		t.Fatalf("re-post: %+v, %v; want the message found stored", res, err)
	}
	polltest.Until(t, 10*time.Second, "the outbox drained", func() bool { return eng.OutboxDepth() == 0 })
	report, err := eng.CheckConsistency(ctx, ns)
	if err != nil {
		t.Fatal(err)
	}
	if !report.Consistent() || report.GraphRecords != 1 || report.Vectors != 1 {
		t.Errorf("after a lost answer and a re-post: %+v, want the episode and its vector", report)
	}
}

// deadlineGraph records whether each change set with facts was applied
// under a deadline.
type deadlineGraph struct {
	kgmem.GraphStore
	factWrites, bounded atomic.Int32
}

func (g *deadlineGraph) Apply(ctx context.Context, cs kgmem.ChangeSet) error {
	if len(cs.Facts) > 0 {
		g.factWrites.Add(1)
		if _, ok := ctx.Deadline(); ok {
			g.bounded.Add(1)
		}
	}
	return g.GraphStore.Apply(ctx, cs)
}

// deadlineOutbox records whether each journaling was bounded by a deadline.
type deadlineOutbox struct {
	kgmem.VectorOutbox
	adds, bounded atomic.Int32
}

func (o *deadlineOutbox) Add(ctx context.Context, ops []kgmem.VectorOp) ([]uint64, error) {
	o.adds.Add(1)
	if _, ok := ctx.Deadline(); ok {
		o.bounded.Add(1)
	}
	return o.VectorOutbox.Add(ctx, ops)
}

// TestWritesOutlivingTheRequestAreBounded: the writes an ingest makes past
// its request's context (the journal of its vector ops, the facts an
// extraction decided) run under a deadline of their own, so that a stalled
// backend cannot hold the namespace's lock, and the call, for ever. Both
// ran without one.
func TestWritesOutlivingTheRequestAreBounded(t *testing.T) {
	llm := faultScript(t)
	vectors := openVectors(t, embed.NewHashing(256))
	f := newFaultEngine(t, t.TempDir(), vectors, llm) // its stores, under an engine of our own
	g := &deadlineGraph{GraphStore: f.graph}
	box := &deadlineOutbox{VectorOutbox: f.box}
	llmCfg := triples.LLMConfig{BaseURL: llm.URL(), Model: "test-model"}
	x, err := triples.NewExtractor(llmCfg)
	if err != nil {
		t.Fatal(err)
	}
	eng, err := memory.New(memory.Config{Graph: g, Vectors: vectors, Embedder: embed.NewHashing(256), Extractor: x,
		Integrator: triples.NewIntegrator(g, triples.IntegratorOptions{LLM: &llmCfg}), Outbox: box, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	// No deadline on the request itself.
	res, err := eng.Ingest(context.Background(), memory.IngestRequest{Namespace: "bounded", ThreadID: "t", Extract: true, Messages: faultMessages[:1]})
	if err != nil || len(res.Facts) == 0 {
		t.Fatalf("Ingest = %+v, %v; want its fact", res, err)
	}
	if n, b := g.factWrites.Load(), g.bounded.Load(); n == 0 || b != n {
		t.Errorf("%d of %d fact writes ran under a deadline; want all", b, n)
	}
	if n, b := box.adds.Load(), box.bounded.Load(); n == 0 || b != n {
		t.Errorf("%d of %d journalings of vector ops ran under a deadline; want all", b, n)
	}
}
