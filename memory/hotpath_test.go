package memory_test

import (
	"context"
	"log/slog"
	"net/http"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/embed"
	"github.com/kgmem/kgmem/episodes"
	"github.com/kgmem/kgmem/graph/neo4j"
	"github.com/kgmem/kgmem/graph/sqlite"
	"github.com/kgmem/kgmem/internal/llmtest"
	"github.com/kgmem/kgmem/internal/testenv"
	"github.com/kgmem/kgmem/memory"
	"github.com/kgmem/kgmem/triples"
	"github.com/kgmem/kgmem/vector/hnsw"
	"github.com/kgmem/kgmem/vector/milvus"
	openai "github.com/sashabaranov/go-openai"
)

// backendPair opens a graph store and a vector index of one backend pair.
type backendPair struct {
	name string
	open func(t *testing.T, dim int) (kgmem.GraphStore, kgmem.VectorIndex)
}

// backendPairs lists the embedded pair, and Neo4j + Milvus when both are
// configured (required in CI). Stores opened on shared servers are purged
// by the engine's caller (see purgeOnCleanup).
func backendPairs(t *testing.T) []backendPair {
	out := []backendPair{{name: "sqlite+hnsw", open: func(t *testing.T, dim int) (kgmem.GraphStore, kgmem.VectorIndex) {
		dir := t.TempDir()
		g, err := sqlite.Open(t.Context(), filepath.Join(dir, "graph.db"))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = g.Close() })
		v, err := hnsw.Open(t.Context(), filepath.Join(dir, "vectors.db"), dim, hnsw.Options{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = v.Close() })
		return g, v
	}}}
	uri, addr := testenv.Neo4jURIIfAvailable(t), testenv.MilvusAddrIfAvailable(t)
	if uri != "" && addr != "" {
		out = append(out, backendPair{name: "neo4j+milvus", open: func(t *testing.T, dim int) (kgmem.GraphStore, kgmem.VectorIndex) {
			suffix := strings.ReplaceAll(kgmem.NewID("t"), "_", "")
			g, err := neo4j.Open(t.Context(), neo4j.Config{URI: uri, Scope: "hot" + suffix})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = g.Close() })
			v, err := milvus.Open(t.Context(), milvus.Config{Address: addr, Collection: "hot_" + suffix, Dim: dim, ConsistencyLevel: milvus.Strong})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() {
				_ = v.Drop(context.Background())
				_ = v.Close()
			})
			return g, v
		}})
	}
	return out
}

// purgeOnCleanup leaves no test data on shared servers.
func purgeOnCleanup(t *testing.T, eng *memory.Engine, nss ...kgmem.Namespace) {
	t.Cleanup(func() {
		for _, ns := range nss {
			_, _ = eng.PurgeNamespace(context.Background(), ns)
		}
	})
}

// switchableLLM answers extraction calls with bad, until healthy is set,
// then with good.
type switchableLLM struct {
	healthy atomic.Bool
	bad     llmtest.Reply
	good    llmtest.Reply
}

func (s *switchableLLM) respond(openai.ChatCompletionRequest) (llmtest.Reply, error) {
	if s.healthy.Load() {
		return s.good, nil
	}
	return s.bad, nil
}

