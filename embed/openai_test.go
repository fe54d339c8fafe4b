package embed_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/embed"
	"github.com/kgmem/kgmem/internal/llmtest"
)

// front is a proxy before the fake API that can fail requests on purpose
// and rewrites Azure paths to the fake's /v1/embeddings.
type front struct {
	srv *httptest.Server

	mu                  sync.Mutex
	failures            []int  // statuses for the next requests, in order
	retryAfterMs        string // retry-after-ms of the failures, when set
	requests            []*http.Request
	inFlight, maxFlight int
}

func newFront(t *testing.T, api *llmtest.Server) *front {
	target, err := url.Parse(strings.TrimSuffix(api.URL(), "/v1"))
	if err != nil {
		t.Fatal(err)
	}
	proxy := httputil.NewSingleHostReverseProxy(target)
	f := &front{}
	f.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		f.requests = append(f.requests, r.Clone(context.Background()))
		var status int
		if len(f.failures) > 0 {
			status, f.failures = f.failures[0], f.failures[1:]
		}
		f.inFlight++
		f.maxFlight = max(f.maxFlight, f.inFlight)
		f.mu.Unlock()
		defer func() {
			f.mu.Lock()
			f.inFlight--
			f.mu.Unlock()
		}()
		if status != 0 {
			if f.retryAfterMs != "" {
				w.Header().Set("retry-after-ms", f.retryAfterMs)
			}
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(status)
			fmt.Fprintf(w, `{"error":{"message":"injected %d","type":"test"}}`, status)
			return
		}
		if strings.HasPrefix(r.URL.Path, "/openai/deployments/") {
			r.URL.Path = "/v1/embeddings"
		}
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *front) fail(statuses ...int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.failures = append(f.failures, statuses...)
}

func (f *front) seen() []*http.Request {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.requests)
}

// fastRetries keeps retry tests quick.
func fastRetries(cfg embed.OpenAIConfig) embed.OpenAIConfig {
	cfg.BackoffBase, cfg.BackoffMax = time.Millisecond, 5*time.Millisecond
	return cfg
}

func newOpenAI(t *testing.T, cfg embed.OpenAIConfig) *embed.OpenAI {
	t.Helper()
	e, err := embed.NewOpenAI(fastRetries(cfg))
	if err != nil {
		t.Fatalf("NewOpenAI: %v", err)
	}
	return e
}

func texts(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("message %d about topic %d", i, i%7)
	}
	return out
}

func TestOpenAIBatchesInOrder(t *testing.T) {
	tests := []struct {
		n, batch, wantCalls int
	}{
		{1, 0, 1},
		{64, 0, 1},
		{150, 0, 3}, // default batch size 64
		{10, 3, 4},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%d texts by %d", tt.n, tt.batch), func(t *testing.T) {
			api := llmtest.New(t)
			e := newOpenAI(t, embed.OpenAIConfig{BaseURL: api.URL(), Model: "text-embedding-3-small", Dimensions: 48, BatchSize: tt.batch})
			in := texts(tt.n)
			vs, err := e.Embed(context.Background(), in)
			if err != nil {
				t.Fatal(err)
			}
			if got := api.Stats(llmtest.EndpointEmbeddings).Calls; got != tt.wantCalls {
				t.Errorf("%d API calls, want %d", got, tt.wantCalls)
			}
			for i, v := range vs {
				if !slices.Equal(v, llmtest.Vector(in[i], 48)) {
					t.Fatalf("vector %d is not the embedding of text %d", i, i)
				}
			}
		})
	}
}

