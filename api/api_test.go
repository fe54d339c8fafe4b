package api_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/api"
	"github.com/kgmem/kgmem/embed"
	"github.com/kgmem/kgmem/graph/neo4j"
	"github.com/kgmem/kgmem/graph/sqlite"
	"github.com/kgmem/kgmem/internal/testenv"
	"github.com/kgmem/kgmem/memory"
	"github.com/kgmem/kgmem/vector/hnsw"
	"github.com/kgmem/kgmem/vector/milvus"
)

// testServer is the API over the real embedded backends in a temporary directory.
type testServer struct {
	t      *testing.T
	url    string
	graph  kgmem.GraphStore
	engine *memory.Engine
}

// backend opens a graph store and a vector index for one test server.
type backend struct {
	name    string
	graph   func(t *testing.T) kgmem.GraphStore
	vectors func(t *testing.T, dim int) kgmem.VectorIndex
}

// backends lists every backend combination available: the embedded default
// always, and Neo4j and Milvus when scripts/test.sh started them (required in CI).
func backends(t *testing.T) []backend {
	t.Helper()
	ctx := context.Background()
	sqliteGraph := func(t *testing.T) kgmem.GraphStore {
		g, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "graph.db"))
		if err != nil {
			t.Fatal(err)
		}
		return g
	}
	hnswVectors := func(t *testing.T, dim int) kgmem.VectorIndex {
		v, err := hnsw.Open(ctx, filepath.Join(t.TempDir(), "vectors.db"), dim, hnsw.Options{})
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	graph, vectors, names := sqliteGraph, hnswVectors, []string{"sqlite", "hnsw"}
	if uri := testenv.Neo4jURIIfAvailable(t); uri != "" {
		names[0] = "neo4j"
		graph = func(t *testing.T) kgmem.GraphStore {
			// A fresh scope per server keeps tests apart inside one database.
			g, err := neo4j.Open(ctx, neo4j.Config{URI: uri, Scope: "api" + strings.ReplaceAll(kgmem.NewID("t"), "_", "")})
			if err != nil {
				t.Fatal(err)
			}
			return g
		}
	}
	if addr := testenv.MilvusAddrIfAvailable(t); addr != "" {
		names[1] = "milvus"
		vectors = func(t *testing.T, dim int) kgmem.VectorIndex {
			ix, err := milvus.Open(ctx, milvus.Config{Address: addr, Collection: "api_" + strings.ReplaceAll(kgmem.NewID("t"), "_", ""), Dim: dim})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = ix.Drop(context.Background()) })
			return ix
		}
	}
	all := []backend{{name: "sqlite+hnsw", graph: sqliteGraph, vectors: hnswVectors}}
	if names[0] != "sqlite" || names[1] != "hnsw" {
		all = append(all, backend{name: names[0] + "+" + names[1], graph: graph, vectors: vectors})
	}
	return all
}

// eachBackend runs test once per available backend combination.
func eachBackend(t *testing.T, test func(t *testing.T, b backend)) {
	for _, b := range backends(t) {
		t.Run(b.name, func(t *testing.T) { test(t, b) })
	}
}

// patientSearch gives every retriever a minute: these tests assert what
// search ranks, and on a loaded CI machine the default two-second retriever
// deadline can drop a retriever (a degraded answer, with a warning) before
// it ranks anything.
var patientSearch = memory.SearchOptions{Timeout: time.Minute, RetrieverTimeout: time.Minute}

func newTestServer(t *testing.T, b backend, opts api.Options, extractor kgmem.Extractor) *testServer {
	t.Helper()
	g := b.graph(t)
	emb := embed.NewHashing(256)
	v := b.vectors(t, emb.Dimension())
	quiet := slog.New(slog.DiscardHandler)
	eng, err := memory.New(memory.Config{Graph: g, Vectors: v, Embedder: emb, Extractor: extractor, Logger: quiet, Search: patientSearch})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(api.New(eng, opts, quiet).Handler())
	t.Cleanup(func() {
		srv.Close()
		// Shared servers (Neo4j, Milvus) keep no test data behind.
		ctx := context.Background()
		if nss, err := g.Namespaces(ctx); err == nil {
			for _, ns := range nss {
				_, _ = eng.PurgeNamespace(ctx, ns)
			}
		}
		_ = v.Close()
		_ = g.Close()
	})
	return &testServer{t: t, url: srv.URL, graph: g, engine: eng}
}