// TestSlowExtractionKeepsMessages pins that a synchronous ingest with
// extraction stores its messages before any LLM call: when the LLM work
// outlasts the request (a slow model, 429 with Retry-After, 500 after a
// delay), the messages are listed and searchable at once, the extraction is
// reported deferred, re-posting them answers without error, and the
// follow-up extraction (ExtractKnown, what the background job runs) either
// adds the facts or fails with the episodes kept.
func TestSlowExtractionKeepsMessages(t *testing.T) {
	// Long enough for a write to Neo4j and Milvus on a loaded machine.
	const requestTimeout = 2 * time.Second
	extraction := llmtest.Text(llmtest.ExtractionJSON(
		[]llmtest.Entity{{Name: "Ann", Type: "Person"}, {Name: "Lisbon", Type: "Place"}},
		[]llmtest.Fact{{Subject: "Ann", Predicate: "lives in", Object: "Lisbon", Text: "Ann lives in Lisbon."}}))
	cases := []struct {
		name string
		bad  llmtest.Reply
		// recovers: the follow-up meets a healthy model (else it keeps failing).
		recovers bool
	}{
		{"slow model", llmtest.Reply{Content: extraction.Content, Delay: time.Minute}, true},
		{"429 with Retry-After", llmtest.RateLimited(30 * time.Second), true},
		{"500 after a delay", llmtest.Reply{Status: http.StatusInternalServerError, Delay: 700 * time.Millisecond}, true},
		{"500 after a delay, never recovering", llmtest.Reply{Status: http.StatusInternalServerError, Delay: 700 * time.Millisecond}, false},
	}
	for _, pair := range backendPairs(t) {
		t.Run(pair.name, func(t *testing.T) {
			for _, tc := range cases {
				t.Run(tc.name, func(t *testing.T) {
					sw := &switchableLLM{bad: tc.bad, good: extraction}
					if !tc.recovers {
						sw.good = llmtest.Status(http.StatusInternalServerError)
					}
					llm := llmtest.New(t, llmtest.WithResponder(sw.respond))
					emb := embed.NewHashing(256)
					g, v := pair.open(t, emb.Dimension())
					llmCfg := triples.LLMConfig{BaseURL: llm.URL(), Model: "test-model", MaxRetries: 5, MinBackoff: time.Millisecond, MaxBackoff: time.Minute}
					x, err := triples.NewExtractor(llmCfg)
					if err != nil {
						t.Fatal(err)
					}
					eng, err := memory.New(memory.Config{Graph: g, Vectors: v, Embedder: emb, Extractor: x, Logger: slog.New(slog.DiscardHandler),
						Integrator: triples.NewIntegrator(g, triples.IntegratorOptions{}),
						Search:     memory.SearchOptions{Timeout: time.Minute, RetrieverTimeout: time.Minute}})
					if err != nil {
						t.Fatal(err)
					}
					const ns = kgmem.Namespace("hotpath")
					purgeOnCleanup(t, eng, ns)
					req := memory.IngestRequest{Namespace: ns, ThreadID: "t", Extract: true, Messages: []episodes.Message{
						{ID: "m1", Name: "Ann", Role: "user", Content: "I moved to Lisbon last month.", Timestamp: time.Date(2024, 5, 1, 10, 0, 0, 0, time.UTC)},
						{ID: "m2", Name: "Ann", Role: "user", Content: "The tram up the hill is my favourite.", Timestamp: time.Date(2024, 5, 1, 10, 1, 0, 0, time.UTC)},
					}}
					ctx, cancel := context.WithTimeout(t.Context(), requestTimeout)
					res, err := eng.Ingest(ctx, req)
					cancel()
					if err != nil {
						t.Fatalf("ingest with a slow LLM failed: %v", err)
					}
					if len(res.Episodes) != 2 || !res.Episodes[0].Created || !res.Episodes[1].Created {
						t.Fatalf("episodes %+v: want both created", res.Episodes)
					}
					if len(res.Deferred) != 2 || len(res.Warnings) == 0 || len(res.Facts) != 0 {
						t.Fatalf("deferred %v, warnings %v, facts %v: want both episodes deferred with a warning", res.Deferred, res.Warnings, res.Facts)
					}
					assertStoredAndSearchable(t, eng, ns)

					// Re-posting the same messages does not fail the same way:
					// they are known, nothing is extracted again.
					calls := llm.ChatCalls()
					ctx, cancel = context.WithTimeout(t.Context(), requestTimeout)
					again, err := eng.Ingest(ctx, req)
					cancel()
					if err != nil || again.Episodes[0].Created || len(again.Deferred) != 0 || llm.ChatCalls() != calls {
						t.Fatalf("re-post: err %v, %+v, %d LLM calls", err, again, llm.ChatCalls()-calls)
					}

					// The follow-up the background job runs.
					sw.healthy.Store(true)
					follow := req
					follow.ExtractKnown = true
					done, err := eng.Ingest(t.Context(), follow)
					if err != nil {
						t.Fatalf("follow-up extraction: %v", err)
					}
					if len(done.Deferred) != 0 || done.Episodes[0].Created {
						t.Fatalf("follow-up %+v: want the stored episodes extracted, nothing deferred", done)
					}
					facts, err := eng.ListFacts(t.Context(), memory.ListFactsRequest{Namespace: ns})
					if err != nil {
						t.Fatal(err)
					}
					if tc.recovers {
						if countOps(done.Facts, kgmem.OpAdded) != 1 || len(facts) != 1 || facts[0].Text != "Ann lives in Lisbon." {
							t.Fatalf("follow-up facts %+v, stored %+v: want Ann's fact", done.Facts, facts)
						}
					} else if len(facts) != 0 || len(done.Warnings) == 0 {
						t.Fatalf("failed follow-up: facts %+v, warnings %v: want none and a warning", facts, done.Warnings)
					}
					assertStoredAndSearchable(t, eng, ns)
				})
			}
		})
	}
}

// assertStoredAndSearchable checks that ns lists both messages of
// TestSlowExtractionKeepsMessages and that search finds them.
func assertStoredAndSearchable(t *testing.T, eng *memory.Engine, ns kgmem.Namespace) {
	t.Helper()
	eps, err := eng.ListEpisodes(t.Context(), memory.ListEpisodesRequest{Namespace: ns})
	if err != nil {
		t.Fatal(err)
	}
	if len(eps) != 2 {
		t.Fatalf("%d episodes listed, want 2: %+v", len(eps), eps)
	}
	for _, q := range []string{"Lisbon", "tram up the hill"} {
		found, err := eng.Search(t.Context(), memory.SearchRequest{Namespace: ns, Query: q, Include: []kgmem.Kind{kgmem.KindEpisode}, Limit: 1})
		if err != nil {
			t.Fatal(err)
		}
		if len(found.Episodes) != 1 || !strings.Contains(found.Episodes[0].Content, strings.Fields(q)[0]) {
			t.Fatalf("search %q: %+v, want its message", q, found.Episodes)
		}
	}
}