func TestOpenAIConcurrentBatches(t *testing.T) {
	for _, conc := range []int{1, 3} {
		t.Run(fmt.Sprint("concurrency ", conc), func(t *testing.T) {
			api := llmtest.New(t)
			f := newFront(t, api)
			e := newOpenAI(t, embed.OpenAIConfig{BaseURL: f.srv.URL + "/v1", Model: "text-embedding-3-small", Dimensions: 24, BatchSize: 5, Concurrency: conc})
			in := texts(43)
			vs, err := e.Embed(context.Background(), in)
			if err != nil {
				t.Fatal(err)
			}
			for i, v := range vs {
				if !slices.Equal(v, llmtest.Vector(in[i], 24)) {
					t.Fatalf("vector %d is not the embedding of text %d", i, i)
				}
			}
			if got := api.Stats(llmtest.EndpointEmbeddings).Calls; got != 9 {
				t.Errorf("%d calls, want 9", got)
			}
			f.mu.Lock()
			defer f.mu.Unlock()
			if f.maxFlight > conc {
				t.Errorf("%d requests in flight at once, want at most %d", f.maxFlight, conc)
			}
		})
	}
	// One failing batch fails the call.
	api := llmtest.New(t)
	f := newFront(t, api)
	f.fail(400)
	e := newOpenAI(t, embed.OpenAIConfig{BaseURL: f.srv.URL + "/v1", Model: "text-embedding-3-small", Dimensions: 24, BatchSize: 5, Concurrency: 3})
	if _, err := e.Embed(context.Background(), texts(20)); !errors.Is(err, kgmem.ErrInvalid) {
		t.Errorf("Embed with one refused batch: %v, want ErrInvalid", err)
	}
}

func TestOpenAITruncatesLongTexts(t *testing.T) {
	api := llmtest.New(t)
	e := newOpenAI(t, embed.OpenAIConfig{BaseURL: api.URL(), Model: "text-embedding-3-small", Dimensions: 16, MaxInputRunes: 30})
	long := strings.Repeat("ünïcode wörds ", 100)
	vs, err := e.Embed(context.Background(), []string{long, "short"})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(vs[0], llmtest.Vector(string([]rune(long)[:30]), 16)) {
		t.Error("long text was not truncated to its first 30 runes")
	}
	if !slices.Equal(vs[1], llmtest.Vector("short", 16)) {
		t.Error("short text changed")
	}
}

func TestOpenAIBlankTextsNotSent(t *testing.T) {
	api := llmtest.New(t)
	e := newOpenAI(t, embed.OpenAIConfig{BaseURL: api.URL(), Model: "nomic-embed-text", Dimensions: llmtest.DefaultEmbeddingDim})
	vs, err := e.Embed(context.Background(), []string{"", "hello world", "  \n"})
	if err != nil {
		t.Fatal(err)
	}
	if len(vs) != 3 || !slices.Equal(vs[1], llmtest.Vector("hello world", llmtest.DefaultEmbeddingDim)) {
		t.Fatalf("got %d vectors; the non-blank one does not match", len(vs))
	}
	for _, i := range []int{0, 2} {
		if len(vs[i]) != llmtest.DefaultEmbeddingDim || slices.ContainsFunc(vs[i], func(x float32) bool { return x != 0 }) {
			t.Errorf("blank text %d: want the zero vector of length %d", i, llmtest.DefaultEmbeddingDim)
		}
	}
	if st := api.Stats(llmtest.EndpointEmbeddings); st.Calls != 1 {
		t.Errorf("%d calls, want 1", st.Calls)
	}
	vs, err = e.Embed(context.Background(), nil)
	if err != nil || len(vs) != 0 || api.Stats(llmtest.EndpointEmbeddings).Calls != 1 {
		t.Errorf("Embed(nil) = %d vectors, %v; want none and no call", len(vs), err)
	}
}

