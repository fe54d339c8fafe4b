package memory

import (
	"log/slog"
	"path/filepath"
	"testing"
	"time"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/embed"
	"github.com/kgmem/kgmem/episodes"
	"github.com/kgmem/kgmem/graph/sqlite"
	"github.com/kgmem/kgmem/vector/hnsw"
)

// TestRetrievers runs each retriever alone, through the retriever
// interface, on one small namespace of the embedded backend: what each
// finds first, and that it finds nothing it should not.
func TestRetrievers(t *testing.T) {
	ctx := t.Context()
	e, g, ns := newSmallEngine(t)
	episodeID := func(msg string) string {
		eps, err := g.ListEpisodes(ctx, ns, kgmem.Page{Limit: 10})
		if err != nil {
			t.Fatal(err)
		}
		for _, ep := range eps {
			if ep.MessageID == msg {
				return ep.ID
			}
		}
		t.Fatalf("no episode %s", msg)
		return ""
	}
	factID := func(text string) string {
		fs, err := g.ListFacts(ctx, ns, kgmem.FactFilter{IncludeExpired: true})
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range fs {
			if f.Text == text {
				return f.ID
			}
		}
		t.Fatalf("no fact %q", text)
		return ""
	}
	ann, err := e.linkEntities(ctx, ns, "Ann")
	if err != nil || len(ann) != 1 {
		t.Fatalf("linking Ann: %v %v", ann, err)
	}
	tests := []struct {
		name  string
		r     retriever
		query string
		cands map[kgmem.Kind][]*fused // the fused candidates a second-phase retriever starts from
		kinds []kgmem.Kind
		first string // the id expected first
		also  string // another id expected among the hits
	}{
		{"vector", vectorRetriever{e}, "baked bread", nil, []kgmem.Kind{kgmem.KindEpisode}, episodeID("m3"), ""},
		{"bm25", textRetriever{e}, "what did Ann research?", nil, []kgmem.Kind{kgmem.KindEpisode}, episodeID("m1"), ""},
		{"bm25 facts", textRetriever{e}, "who builds rockets", nil, []kgmem.Kind{kgmem.KindFact}, factID("Falcon builds Rocket."), ""},
		{"thread: the next turn", threadRetriever{e}, "research",
			map[kgmem.Kind][]*fused{kgmem.KindEpisode: {{kind: kgmem.KindEpisode, id: episodeID("m1")}}}, []kgmem.Kind{kgmem.KindEpisode}, episodeID("m2"), ""},
		{"graph: two hops from Ann", graphRetriever{e}, "what does the team Ann manages build?", nil, []kgmem.Kind{kgmem.KindFact}, factID("Ann manages Falcon."), factID("Falcon builds Rocket.")},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			st := &searchState{req: SearchRequest{Namespace: ns, Query: tc.query, Limit: 10, Include: tc.kinds},
				opts: e.search, query: parseQuery(tc.query), cands: tc.cands, linked: ann}
			hits, err := tc.r.Retrieve(ctx, st)
			if err != nil {
				t.Fatal(err)
			}
			if len(hits) == 0 || hits[0].ID != tc.first {
				t.Fatalf("%s: hits %+v, want %s first", tc.r.Name(), hits, tc.first)
			}
			found := tc.also == ""
			for _, h := range hits {
				found = found || h.ID == tc.also
				if h.Kind != tc.kinds[0] {
					t.Errorf("%s returned a %s hit for a %v search", tc.r.Name(), h.Kind, tc.kinds)
				}
			}
			if !found {
				t.Errorf("%s: hits %+v lack %s", tc.r.Name(), hits, tc.also)
			}
		})
	}
}

// newSmallEngine opens an engine on the embedded backends in a temporary
// directory, with one namespace holding three episodes of two speakers and
// two facts.
func newSmallEngine(t *testing.T) (*Engine, kgmem.GraphStore, kgmem.Namespace) {
	t.Helper()
	ctx := t.Context()
	dir := t.TempDir()
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
	e, err := New(Config{Graph: g, Vectors: v, Embedder: emb, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	ns := kgmem.Namespace("memtest/retrievers")
	at := time.Date(2024, 5, 1, 10, 0, 0, 0, time.UTC)
	if _, err := e.Ingest(ctx, IngestRequest{Namespace: ns, ThreadID: "t", Messages: []episodes.Message{
		{ID: "m1", Role: "user", Name: "Ann", Content: "What did you research last week?", Timestamp: at},
		{ID: "m2", Role: "user", Name: "Ben", Content: "Adoption agencies, mostly.", Timestamp: at.Add(time.Minute)},
		{ID: "m3", Role: "user", Name: "Ann", Content: "I baked bread today.", Timestamp: at.Add(2 * time.Minute)},
	}}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.AddFacts(ctx, AddFactsRequest{Namespace: ns, Facts: []kgmem.Triple{
		{Subject: "Ann", Predicate: "manages", Object: "Falcon", Text: "Ann manages Falcon."},
		{Subject: "Falcon", Predicate: "builds", Object: "Rocket", Text: "Falcon builds Rocket."},
	}}); err != nil {
		t.Fatal(err)
	}
	return e, g, ns
}
