package api_test

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/api"
	"github.com/kgmem/kgmem/embed"
	"github.com/kgmem/kgmem/internal/llmtest"
	"github.com/kgmem/kgmem/jobs"
	"github.com/kgmem/kgmem/memory"
	"github.com/kgmem/kgmem/triples"
	openai "github.com/sashabaranov/go-openai"
)

// TestSyncExtractionPastTheDeadline pins that a synchronous "extract": true
// post whose LLM work outlasts --request-timeout keeps its messages: 201
// with the episodes, a job id and a warning; the messages are listed and
// searchable at once; the job extracts the facts once the model answers;
// re-posting is a 200.
func TestSyncExtractionPastTheDeadline(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		// The model answers nothing until released: past the request's
		// deadline, the job's call waits for it.
		release := make(chan struct{})
		var once sync.Once
		answer := func() { once.Do(func() { close(release) }) }
		extraction := llmtest.ExtractionJSON(
			[]llmtest.Entity{{Name: "Caroline", Type: "Person"}, {Name: "adoption agencies", Type: "Topic"}},
			[]llmtest.Fact{{Subject: "Caroline", Predicate: "researches", Object: "adoption agencies", Text: "Caroline researches adoption agencies."}})
		llm := llmtest.New(t, llmtest.WithResponder(func(openai.ChatCompletionRequest) (llmtest.Reply, error) {
			<-release
			return llmtest.Text(extraction), nil
		}))
		t.Cleanup(answer) // before the fake server's Close, which waits for its calls
		x, err := triples.NewExtractor(triples.LLMConfig{BaseURL: llm.URL(), Model: "test-model", MaxRetries: 1, MinBackoff: time.Millisecond, MaxBackoff: time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		g := b.graph(t)
		emb := embed.NewHashing(256)
		v := b.vectors(t, emb.Dimension())
		quiet := slog.New(slog.DiscardHandler)
		eng, err := memory.New(memory.Config{Graph: g, Vectors: v, Embedder: emb, Extractor: x, Logger: quiet, Search: patientSearch})
		if err != nil {
			t.Fatal(err)
		}
		runner, err := jobs.Open(context.Background(), jobs.Config{Engine: eng, DataDir: t.TempDir(), Workers: 1, Logger: quiet})
		if err != nil {
			t.Fatal(err)
		}
		srv := httptest.NewServer(api.New(eng, api.Options{Jobs: runner, RequestTimeout: 2 * time.Second}, quiet).Handler())
		t.Cleanup(func() {
			srv.Close()
			_ = runner.Close()
			_, _ = eng.PurgeNamespace(context.Background(), "slow")
			_ = v.Close()
			_ = g.Close()
		})
		s := &testServer{t: t, url: srv.URL, graph: g, engine: eng}

		post := map[string]any{"namespace": "slow", "thread_id": "t1", "extract": true, "messages": conversation()}
		var res struct {
			ingestResponse
			Warnings []string `json:"warnings"`
			JobID    string   `json:"job_id"`
		}
		if st := s.json(http.MethodPost, "/v1/memories", post, &res); st != http.StatusCreated {
			t.Fatalf("sync post with a slow model: %d, want 201", st)
		}
		if len(res.Episodes) != 3 || !res.Episodes[0].Created || res.JobID == "" || !strings.Contains(strings.Join(res.Warnings, " "), res.JobID) {
			t.Fatalf("response %+v: want the 3 episodes, a job id and a warning naming it", res)
		}
		if eps, _, _ := s.counts("slow"); eps != 3 {
			t.Fatalf("%d episodes stored, want 3", eps)
		}
		var found searchResponse
		if st := s.json(http.MethodPost, "/v1/search", map[string]any{"namespace": "slow", "query": "adoption agencies", "include": []string{"episodes"}, "limit": 1}, &found); st != http.StatusOK ||
			len(found.Episodes) != 1 || found.Episodes[0].MessageID != "m3" {
			t.Fatalf("search while extraction is pending: %d %+v", st, found.Episodes)
		}

		// Re-posting the same messages is an idempotent 200.
		var again ingestResponse
		if st := s.json(http.MethodPost, "/v1/memories", post, &again); st != http.StatusOK || again.Episodes[0].Created {
			t.Fatalf("re-post: %d %+v, want 200 with known episodes", st, again)
		}

		answer()
		var job jobJSON
		loc := "/v1/jobs/" + res.JobID + "?namespace=slow"
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
		if job.Result == nil || len(job.Result.Facts) != 1 || job.Result.Facts[0].Op != kgmem.OpAdded {
			t.Fatalf("job result %+v: want Caroline's fact added", job.Result)
		}
		if eps, facts, _ := s.counts("slow"); eps != 3 || facts != 1 {
			t.Fatalf("%d episodes, %d facts after the job, want 3 and 1", eps, facts)
		}
	})
}

