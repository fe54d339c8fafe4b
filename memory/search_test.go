package memory_test

import (
	"log/slog"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/embed"
	"github.com/kgmem/kgmem/graph/neo4j"
	"github.com/kgmem/kgmem/graph/sqlite"
	"github.com/kgmem/kgmem/internal/llmtest"
	"github.com/kgmem/kgmem/internal/testenv"
	"github.com/kgmem/kgmem/memory"
	"github.com/kgmem/kgmem/rerank"
	"github.com/kgmem/kgmem/vector/hnsw"
)

// searchBackends opens a graph store per available backend: the embedded
// SQLite store always, Neo4j when KGMEM_TEST_NEO4J_URI is set (required in CI).
func searchBackends(t *testing.T) map[string]func(t *testing.T) kgmem.GraphStore {
	backends := map[string]func(t *testing.T) kgmem.GraphStore{
		"sqlite": func(t *testing.T) kgmem.GraphStore {
			g, err := sqlite.Open(t.Context(), filepath.Join(t.TempDir(), "graph.db"))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = g.Close() })
			return g
		},
	}
	if uri := testenv.Neo4jURIIfAvailable(t); uri != "" {
		backends["neo4j"] = func(t *testing.T) kgmem.GraphStore {
			g, err := neo4j.Open(t.Context(), neo4j.Config{URI: uri, Scope: "memsearch" + strings.ReplaceAll(kgmem.NewID("t"), "_", "")})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = g.Close() })
			return g
		}
	}
	return backends
}

// newSearchEngine builds an engine over g with an embedded vector index.
func newSearchEngine(t *testing.T, g kgmem.GraphStore, opts memory.SearchOptions) *memory.Engine {
	t.Helper()
	return newSearchEngineWith(t, g, memory.Config{Search: opts})
}

// newSearchEngineWith builds an engine over g with an embedded vector index
// and cfg's other settings.
func newSearchEngineWith(t *testing.T, g kgmem.GraphStore, cfg memory.Config) *memory.Engine {
	t.Helper()
	emb := embed.NewHashing(256)
	v, err := hnsw.Open(t.Context(), filepath.Join(t.TempDir(), "vectors.db"), emb.Dimension(), hnsw.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = v.Close() })
	cfg.Graph, cfg.Vectors, cfg.Embedder, cfg.Logger = g, v, emb, slog.New(slog.DiscardHandler)
	e, err := memory.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// TestTwoHopGraphExpansion pins graph expansion: "who leads the team Alice
// used to manage?" names Alice but no current fact shares a word with it;
// the answer is two hops away, through Alice's invalidated fact.
func TestTwoHopGraphExpansion(t *testing.T) {
	for name, open := range searchBackends(t) {
		t.Run(name, func(t *testing.T) {
			ctx := t.Context()
			ns := kgmem.Namespace("memtest/twohop")
			g := open(t)
			withGraph := newSearchEngine(t, g, memory.SearchOptions{})
			day := func(m int) time.Time { return time.Date(2024, time.Month(m), 1, 0, 0, 0, 0, time.UTC) }
			triples := []kgmem.Triple{
				{Subject: "Alice", SubjectType: "Person", Predicate: "manages", Object: "Falcon", ObjectType: "Team", Text: "Alice was in charge of Falcon.", ValidAt: day(1)},
				{Subject: "Bob", SubjectType: "Person", Predicate: "leads", Object: "Falcon", ObjectType: "Team", Text: "Bob runs Falcon.", ValidAt: day(3)},
				{Subject: "Carol", SubjectType: "Person", Predicate: "leads", Object: "Orion", ObjectType: "Team", Text: "Carol runs Orion.", ValidAt: day(2)},
				{Subject: "Dave", SubjectType: "Person", Predicate: "coaches", Object: "Vega", ObjectType: "Team", Text: "Dave coaches Vega.", ValidAt: day(2)},
				{Subject: "Erin", SubjectType: "Person", Predicate: "plays", Object: "chess", ObjectType: "Game", Text: "Erin plays chess.", ValidAt: day(2)},
				{Subject: "Frank", SubjectType: "Person", Predicate: "lives_in", Object: "Oslo", ObjectType: "City", Text: "Frank runs errands in Oslo.", ValidAt: day(2)},
				{Subject: "Bob", SubjectType: "Person", Predicate: "likes", Object: "jazz", ObjectType: "Genre", Text: "Bob loves jazz.", ValidAt: day(2)},
			}
			if _, err := withGraph.AddFacts(ctx, memory.AddFactsRequest{Namespace: ns, Facts: triples}); err != nil {
				t.Fatal(err)
			}
			query := "Who leads the team Alice used to manage?"
			search := func(e *memory.Engine) memory.SearchResult {
				t.Helper()
				res, err := e.Search(ctx, memory.SearchRequest{Namespace: ns, Query: query, Include: []kgmem.Kind{kgmem.KindFact}, Limit: 3})
				if err != nil {
					t.Fatal(err)
				}
				if len(res.Warnings) > 0 {
					t.Fatalf("warnings: %v", res.Warnings)
				}
				return res
			}
			res := search(withGraph)
			if len(res.Facts) == 0 || res.Facts[0].Text != "Bob runs Falcon." {
				t.Fatalf("top fact = %v, want Bob runs Falcon.", factTexts(res.Facts))
			}
			top := res.Facts[0]
			if i := slices.IndexFunc(top.Score.Sources, func(s memory.SourceScore) bool { return s.Retriever == memory.RetrieverGraph }); i < 0 || top.Score.Sources[i].Rank != 1 {
				t.Errorf("sources of the answer = %+v, want graph at rank 1", top.Score.Sources)
			}
			for _, f := range res.Facts {
				if f.Status != "current" || slices.ContainsFunc(f.Score.Sources, func(s memory.SourceScore) bool { return s.Retriever == memory.RetrieverBM25 }) {
					t.Errorf("fact %q: status %s, sources %+v; want current and no text match", f.Text, f.Status, f.Score.Sources)
				}
			}
			// The result graph draws the answer: Bob → Falcon.
			nodes := map[string]string{}
			for _, n := range res.Graph.Nodes {
				nodes[n.ID] = n.Name
			}
			if !slices.ContainsFunc(res.Graph.Edges, func(e memory.GraphEdge) bool {
				return e.ID == top.ID && nodes[e.Source] == "Bob" && nodes[e.Target] == "Falcon" && e.Predicate == "leads"
			}) {
				t.Errorf("graph = %+v, want the edge Bob -leads-> Falcon with both nodes", res.Graph)
			}
			if !strings.Contains(res.Context, "- Bob runs Falcon. (since 2024-03-01)") {
				t.Errorf("context = %q, want the answer with its date", res.Context)
			}
			// Without graph expansion nothing leads to Bob's fact.
			without := search(newSearchEngine(t, g, memory.SearchOptions{GraphWeight: -1}))
			if len(without.Facts) > 0 && without.Facts[0].ID == top.ID {
				t.Errorf("without graph expansion the top fact is still the answer: %v", factTexts(without.Facts))
			}
		})
	}
}

