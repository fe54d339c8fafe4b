package memory_test

import (
	"context"
	"log/slog"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
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
	if cfg.Vectors == nil {
		cfg.Vectors = openVectors(t, emb)
	}
	cfg.Graph, cfg.Embedder, cfg.Logger = g, emb, slog.New(slog.DiscardHandler)
	e, err := memory.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// openVectors opens an embedded vector index for emb in a temporary directory.
func openVectors(t *testing.T, emb kgmem.Embedder) kgmem.VectorIndex {
	t.Helper()
	v, err := hnsw.Open(t.Context(), filepath.Join(t.TempDir(), "vectors.db"), emb.Dimension(), hnsw.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = v.Close() })
	return v
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

// TestGraphContributesCandidatesPerResult pins the graph retriever to
// Candidates hits per requested result, like the other retrievers: Hubert
// has twelve facts whose predicate the query names (graph score 2) and one,
// the best text match ("zebra"), whose predicate it does not (score 1,
// graph rank 13). With Limit 6 and Candidates 1 that fact is found by BM25
// and the vectors, and the graph lists six facts, not it.
func TestGraphContributesCandidatesPerResult(t *testing.T) {
	for name, open := range searchBackends(t) {
		t.Run(name, func(t *testing.T) {
			ctx := t.Context()
			ns := kgmem.Namespace("memtest/graphcap")
			e := newSearchEngine(t, open(t), memory.SearchOptions{Candidates: 1})
			triples := []kgmem.Triple{{Subject: "Hubert", SubjectType: "Person", Predicate: "knows", Object: "Zed", ObjectType: "Person", Text: "Hubert knows Zed, a zebra keeper."}}
			for _, who := range []string{"Ann", "Ben", "Cat", "Dan", "Eve", "Fay", "Gus", "Hal", "Ida", "Jo", "Kim", "Lou"} {
				triples = append(triples, kgmem.Triple{Subject: who, SubjectType: "Person", Predicate: "admires", Object: "Hubert", ObjectType: "Person", Text: who + " is a fan of Hubert."})
			}
			if _, err := e.AddFacts(ctx, memory.AddFactsRequest{Namespace: ns, Facts: triples}); err != nil {
				t.Fatal(err)
			}
			res, err := e.Search(ctx, memory.SearchRequest{Namespace: ns, Query: "who admires Hubert, the zebra man?", Include: []kgmem.Kind{kgmem.KindFact}, Limit: 6})
			if err != nil {
				t.Fatal(err)
			}
			zed := slices.IndexFunc(res.Facts, func(f memory.FactResult) bool { return strings.Contains(f.Text, "zebra") })
			if zed < 0 {
				t.Fatalf("facts = %v, want the zebra fact among them", factTexts(res.Facts))
			}
			graphRanks := 0
			for _, f := range res.Facts {
				for _, src := range f.Score.Sources {
					if src.Retriever != memory.RetrieverGraph {
						continue
					}
					graphRanks++
					if src.Rank > 6 {
						t.Errorf("fact %q: graph rank %d, want at most Limit × Candidates = 6", f.Text, src.Rank)
					}
				}
			}
			if graphRanks == 0 {
				t.Errorf("no fact came from the graph: %+v", res.Facts)
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

// stalledGraph is a graph store whose chosen reads hang until their context
// ends, like a backend that stopped answering.
type stalledGraph struct {
	kgmem.GraphStore
	text, thread, hood bool
}

func (g stalledGraph) SearchText(ctx context.Context, ns kgmem.Namespace, q kgmem.TextQuery) ([]kgmem.Hit, error) {
	if g.text {
		<-ctx.Done()
		return nil, ctx.Err()
	}
	return g.GraphStore.SearchText(ctx, ns, q)
}

func (g stalledGraph) ThreadNeighbors(ctx context.Context, ns kgmem.Namespace, q kgmem.ThreadNeighborsQuery) ([]kgmem.ThreadNeighbor, error) {
	if g.thread {
		<-ctx.Done()
		return nil, ctx.Err()
	}
	return g.GraphStore.ThreadNeighbors(ctx, ns, q)
}

func (g stalledGraph) Neighborhood(ctx context.Context, ns kgmem.Namespace, q kgmem.NeighborhoodQuery) (kgmem.Subgraph, error) {
	if g.hood {
		<-ctx.Done()
		return kgmem.Subgraph{}, ctx.Err()
	}
	return g.GraphStore.Neighborhood(ctx, ns, q)
}

func (g stalledGraph) WalkFacts(ctx context.Context, ns kgmem.Namespace, q kgmem.NeighborhoodQuery, visit func(kgmem.WalkedFact)) error {
	if g.hood {
		<-ctx.Done()
		return ctx.Err()
	}
	return g.GraphStore.WalkFacts(ctx, ns, q, visit)
}

// TestRetrieverDeadline checks that a retriever that hangs is dropped at its
// own deadline with a warning naming it, and the others still answer.
func TestRetrieverDeadline(t *testing.T) {
	ns := kgmem.Namespace("memtest/deadline")
	tests := []struct {
		name  string
		stall stalledGraph
		want  string
	}{
		{"full-text", stalledGraph{text: true}, "full-text search unavailable"},
		{"thread", stalledGraph{thread: true}, "thread retriever unavailable"},
		{"graph", stalledGraph{hood: true}, "graph retriever unavailable"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g := searchBackends(t)["sqlite"](t)
			opts := memory.SearchOptions{RetrieverTimeout: 100 * time.Millisecond, Timeout: time.Minute}
			v := openVectors(t, embed.NewHashing(256))
			seed := newSearchEngineWith(t, g, memory.Config{Search: opts, Vectors: v})
			ctx := t.Context()
			if _, err := seed.Ingest(ctx, memory.IngestRequest{Namespace: ns, ThreadID: "t1", Messages: []episodes.Message{
				{ID: "m1", Role: "user", Name: "Ann", Content: "Where did you go hiking?"},
				{ID: "m2", Role: "user", Name: "Ben", Content: "Up the Matterhorn with Alice."},
			}}); err != nil {
				t.Fatal(err)
			}
			if _, err := seed.AddFacts(ctx, memory.AddFactsRequest{Namespace: ns, Facts: []kgmem.Triple{{Subject: "Ben", Predicate: "climbed", Object: "Matterhorn", Text: "Ben climbed the Matterhorn."}}}); err != nil {
				t.Fatal(err)
			}
			stall := tc.stall
			stall.GraphStore = g
			e := newSearchEngineWith(t, stall, memory.Config{Search: opts, Vectors: v})
			start := time.Now()
			res, err := e.Search(ctx, memory.SearchRequest{Namespace: ns, Query: "Where did Ben go hiking, the Matterhorn?"})
			if err != nil {
				t.Fatalf("Search failed instead of degrading: %v", err)
			}
			if took := time.Since(start); took > 30*time.Second {
				t.Errorf("search took %v: it waited for the request deadline, not the retriever's", took)
			}
			if len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0], tc.want) {
				t.Errorf("warnings = %q, want one containing %q", res.Warnings, tc.want)
			}
			if len(res.Episodes) == 0 {
				t.Errorf("no episodes: the other retrievers should still answer")
			}
		})
	}
}

// TestSearchProvenance checks that a returned fact carries the episodes it
// was drawn from, and the context block its date.
func TestSearchProvenance(t *testing.T) {
	ctx := t.Context()
	ns := kgmem.Namespace("memtest/provenance")
	e := newSearchEngine(t, searchBackends(t)["sqlite"](t), memory.SearchOptions{})
	when := time.Date(2024, 3, 1, 9, 30, 0, 0, time.UTC)
	in, err := e.Ingest(ctx, memory.IngestRequest{Namespace: ns, ThreadID: "t1", Messages: []episodes.Message{
		{ID: "m1", Role: "user", Name: "Bob", Content: "Since March I lead the ML team.", Timestamp: when},
		{ID: "m2", Role: "user", Name: "Ann", Content: "Congratulations!", Timestamp: when},
	}})
	if err != nil {
		t.Fatal(err)
	}
	src := in.Episodes[0].ID
	if _, err := e.AddFacts(ctx, memory.AddFactsRequest{Namespace: ns, Facts: []kgmem.Triple{
		{Subject: "Bob", Predicate: "leads", Object: "ML team", Text: "Bob leads the ML team.", ValidAt: when, EpisodeIDs: []string{src}},
	}}); err != nil {
		t.Fatal(err)
	}
	res, err := e.Search(ctx, memory.SearchRequest{Namespace: ns, Query: "Who leads the ML team?"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Facts) != 1 {
		t.Fatalf("facts = %v, want Bob's", factTexts(res.Facts))
	}
	prov := res.Facts[0].Provenance
	if len(prov) != 1 || prov[0].ID != src || prov[0].Content != "Since March I lead the ML team." {
		t.Errorf("provenance = %+v, want the episode %s", prov, src)
	}
	if !strings.Contains(res.Context, "- Bob leads the ML team. (since 2024-03-01)") ||
		!strings.Contains(res.Context, "[2024-03-01 09:30] Bob: Since March I lead the ML team.") {
		t.Errorf("context = %q, want the fact and its message with dates", res.Context)
	}
}

// TestThreadNeighbours pins the thread retriever: the reply to the message
// that matches the question holds the answer but none of its words, and is
// found as that message's neighbour; without the retriever it is not.
func TestThreadNeighbours(t *testing.T) {
	for name, open := range searchBackends(t) {
		t.Run(name, func(t *testing.T) {
			ctx := t.Context()
			ns := kgmem.Namespace("memtest/thread")
			g := open(t)
			v := openVectors(t, embed.NewHashing(256))
			// The fusion weights of the server with the lexical hash
			// embedder (a TextWeight left at 0 would turn BM25 off).
			opts := memory.SearchOptions{VectorWeight: 0.01, TextWeight: 1}
			e := newSearchEngineWith(t, g, memory.Config{Vectors: v, Search: opts})
			day := time.Date(2023, 5, 8, 13, 56, 0, 0, time.UTC)
			msgs := []episodes.Message{
				{ID: "1", Name: "Ann", Content: "Hi Ben, long time no see!"},
				{ID: "2", Name: "Ben", Content: "Hey Ann! Busy weeks."},
				{ID: "3", Name: "Ann", Content: "What did you research last month?"},
				{ID: "4", Name: "Ben", Content: "Adoption agencies, it has been a dream of mine."},
				{ID: "5", Name: "Ann", Content: "That is wonderful."},
				{ID: "6", Name: "Ann", Content: "I painted a lake at sunrise."},
				{ID: "7", Name: "Ben", Content: "Lovely colours in that painting."},
			}
			for i := range msgs {
				msgs[i].Role, msgs[i].Timestamp = "user", day
			}
			if _, err := e.Ingest(ctx, memory.IngestRequest{Namespace: ns, ThreadID: "session_1", Messages: msgs}); err != nil {
				t.Fatal(err)
			}
			req := memory.SearchRequest{Namespace: ns, Query: "What was researched last month?", Include: []kgmem.Kind{kgmem.KindEpisode}, Limit: 3}
			res, err := e.Search(ctx, req)
			if err != nil {
				t.Fatal(err)
			}
			// The question (message 3) leads; its two neighbours follow,
			// the thread retriever scoring both alike.
			i := slices.IndexFunc(res.Episodes, func(ep memory.EpisodeResult) bool { return ep.MessageID == "4" })
			if len(res.Episodes) == 0 || res.Episodes[0].MessageID != "3" || i < 0 {
				t.Fatalf("episodes = %v, want the question (message 3) first and its reply (message 4) among the three", episodeIDs(res.Episodes))
			}
			if !slices.ContainsFunc(res.Episodes[i].Score.Sources, func(s memory.SourceScore) bool { return s.Retriever == memory.RetrieverThread }) {
				t.Errorf("sources of the reply = %+v, want thread", res.Episodes[i].Score.Sources)
			}
			opts.ThreadWeight = -1
			without, err := newSearchEngineWith(t, g, memory.Config{Vectors: v, Search: opts}).Search(ctx, req)
			if err != nil {
				t.Fatal(err)
			}
			// Without it, the reply can only fill up the list from vector
			// recall (the tiny thread has seven messages), far below the hit.
			if j := slices.IndexFunc(without.Episodes, func(ep memory.EpisodeResult) bool { return ep.MessageID == "4" }); j >= 0 {
				got := without.Episodes[j].Score
				if len(got.Sources) != 1 || got.Sources[0].Retriever != memory.RetrieverVector || got.Relevance*10 > res.Episodes[i].Score.Relevance {
					t.Errorf("without the thread retriever the reply scores %+v, want vector fill only, a tenth of %v", got, res.Episodes[i].Score.Relevance)
				}
			}
		})
	}
}

// TestThreadSkipsAssistantTurns: between a person and an assistant, the
// thread retriever neither expands to the assistant's reply, nor from it,
// nor across it to the person's next turn; the same thread said by two
// people keeps both neighbours.
func TestThreadSkipsAssistantTurns(t *testing.T) {
	for name, open := range searchBackends(t) {
		t.Run(name, func(t *testing.T) {
			ctx := t.Context()
			g := open(t)
			v := openVectors(t, embed.NewHashing(256))
			e := newSearchEngineWith(t, g, memory.Config{Vectors: v, Search: memory.SearchOptions{VectorWeight: 0.01, TextWeight: 1, ThreadWindow: 2}})
			day := time.Date(2023, 5, 8, 13, 56, 0, 0, time.UTC)
			turns := []string{
				"I am planning a trip to Kyoto in the spring.",
				"Here are ten things to see and eat, in order of distance from the station.",
				"I also started learning the cello.",
				"Practising twenty minutes a day helps beginners most.",
			}
			req := memory.SearchRequest{Query: "Where is my trip to?", Include: []kgmem.Kind{kgmem.KindEpisode}, Limit: 4}
			for _, tc := range []struct {
				ns            kgmem.Namespace
				first, second string // the roles of even and odd turns
				wantThreaded  bool   // messages 2 and 3 found by the thread retriever
			}{
				{"memtest/thread-assistant", episodes.RoleUser, episodes.RoleAssistant, false},
				{"memtest/thread-people", episodes.RoleUser, episodes.RoleUser, true},
			} {
				msgs := make([]episodes.Message, len(turns))
				for i, c := range turns {
					msgs[i] = episodes.Message{ID: strconv.Itoa(i + 1), Role: tc.first, Content: c, Timestamp: day}
					if i%2 == 1 {
						msgs[i].Role = tc.second
					}
				}
				if _, err := e.Ingest(ctx, memory.IngestRequest{Namespace: tc.ns, ThreadID: "s1", Messages: msgs}); err != nil {
					t.Fatal(err)
				}
				req.Namespace = tc.ns
				res, err := e.Search(ctx, req)
				if err != nil {
					t.Fatal(err)
				}
				if len(res.Episodes) == 0 || res.Episodes[0].MessageID != "1" {
					t.Fatalf("%s: episodes = %v, want the trip (message 1) first", tc.ns, episodeIDs(res.Episodes))
				}
				for _, id := range []string{"2", "3"} {
					threaded := slices.ContainsFunc(res.Episodes, func(ep memory.EpisodeResult) bool {
						return ep.MessageID == id && slices.ContainsFunc(ep.Score.Sources, func(s memory.SourceScore) bool { return s.Retriever == memory.RetrieverThread })
					})
					if threaded != tc.wantThreaded {
						t.Errorf("%s: message %s found by the thread retriever = %v, want %v; episodes %v", tc.ns, id, threaded, tc.wantThreaded, episodeIDs(res.Episodes))
					}
				}
			}
		})
	}
}

// episodeIDs lists the message ids of ranked episodes.
func episodeIDs(eps []memory.EpisodeResult) []string {
	out := make([]string, len(eps))
	for i, ep := range eps {
		out[i] = ep.MessageID
	}
	return out
}