// TestAsyncExtractionSearchableAtOnce pins that an async post with
// extraction stores its messages before answering 202: they are listed and
// searchable while the job still waits for the model, and the job then
// extracts their facts.
func TestAsyncExtractionSearchableAtOnce(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		release := make(chan struct{})
		var once sync.Once
		answer := func() { once.Do(func() { close(release) }) }
		extraction := llmtest.ExtractionJSON(
			[]llmtest.Entity{{Name: "Caroline", Type: "Person"}, {Name: "adoption agencies", Type: "Topic"}},
			[]llmtest.Fact{{Subject: "Caroline", Predicate: "researches", Object: "adoption agencies", Text: "Caroline researches adoption agencies."}})
		llm := llmtest.New(t, llmtest.WithResponder(func(openai.ChatCompletionRequest) (llmtest.Reply, error) {
			<-release
			return llmtest.Text(extraction), nil
		}))
		t.Cleanup(answer) // before the fake server's Close, which waits for its calls
		x, err := triples.NewExtractor(triples.LLMConfig{BaseURL: llm.URL(), Model: "test-model", MaxRetries: 1, MinBackoff: time.Millisecond, MaxBackoff: time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		g := b.graph(t)
		emb := embed.NewHashing(256)
		v := b.vectors(t, emb.Dimension())
		quiet := slog.New(slog.DiscardHandler)
		eng, err := memory.New(memory.Config{Graph: g, Vectors: v, Embedder: emb, Extractor: x, Logger: quiet, Search: patientSearch})
		if err != nil {
			t.Fatal(err)
		}
		runner, err := jobs.Open(context.Background(), jobs.Config{Engine: eng, DataDir: t.TempDir(), Workers: 1, Logger: quiet})
		if err != nil {
			t.Fatal(err)
		}
		srv := httptest.NewServer(api.New(eng, api.Options{Jobs: runner}, quiet).Handler())
		t.Cleanup(func() {
			srv.Close()
			_ = runner.Close()
			_, _ = eng.PurgeNamespace(context.Background(), "async-slow")
			_ = v.Close()
			_ = g.Close()
		})
		s := &testServer{t: t, url: srv.URL, graph: g, engine: eng}

		var job jobJSON
		post := map[string]any{"namespace": "async-slow", "thread_id": "t1", "extract": true, "mode": "async", "messages": conversation()}
		if st := s.json(http.MethodPost, "/v1/memories", post, &job); st != http.StatusAccepted || job.ID == "" || job.Progress.Messages != 3 {
			t.Fatalf("async post: %d %+v", st, job)
		}
		if eps, _, _ := s.counts("async-slow"); eps != 3 {
			t.Fatalf("%d episodes stored while the job waits for the model, want 3", eps)
		}
		var found searchResponse
		if st := s.json(http.MethodPost, "/v1/search", map[string]any{"namespace": "async-slow", "query": "adoption agencies", "include": []string{"episodes"}, "limit": 1}, &found); st != http.StatusOK ||
			len(found.Episodes) != 1 || found.Episodes[0].MessageID != "m3" {
			t.Fatalf("search while the job waits: %d %+v", st, found.Episodes)
		}

		answer()
		loc := "/v1/jobs/" + job.ID + "?namespace=async-slow"
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
		if eps, facts, _ := s.counts("async-slow"); eps != 3 || facts != 1 {
			t.Fatalf("%d episodes, %d facts after the job, want 3 and 1", eps, facts)
		}
	})
}
