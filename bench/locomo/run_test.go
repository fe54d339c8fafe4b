package locomo

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/api/wire"
	kgclient "github.com/kgmem/kgmem/client"
	"github.com/kgmem/kgmem/memory"
)

// fakeServer is an in-memory stand-in for the kgmem REST API whose search is
// plain BM25 over the namespace's episodes, so a Run against it must score
// exactly what the per-conversation baseline scores.
type fakeServer struct {
	mu       sync.Mutex
	episodes map[string][]Message // by namespace
	purged   []string
	requests int
	maxBatch int
	searches int
	badLimit bool
}

func newFakeServer(t *testing.T) (*fakeServer, *httptest.Server) {
	f := &fakeServer{episodes: map[string][]Message{}}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) { w.Write([]byte(`{"status":"ok"}`)) })
	mux.HandleFunc("DELETE /v1/namespaces/{ns}", func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		defer f.mu.Unlock()
		ns := r.PathValue("ns")
		f.purged = append(f.purged, ns)
		delete(f.episodes, ns)
		w.Write([]byte(`{}`))
	})
	mux.HandleFunc("POST /v1/memories", func(w http.ResponseWriter, r *http.Request) {
		var req wire.MemoriesRequest
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		if _, err := kgmem.ParseNamespace(string(req.Namespace)); err != nil || req.ThreadID == "" {
			w.Header().Set("Content-Type", "application/problem+json")
			w.WriteHeader(http.StatusBadRequest)
			w.Write([]byte(`{"title":"Bad Request","status":400,"detail":"namespace is required","field":"namespace"}`))
			return
		}
		f.mu.Lock()
		f.requests++
		f.maxBatch = max(f.maxBatch, len(req.Messages))
		var res memory.IngestResult
		for _, m := range req.Messages {
			f.episodes[string(req.Namespace)] = append(f.episodes[string(req.Namespace)], Message{ID: m.ID, Name: m.Name, Content: m.Content})
			res.Episodes = append(res.Episodes, memory.EpisodeStatus{Episode: kgmem.Episode{ID: kgmem.EpisodeID(kgmem.Namespace(req.Namespace), req.ThreadID, m.ID), MessageID: m.ID}, Created: true})
		}
		if req.ThreadID == "session_2" && len(res.Episodes) > 0 && res.Episodes[0].MessageID == "D2:1" {
			res.Warnings = []string{"extraction skipped: no LLM"}
		}
		f.mu.Unlock()
		w.WriteHeader(http.StatusCreated)
		json.NewEncoder(w).Encode(res)
	})
	mux.HandleFunc("POST /v1/search", func(w http.ResponseWriter, r *http.Request) {
		var req wire.SearchRequest
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		f.mu.Lock()
		f.searches++
		if req.Limit != 10 || !slices.Equal(req.Include, []string{"episodes"}) || req.Reinforce == nil || *req.Reinforce {
			f.badLimit = true
		}
		eps := slices.Clone(f.episodes[string(req.Namespace)])
		f.mu.Unlock()
		// Turn order, whatever order concurrent ingestion delivered them in.
		slices.SortFunc(eps, func(a, b Message) int {
			as, at, _ := ParseDiaID(a.ID)
			bs, bt, _ := ParseDiaID(b.ID)
			if as != bs {
				return as - bs
			}
			return at - bt
		})
		docs := make([]string, len(eps))
		for i, m := range eps {
			docs[i] = m.Name + ": " + m.Content
		}
		var res struct {
			Episodes []map[string]any `json:"episodes"`
		}
		for _, d := range NewBM25(docs).Search(req.Query, req.Limit, nil) {
			res.Episodes = append(res.Episodes, map[string]any{"id": "ep", "message_id": eps[d].ID, "score": map[string]any{"final": 1}})
		}
		json.NewEncoder(w).Encode(res)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return f, srv
}

// TestRunAgainstFakeServer runs the benchmark on the two small conversations
// of testdata/conversations (the LoCoMo layout) against a fake server whose
// search is the per-conversation BM25 baseline.
func TestRunAgainstFakeServer(t *testing.T) {
	convs, err := Load(filepath.Join("testdata", "conversations"))
	if err != nil {
		t.Fatal(err)
	}
	turns := 0
	for _, c := range convs {
		turns += len(c.Turns())
	}
	cases, _ := Cases(convs)
	if len(convs) != 2 || turns != 12 || len(cases) != 7 {
		t.Fatalf("fixture: %d conversations, %d turns, %d scored questions; want 2, 12, 7", len(convs), turns, len(cases))
	}
	f, srv := newFakeServer(t)
	client, err := kgclient.New(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	var (
		log      bytes.Buffer
		mu       sync.Mutex
		progress = map[Stage]int{}
	)
	onProgress := func(stage Stage, done, total int) {
		mu.Lock()
		defer mu.Unlock()
		if done > total || done <= 0 {
			t.Errorf("progress %s %d/%d", stage, done, total)
		}
		progress[stage] = max(progress[stage], done)
	}
	res, err := Run(context.Background(), client, convs, Config{Ks: []int{5, 10}, Concurrency: 4, Batch: 3, BaselineScope: ScopeConversation, Log: &log, Progress: onProgress})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if res.Ingest.Warnings != len(convs) || res.Ingest.FirstWarning != "extraction skipped: no LLM" {
		t.Errorf("warnings %d (%q), want %d: one per conversation's session 2", res.Ingest.Warnings, res.Ingest.FirstWarning, len(convs))
	}
	if progress[StageIngest] != turns || progress[StageSearch] != len(cases) {
		t.Errorf("progress reached %v, want ingest %d and search %d", progress, turns, len(cases))
	}
	if res.URL != srv.URL {
		t.Errorf("result URL %q, want %q", res.URL, srv.URL)
	}
	want := []string{"bench/locomo/1", "bench/locomo/2"}
	if !slices.Equal(f.purged, want) {
		t.Errorf("purged %q, want %q", f.purged, want)
	}
	if res.Ingest.Messages != turns || res.Ingest.Episodes != turns || f.maxBatch != 3 || res.Ingest.Requests != f.requests || res.Ingest.MessagesPerSecond <= 0 {
		t.Errorf("ingest = %+v, server saw %d requests, largest batch %d", res.Ingest, f.requests, f.maxBatch)
	}
	if res.Search.Queries != len(cases) || f.searches != len(cases) || f.badLimit || res.Search.Empty != 0 {
		t.Errorf("search = %+v, server saw %d searches (bad limit/include: %t)", res.Search, f.searches, f.badLimit)
	}
	if res.Search.P50 <= 0 || res.Search.P50 > res.Search.P99 || res.Search.P99 > res.Search.Max || res.Search.QPS <= 0 {
		t.Errorf("latency p50 %v p99 %v max %v qps %v", res.Search.P50, res.Search.P99, res.Search.Max, res.Search.QPS)
	}
	// The fake search is the per-conversation baseline: the scores must match.
	for i, row := range res.Recall.Rows {
		base := res.Baseline.Rows[i]
		for j := range row.Recall {
			if row.Category != base.Category || math.Abs(row.Recall[j]-base.Recall[j]) > 1e-9 {
				t.Errorf("category %d recall@%d: run %.3f, baseline %.3f", row.Category, res.Recall.Ks[j], row.Recall[j], base.Recall[j])
			}
		}
	}
	var out bytes.Buffer
	if err := WriteReport(&out, res); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"overall", "README bm25 anchor", "51.3", "59.1", "messages/s", "QPS", "p99"} {
		if !strings.Contains(out.String(), s) {
			t.Errorf("report lacks %q:\n%s", s, out.String())
		}
	}
	if !strings.Contains(log.String(), fmt.Sprintf("ingested %d messages", turns)) {
		t.Errorf("progress log = %q", log.String())
	}
	if _, err := json.Marshal(res); err != nil {
		t.Errorf("result does not encode: %v", err)
	}
}

func TestRunErrors(t *testing.T) {
	convs := []Conversation{{ID: "x", Sessions: []Session{{Number: 1, Turns: []Turn{{Speaker: "A", DiaID: "D1:1", Text: "hi"}}}},
		Questions: []Question{{Question: "hi?", Evidence: []string{"D1:1"}, Category: 4}}}}
	cfg := Config{Ks: []int{5}, Concurrency: 1, Batch: 10, BaselineScope: ScopeCorpus}

	// Nothing listens on a port we just closed.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	down := "http://" + ln.Addr().String()
	ln.Close()
	client, err := kgclient.New(down, kgclient.WithRetries(0, 0))
	if err != nil {
		t.Fatal(err)
	}
	_, err = Run(context.Background(), client, convs, cfg)
	if !errors.Is(err, kgmem.ErrUnavailable) || !strings.Contains(err.Error(), "go run ./cmd/server") {
		t.Errorf("server down: err = %v, want ErrUnavailable with a hint", err)
	}

	// Bad configuration is refused before any request.
	for _, bad := range []Config{
		{Ks: nil, Concurrency: 1, Batch: 1, BaselineScope: ScopeCorpus},
		{Ks: []int{5}, Concurrency: 0, Batch: 1, BaselineScope: ScopeCorpus},
		{Ks: []int{5}, Concurrency: 1, Batch: 0, BaselineScope: ScopeCorpus},
		{Ks: []int{5}, Concurrency: 1, Batch: 1, BaselineScope: "nope"},
	} {
		if _, err := Run(context.Background(), client, convs, bad); !errors.Is(err, kgmem.ErrInvalid) {
			t.Errorf("Run(%+v) = %v, want ErrInvalid", bad, err)
		}
	}
}

func TestDurationJSONRoundTrip(t *testing.T) {
	for _, d := range []time.Duration{0, 1500 * time.Microsecond, 67*time.Second + 300*time.Millisecond} {
		buf, err := json.Marshal(Duration(d))
		if err != nil {
			t.Fatal(err)
		}
		var back Duration
		if err := json.Unmarshal(buf, &back); err != nil || time.Duration(back) != d {
			t.Errorf("%v → %s → %v, %v", d, buf, time.Duration(back), err)
		}
	}
	var d Duration
	if err := json.Unmarshal([]byte(`"1s"`), &d); err == nil {
		t.Error("a string decoded as seconds")
	}
}