func TestOpenAIDimensions(t *testing.T) {
	tests := []struct {
		name    string
		cfg     embed.OpenAIConfig
		wantErr error
	}{
		// text-embedding-3 models take "dimensions": the server shortens to 32.
		{"sent to text-embedding-3", embed.OpenAIConfig{Model: "text-embedding-3-large", Dimensions: 32}, nil},
		// Other models (Ollama, vLLM) are not sent it; the server's 64 != 32.
		{"not sent to other models", embed.OpenAIConfig{Model: "nomic-embed-text", Dimensions: 32}, kgmem.ErrDimensionMismatch},
		{"forced", embed.OpenAIConfig{Model: "nomic-embed-text", Dimensions: 32, DimensionsParam: embed.DimensionsSend}, nil},
		{"omitted", embed.OpenAIConfig{Model: "text-embedding-3-small", Dimensions: 32, DimensionsParam: embed.DimensionsOmit}, kgmem.ErrDimensionMismatch},
		{"matching native length", embed.OpenAIConfig{Model: "nomic-embed-text", Dimensions: llmtest.DefaultEmbeddingDim}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			api := llmtest.New(t)
			tt.cfg.BaseURL = api.URL()
			e := newOpenAI(t, tt.cfg)
			vs, err := e.Embed(context.Background(), []string{"Bob leads the ML team"})
			if !errors.Is(err, tt.wantErr) || (tt.wantErr == nil) != (err == nil) {
				t.Fatalf("Embed: %v, want %v", err, tt.wantErr)
			}
			if err == nil && len(vs[0]) != tt.cfg.Dimensions {
				t.Errorf("got length %d, want %d", len(vs[0]), tt.cfg.Dimensions)
			}
			if api.Stats(llmtest.EndpointEmbeddings).Calls != 1 {
				t.Errorf("a dimension mismatch must not be retried: %d calls", api.Stats(llmtest.EndpointEmbeddings).Calls)
			}
		})
	}
}

func TestOpenAIRetries(t *testing.T) {
	tests := []struct {
		name      string
		failures  []int
		attempts  int
		wantErr   error
		wantTries int
	}{
		{"429 then success", []int{429, 429}, 5, nil, 3},
		{"5xx then success", []int{500, 502, 503}, 5, nil, 4},
		{"429 until attempts run out", []int{429, 429, 429}, 3, kgmem.ErrUnavailable, 3},
		{"400 is not retried", []int{400}, 5, kgmem.ErrInvalid, 1},
		{"401 is not retried", []int{401}, 5, kgmem.ErrUnavailable, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			api := llmtest.New(t)
			f := newFront(t, api)
			f.fail(tt.failures...)
			e := newOpenAI(t, embed.OpenAIConfig{BaseURL: f.srv.URL + "/v1", Model: "text-embedding-3-small", Dimensions: 16, MaxAttempts: tt.attempts})
			vs, err := e.Embed(context.Background(), []string{"a", "b"})
			if !errors.Is(err, tt.wantErr) || (tt.wantErr == nil) != (err == nil) {
				t.Fatalf("Embed: %v, want %v", err, tt.wantErr)
			}
			if got := len(f.seen()); got != tt.wantTries {
				t.Errorf("%d requests, want %d", got, tt.wantTries)
			}
			if err == nil && (len(vs) != 2 || !slices.Equal(vs[1], llmtest.Vector("b", 16))) {
				t.Errorf("wrong vectors after retries")
			}
		})
	}
}

// TestOpenAIHonoursRetryAfter retries a 429 after the wait its answer asks
// for (1 ms), not after the backoff, set here to an hour: were the header
// ignored, the call would still be waiting when its context ends.
func TestOpenAIHonoursRetryAfter(t *testing.T) {
	api := llmtest.New(t)
	f := newFront(t, api)
	f.retryAfterMs = "1"
	f.fail(429, 503)
	e, err := embed.NewOpenAI(embed.OpenAIConfig{BaseURL: f.srv.URL + "/v1", Model: "text-embedding-3-small", Dimensions: 16,
		MaxAttempts: 3, BackoffBase: time.Hour, BackoffMax: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := e.Embed(ctx, []string{"a"}); err != nil {
		t.Fatalf("Embed after two answers asking to retry in 1 ms: %v", err)
	}
	if got := len(f.seen()); got != 3 {
		t.Errorf("%d requests, want 3", got)
	}
}

func TestOpenAIUnreachable(t *testing.T) {
	dead := httptest.NewServer(http.NotFoundHandler())
	dead.Close() // nothing listens on its address any more
	e := newOpenAI(t, embed.OpenAIConfig{BaseURL: dead.URL + "/v1", Dimensions: 8, MaxAttempts: 2})
	_, err := e.Embed(context.Background(), []string{"x"})
	if !errors.Is(err, kgmem.ErrUnavailable) {
		t.Fatalf("Embed against a closed port: %v, want ErrUnavailable", err)
	}
}

func TestOpenAICancellation(t *testing.T) {
	arrived := make(chan struct{}, 1)
	release := make(chan struct{})
	blocking := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body) // so the server notices the client hanging up
		arrived <- struct{}{}
		select {
		case <-r.Context().Done():
		case <-release:
		}
	}))
	defer blocking.Close()
	defer close(release) // runs first: lets the handler return before Close waits for it
	e := newOpenAI(t, embed.OpenAIConfig{BaseURL: blocking.URL + "/v1", Dimensions: 8})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := e.Embed(ctx, []string{"x"})
		done <- err
	}()
	<-arrived
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("Embed after cancel: %v, want context.Canceled", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Embed did not return after its context was cancelled")
	}
	// A context cancelled while waiting to retry stops the retries too.
	api := llmtest.New(t)
	f := newFront(t, api)
	f.fail(429, 429, 429, 429)
	slow, err := embed.NewOpenAI(embed.OpenAIConfig{BaseURL: f.srv.URL + "/v1", Dimensions: 8, BackoffBase: time.Hour, BackoffMax: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel = context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if _, err := slow.Embed(ctx, []string{"x"}); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Embed with a deadline during backoff: %v, want context.DeadlineExceeded", err)
	}
	if got := len(f.seen()); got != 1 {
		t.Errorf("%d requests, want 1 (the backoff wait was cut short)", got)
	}
}

