package api_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/kgmem/kgmem/api"
	"github.com/kgmem/kgmem/embed"
	"github.com/kgmem/kgmem/jobs"
	"github.com/kgmem/kgmem/memory"
)

// newAsyncServer is a test server with background jobs (debounce 0).
func newAsyncServer(t *testing.T, b backend) *testServer {
	t.Helper()
	g := b.graph(t)
	emb := embed.NewHashing(256)
	v := b.vectors(t, emb.Dimension())
	quiet := slog.New(slog.DiscardHandler)
	eng, err := memory.New(memory.Config{Graph: g, Vectors: v, Embedder: emb, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	runner, err := jobs.Open(context.Background(), jobs.Config{Engine: eng, DataDir: t.TempDir(), Workers: 2, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(api.New(eng, api.Options{Jobs: runner}, quiet).Handler())
	t.Cleanup(func() {
		srv.Close()
		_ = runner.Close()
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

type jobJSON struct {
	ID        string `json:"id"`
	Namespace string `json:"namespace"`
	Status    string `json:"status"`
	Progress  struct {
		Messages, Stored int
	} `json:"progress"`
	Result *ingestResponse `json:"result"`
}

func TestAsyncIngest(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		s := newAsyncServer(t, b)
		body := map[string]any{"namespace": "async/a", "thread_id": "t1", "mode": "async", "messages": conversation()}
		raw, _ := jsonBytes(body)
		var job jobJSON
		status, hdr := s.do(http.MethodPost, "/v1/memories", "application/json", raw, &job)
		if status != http.StatusAccepted || job.ID == "" || job.Status != "queued" || job.Progress.Messages != 3 {
			t.Fatalf("async post: %d %+v", status, job)
		}
		loc := hdr.Get("Location")
		if loc != "/v1/jobs/"+job.ID+"?namespace=async%2Fa" {
			t.Fatalf("Location %q", loc)
		}
		deadline := time.Now().Add(time.Minute)
		for job.Status != "succeeded" {
			if job.Status == "failed" || time.Now().After(deadline) {
				t.Fatalf("job %+v", job)
			}
			time.Sleep(10 * time.Millisecond) // polling interval under the deadline above
			if st := s.json(http.MethodGet, loc, nil, &job); st != http.StatusOK {
				t.Fatalf("GET %s: %d", loc, st)
			}
		}
		if job.Result == nil || len(job.Result.Episodes) != 3 || !job.Result.Episodes[0].Created || job.Progress.Stored != 3 {
			t.Fatalf("result %+v", job)
		}
		if eps, _, _ := s.counts("async/a"); eps != 3 {
			t.Errorf("%d episodes stored, want 3", eps)
		}

		cases := []struct {
			name   string
			method string
			path   string
			body   map[string]any
			status int
			field  string
		}{
			{"bad mode", http.MethodPost, "/v1/memories", map[string]any{"namespace": "async/a", "thread_id": "t", "mode": "later", "messages": conversation()}, 400, "mode"},
			{"invalid message in async mode", http.MethodPost, "/v1/memories", map[string]any{"namespace": "async/b", "thread_id": "t", "mode": "async", "messages": []message{{"content": ""}}}, 400, "messages[0].content"},
			{"extraction without LLM in async mode", http.MethodPost, "/v1/memories", map[string]any{"namespace": "async/b", "thread_id": "t", "mode": "async", "extract": true, "messages": conversation()}, 409, ""},
			{"unknown job", http.MethodGet, "/v1/jobs/job_nope?namespace=async%2Fa", nil, 404, ""},
			{"job of another namespace", http.MethodGet, "/v1/jobs/" + job.ID + "?namespace=async%2Fb", nil, 404, ""},
			{"job without namespace", http.MethodGet, "/v1/jobs/" + job.ID, nil, 400, "namespace"},
		}
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				var body []byte
				if tc.body != nil {
					body, _ = jsonBytes(tc.body)
				}
				var p api.Problem
				status, hdr := s.do(tc.method, tc.path, "application/json", body, &p)
				if status != tc.status || hdr.Get("Content-Type") != "application/problem+json" || p.Field != tc.field {
					t.Errorf("%d %s field %q (%s), want %d field %q", status, hdr.Get("Content-Type"), p.Field, p.Detail, tc.status, tc.field)
				}
			})
		}
		if eps, _, _ := s.counts("async/b"); eps != 0 {
			t.Errorf("rejected async posts stored %d episodes", eps)
		}
	})
}

func TestAsyncRefusedWithoutRunner(t *testing.T) {
	s := newTestServer(t, backends(t)[0], api.Options{}, nil)
	var p api.Problem
	raw, _ := jsonBytes(map[string]any{"namespace": "a", "thread_id": "t", "mode": "async", "messages": conversation()})
	if status, _ := s.do(http.MethodPost, "/v1/memories", "application/json", raw, &p); status != 400 || p.Field != "mode" {
		t.Errorf("%d %+v, want 400 on mode", status, p)
	}
}

func jsonBytes(v any) ([]byte, error) { return json.Marshal(v) }