// do sends a request with a raw body and decodes a JSON answer into out (if non-nil).
func (s *testServer) do(method, path, contentType string, body []byte, out any) (int, http.Header) {
	s.t.Helper()
	req, err := http.NewRequest(method, s.url+path, bytes.NewReader(body))
	if err != nil {
		s.t.Fatal(err)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		s.t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		s.t.Fatal(err)
	}
	if out != nil && len(raw) > 0 {
		if err := json.Unmarshal(raw, out); err != nil {
			s.t.Fatalf("%s %s: decode %q: %v", method, path, raw, err)
		}
	}
	return resp.StatusCode, resp.Header
}

// json sends v as JSON and decodes the answer into out.
func (s *testServer) json(method, path string, v any, out any) int {
	s.t.Helper()
	var body []byte
	if v != nil {
		var err error
		if body, err = json.Marshal(v); err != nil {
			s.t.Fatal(err)
		}
	}
	status, _ := s.do(method, path, "application/json", body, out)
	return status
}

// counts reports how many records ns holds, straight from the store.
func (s *testServer) counts(ns kgmem.Namespace) (episodes, facts, entities int) {
	s.t.Helper()
	ctx := context.Background()
	eps, err := s.graph.ListEpisodes(ctx, ns, kgmem.Page{Limit: 10000})
	if err != nil {
		s.t.Fatal(err)
	}
	fs, err := s.graph.ListFacts(ctx, ns, kgmem.FactFilter{IncludeExpired: true, Page: kgmem.Page{Limit: 10000}})
	if err != nil {
		s.t.Fatal(err)
	}
	ents, err := s.graph.FindEntities(ctx, ns, kgmem.EntityFilter{Page: kgmem.Page{Limit: 10000}})
	if err != nil {
		s.t.Fatal(err)
	}
	return len(eps), len(fs), len(ents)
}

type message = map[string]any

func conversation() []message {
	return []message{
		{"id": "m1", "role": "user", "name": "Caroline", "content": "I went to the LGBTQ support group yesterday and it was so powerful.", "timestamp": "2023-05-08T13:56:00Z"},
		{"id": "m2", "role": "user", "name": "Melanie", "content": "That's great! I'm painting a sunrise over the lake for my kids.", "timestamp": "2023-05-08T13:57:00Z"},
		{"id": "m3", "role": "user", "name": "Caroline", "content": "I'm researching adoption agencies because I want to give a child a loving home.", "timestamp": "2023-05-08T13:58:00Z"},
	}
}

type ingestResponse struct {
	Episodes []struct {
		ID        string `json:"id"`
		MessageID string `json:"message_id"`
		ThreadID  string `json:"thread_id"`
		Created   bool   `json:"created"`
	} `json:"episodes"`
	Facts []kgmem.FactChange `json:"facts"`
}

type searchResponse struct {
	Facts []struct {
		ID     string       `json:"id"`
		Fact   string       `json:"fact"`
		Status string       `json:"status"`
		Score  memory.Score `json:"score"`
	} `json:"facts"`
	Episodes []struct {
		ID        string         `json:"id"`
		MessageID string         `json:"message_id"`
		ThreadID  string         `json:"thread_id"`
		Name      string         `json:"name"`
		Content   string         `json:"content"`
		Timestamp string         `json:"timestamp"`
		Metadata  map[string]any `json:"metadata"`
		Score     memory.Score   `json:"score"`
	} `json:"episodes"`
	Entities []struct {
		ID   string `json:"id"`
		Name string `json:"name"`
	} `json:"entities"`
	Context  string   `json:"context"`
	Warnings []string `json:"warnings"`
}

