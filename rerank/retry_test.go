package rerank_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/internal/llmtest"
	"github.com/kgmem/kgmem/rerank"
	openai "github.com/sashabaranov/go-openai"
)

// failingFront answers the first requests with the statuses given (and
// retry-after-ms: 1), then passes requests on to the fake API.
type failingFront struct {
	mu       sync.Mutex
	failures []int
	requests int
}

func newFailingFront(t *testing.T, api *llmtest.Server, failures ...int) (*failingFront, string) {
	t.Helper()
	target, err := url.Parse(strings.TrimSuffix(api.URL(), "/v1"))
	if err != nil {
		t.Fatal(err)
	}
	proxy := httputil.NewSingleHostReverseProxy(target)
	f := &failingFront{failures: failures}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		f.requests++
		var status int
		if len(f.failures) > 0 {
			status, f.failures = f.failures[0], f.failures[1:]
		}
		f.mu.Unlock()
		if status != 0 {
			w.Header().Set("retry-after-ms", "1")
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(status)
			fmt.Fprintf(w, `{"error":{"message":"injected %d","type":"test"}}`, status)
			return
		}
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return f, srv.URL + "/v1"
}

func (f *failingFront) seen() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.requests
}

// TestRerankersRetry retries a reranker's 429 and 5xx answers within the
// budget (Config.Retries), after the wait the answer asks for, and never
// a refused request: both the /rerank client and the chat reranker.
func TestRerankersRetry(t *testing.T) {
	docs := []string{"Carol runs Orion.", "Bob leads the ML team."}
	rerankers := map[string]func(rerank.Config) (kgmem.Reranker, error){
		"rerank": func(c rerank.Config) (kgmem.Reranker, error) { return rerank.New(c) },
		"chat":   func(c rerank.Config) (kgmem.Reranker, error) { return rerank.NewChat(c) },
	}
	for _, tc := range []struct {
		name         string
		failures     []int
		retries      int
		wantErr      bool
		wantUnavl    bool
		wantRequests int
	}{
		{"429 and 503 then an answer", []int{429, 503}, 0, false, false, 3},
		{"budget spent", []int{503, 503, 503}, 0, true, true, 3},
		{"retries off", []int{503}, -1, true, true, 1},
		{"a larger budget", []int{500, 502, 503}, 3, false, false, 4},
		{"a bad request is not retried", []int{400}, 0, true, false, 1},
	} {
		for name, open := range rerankers {
			t.Run(name+"/"+tc.name, func(t *testing.T) {
				api := llmtest.New(t, llmtest.WithResponder(func(openai.ChatCompletionRequest) (llmtest.Reply, error) {
					return llmtest.Text(`{"scores": [1, 9]}`), nil
				}))
				front, base := newFailingFront(t, api, tc.failures...)
				r, err := open(rerank.Config{BaseURL: base, Model: "m", Retries: tc.retries})
				if err != nil {
					t.Fatal(err)
				}
				scores, err := r.Rerank(context.Background(), "who leads the ML team", docs)
				switch {
				case tc.wantErr && err == nil:
					t.Errorf("Rerank = %v, want an error", scores)
				case !tc.wantErr && (err != nil || len(scores) != len(docs)):
					t.Errorf("Rerank = %v, %v; want a score per document", scores, err)
				case tc.wantErr && errors.Is(err, kgmem.ErrUnavailable) != tc.wantUnavl:
					t.Errorf("errors.Is(%v, ErrUnavailable) = %v, want %v", err, !tc.wantUnavl, tc.wantUnavl)
				}
				if got := front.seen(); got != tc.wantRequests {
					t.Errorf("%d requests, want %d", got, tc.wantRequests)
				}
			})
		}
	}
}