func TestOpenAIAzure(t *testing.T) {
	api := llmtest.New(t, llmtest.WithAPIKey("azure-key"))
	f := newFront(t, api)
	e := newOpenAI(t, embed.OpenAIConfig{BaseURL: f.srv.URL, APIKey: "azure-key", Azure: true, Model: "my-embedding-deployment", Dimensions: llmtest.DefaultEmbeddingDim})
	vs, err := e.Embed(context.Background(), []string{"hello"})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(vs[0], llmtest.Vector("hello", llmtest.DefaultEmbeddingDim)) {
		t.Error("wrong vector through Azure")
	}
	req := f.seen()[0]
	if want := "/openai/deployments/my-embedding-deployment/embeddings"; req.URL.Path != want {
		t.Errorf("Azure path %q, want %q", req.URL.Path, want)
	}
	if v := req.URL.Query().Get("api-version"); v != embed.DefaultAzureAPIVersion {
		t.Errorf("api-version %q, want %q", v, embed.DefaultAzureAPIVersion)
	}
	if req.Header.Get("api-key") != "azure-key" {
		t.Errorf("api-key header %q, want the key", req.Header.Get("api-key"))
	}
}

func TestNewOpenAIConfig(t *testing.T) {
	tests := []struct {
		name     string
		cfg      embed.OpenAIConfig
		wantDim  int
		wantName string
		wantErr  bool
	}{
		{"defaults", embed.OpenAIConfig{}, 1536, "text-embedding-3-small-1536", false},
		{"large native", embed.OpenAIConfig{Model: "text-embedding-3-large"}, 3072, "text-embedding-3-large-3072", false},
		{"shortened", embed.OpenAIConfig{Model: "text-embedding-3-large", Dimensions: 256}, 256, "text-embedding-3-large-256", false},
		{"unknown model needs dimensions", embed.OpenAIConfig{Model: "nomic-embed-text"}, 0, "", true},
		{"negative batch", embed.OpenAIConfig{BatchSize: -1}, 0, "", true},
		{"azure without base url", embed.OpenAIConfig{Azure: true}, 0, "", true},
		{"bad dimensions param", embed.OpenAIConfig{DimensionsParam: 9}, 0, "", true},
		{"negative concurrency", embed.OpenAIConfig{Concurrency: -2}, 0, "", true},
		{"negative max input", embed.OpenAIConfig{MaxInputRunes: -2}, 0, "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, err := embed.NewOpenAI(tt.cfg)
			if tt.wantErr {
				if !errors.Is(err, kgmem.ErrInvalid) {
					t.Fatalf("NewOpenAI: %v, want ErrInvalid", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if e.Dimension() != tt.wantDim || e.Name() != tt.wantName {
				t.Errorf("got %d %q, want %d %q", e.Dimension(), e.Name(), tt.wantDim, tt.wantName)
			}
		})
	}
}