func TestIngestAndSearch(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		s := newTestServer(t, b, api.Options{}, nil)
		var ing ingestResponse
		if st := s.json("POST", "/v1/memories", map[string]any{"namespace": "acme/users/u42", "thread_id": "t1", "messages": conversation()}, &ing); st != http.StatusCreated {
			t.Fatalf("ingest status %d, want 201", st)
		}
		if len(ing.Episodes) != 3 || !ing.Episodes[0].Created || ing.Episodes[0].MessageID != "m1" || ing.Episodes[0].ThreadID != "t1" {
			t.Fatalf("episodes %+v", ing.Episodes)
		}

		var res searchResponse
		if st := s.json("POST", "/v1/search", map[string]any{"namespace": "acme/users/u42", "query": "adoption agencies", "limit": 2}, &res); st != 200 {
			t.Fatalf("search status %d", st)
		}
		if len(res.Warnings) > 0 {
			t.Errorf("search degraded: %q", res.Warnings)
		}
		if len(res.Episodes) == 0 || res.Episodes[0].MessageID != "m3" {
			t.Fatalf("top episode %+v, want m3", res.Episodes)
		}
		top := res.Episodes[0]
		if top.Name != "Caroline" || top.ThreadID != "t1" || !strings.HasPrefix(top.Timestamp, "2023-05-08T13:58:00") {
			t.Errorf("episode fields %+v", top)
		}
		// Both vector recall and BM25 find the best match first (the thread
		// retriever may add it too, as a neighbour of another hit).
		found := map[string]int{}
		for _, src := range top.Score.Sources {
			found[src.Retriever] = src.Rank
		}
		for _, r := range []string{"vector", "bm25"} {
			if rank, ok := found[r]; !ok || rank != 1 {
				t.Errorf("score breakdown %+v: %s ranked the best match %d, want 1", top.Score, r, rank)
			}
		}
		if top.Score.Final <= 0 || top.Score.Final < res.Episodes[len(res.Episodes)-1].Score.Final {
			t.Errorf("scores not ordered: %+v", res.Episodes)
		}
		if len(res.Episodes) > 2 {
			t.Errorf("limit 2 returned %d episodes", len(res.Episodes))
		}
		if !strings.Contains(res.Context, "[2023-05-08 13:58] Caroline: I'm researching adoption agencies") {
			t.Errorf("context %q lacks the dated message", res.Context)
		}
	})
}

func TestRepostIsIdempotent(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		s := newTestServer(t, b, api.Options{}, nil)
		body := map[string]any{"namespace": "n1", "thread_id": "t1", "messages": conversation()}
		var first, second ingestResponse
		if st := s.json("POST", "/v1/memories", body, &first); st != http.StatusCreated {
			t.Fatalf("first post %d", st)
		}
		if st := s.json("POST", "/v1/memories", body, &second); st != http.StatusOK {
			t.Fatalf("re-post %d, want 200", st)
		}
		for i, ep := range second.Episodes {
			if ep.Created || ep.ID != first.Episodes[i].ID {
				t.Errorf("re-posted episode %d: %+v, want the stored one, not created", i, ep)
			}
		}
		// A batch mixing known and new messages stores only the new one.
		mixed := append(conversation(), message{"id": "m4", "name": "Melanie", "content": "Adoption is a wonderful choice.", "timestamp": "2023-05-08T14:00:00Z"})
		var third ingestResponse
		if st := s.json("POST", "/v1/memories", map[string]any{"namespace": "n1", "thread_id": "t1", "messages": mixed}, &third); st != http.StatusCreated {
			t.Fatalf("mixed post %d", st)
		}
		if eps, _, _ := s.counts("n1"); eps != 4 {
			t.Fatalf("store holds %d episodes, want 4", eps)
		}
		// The same message id in another thread is another message.
		if st := s.json("POST", "/v1/memories", map[string]any{"namespace": "n1", "thread_id": "t2", "messages": conversation()[:1]}, nil); st != http.StatusCreated {
			t.Fatalf("other thread %d, want 201", st)
		}
		if eps, _, _ := s.counts("n1"); eps != 5 {
			t.Fatalf("store holds %d episodes, want 5", eps)
		}
		// Searching finds each message once.
		var res searchResponse
		s.json("POST", "/v1/search", map[string]any{"namespace": "n1", "query": "LGBTQ support group", "include": []string{"episodes"}}, &res)
		seen := map[string]int{}
		for _, ep := range res.Episodes {
			seen[ep.ID]++
			if seen[ep.ID] > 1 {
				t.Errorf("episode %s returned twice", ep.ID)
			}
		}
	})
}

func mustParse(t *testing.T, s string) time.Time {
	t.Helper()
	v, err := time.Parse(time.RFC3339, s)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestAnswersCarryTheirLength: a search's answer comes whole, with its
// Content-Length, not chunked (api/encode.go).
func TestAnswersCarryTheirLength(t *testing.T) {
	s := newTestServer(t, backends(t)[0], api.Options{}, nil)
	if st := s.json("POST", "/v1/memories", map[string]any{"namespace": "acme/users/u42", "thread_id": "t1", "messages": conversation()}, nil); st != http.StatusCreated {
		t.Fatalf("ingest status %d, want 201", st)
	}
	resp, err := http.Post(s.url+"/v1/search", "application/json", strings.NewReader(`{"namespace": "acme/users/u42", "query": "adoption agencies"}`))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK || len(resp.TransferEncoding) != 0 || resp.ContentLength != int64(len(body)) || !json.Valid(body) {
		t.Errorf("status %d, transfer encoding %q, Content-Length %d for %d bytes of JSON (valid: %v)", resp.StatusCode, resp.TransferEncoding, resp.ContentLength, len(body), json.Valid(body))
	}
}