// factTexts lists the texts of ranked facts.
func factTexts(fs []memory.FactResult) []string {
	out := make([]string, len(fs))
	for i, f := range fs {
		out[i] = f.Text
	}
	return out
}

// TestReranker checks the reranker hook: it reorders the candidates and says
// so in the breakdown, and when it fails the fused order stands with a warning.
func TestReranker(t *testing.T) {
	ns := kgmem.Namespace("memtest/rerank")
	triples := []kgmem.Triple{
		{Subject: "Bob", Predicate: "likes", Object: "jazz", Text: "Bob likes jazz and plays the ML team's piano."},
		{Subject: "Bob", Predicate: "leads", Object: "ML team", Text: "Bob leads the ML team."},
		{Subject: "Carol", Predicate: "leads", Object: "Orion", Text: "Carol leads Orion, not the ML team."},
	}
	query := "Who leads the ML team?"
	tests := []struct {
		name    string
		reply   llmtest.Reply
		warning bool
	}{
		{"reorders", llmtest.Reply{}, false},
		{"fails over to the fused order", llmtest.Status(503), true},
		{"late", llmtest.Reply{Delay: time.Minute}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g := searchBackends(t)["sqlite"](t)
			plain := newSearchEngine(t, g, memory.SearchOptions{})
			if _, err := plain.AddFacts(t.Context(), memory.AddFactsRequest{Namespace: ns, Facts: triples}); err != nil {
				t.Fatal(err)
			}
			srv := llmtest.New(t, llmtest.WithRerankReply(tc.reply))
			rr, err := rerank.New(rerank.Config{BaseURL: srv.URL(), Model: "rerank-test"})
			if err != nil {
				t.Fatal(err)
			}
			reranked := newSearchEngineWith(t, g, memory.Config{Search: memory.SearchOptions{RerankTimeout: 100 * time.Millisecond}, Reranker: rr})
			req := memory.SearchRequest{Namespace: ns, Query: query, Include: []kgmem.Kind{kgmem.KindFact}, Limit: 2}
			want, err := plain.Search(t.Context(), req)
			if err != nil {
				t.Fatal(err)
			}
			got, err := reranked.Search(t.Context(), req)
			if err != nil {
				t.Fatal(err)
			}
			if len(got.Facts) != 2 {
				t.Fatalf("facts = %v, want 2 (the limit)", factTexts(got.Facts))
			}
			if tc.warning {
				if len(got.Warnings) != 1 || !strings.Contains(got.Warnings[0], "rerank") {
					t.Errorf("warnings = %q, want one about the reranker", got.Warnings)
				}
				if !slices.Equal(factTexts(got.Facts), factTexts(want.Facts)) {
					t.Errorf("facts = %v, want the fused order %v", factTexts(got.Facts), factTexts(want.Facts))
				}
				return
			}
			if len(got.Warnings) > 0 {
				t.Fatalf("warnings: %v", got.Warnings)
			}
			for i, f := range got.Facts {
				if i > 0 && llmtest.RerankScore(query, f.Text) > llmtest.RerankScore(query, got.Facts[i-1].Text) {
					t.Errorf("facts %v not in the reranker's order", factTexts(got.Facts))
				}
				src := f.Score.Sources[len(f.Score.Sources)-1]
				if src.Retriever != memory.RetrieverRerank || src.Rank != i+1 || src.Score != llmtest.RerankScore(query, f.Text) {
					t.Errorf("fact %q: last source %+v, want rerank rank %d", f.Text, src, i+1)
				}
			}
		})
	}
}
