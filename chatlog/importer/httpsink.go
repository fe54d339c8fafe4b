package importer

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/episodes"
	"github.com/kgmem/kgmem/internal/apiclient"
	"github.com/kgmem/kgmem/memory"
)

// Sink stores one batch of one thread; *memory.Engine is one.
type Sink interface {
	Ingest(ctx context.Context, req memory.IngestRequest) (memory.IngestResult, error)
}

// HTTPSink posts batches to a running server's POST /v1/memories. A 429 or
// 503 answer (an overloaded server or its LLM) is retried after the server's
// Retry-After, or with exponential backoff and jitter, up to MaxAttempts.
type HTTPSink struct {
	base *url.URL
	http *http.Client
	// MaxAttempts per batch (default 8).
	MaxAttempts int
	// MinBackoff and MaxBackoff bound the waits between attempts (defaults 500 ms, 30 s).
	MinBackoff, MaxBackoff time.Duration
	// APIKey, when set, is sent as "Authorization: Bearer <key>".
	APIKey  string
	retries atomic.Int64
}

// NewHTTPSink returns a sink posting to the server at baseURL.
func NewHTTPSink(baseURL string, hc *http.Client) (*HTTPSink, error) {
	u, err := apiclient.ParseBaseURL(baseURL)
	if err != nil {
		return nil, err
	}
	if hc == nil {
		hc = apiclient.NewHTTPClient(5 * time.Minute)
	}
	return &HTTPSink{base: u, http: hc, MaxAttempts: 8, MinBackoff: 500 * time.Millisecond, MaxBackoff: 30 * time.Second}, nil
}

// Retries counts the attempts repeated after a 429 or 503.
func (s *HTTPSink) Retries() int64 { return s.retries.Load() }

type wireRequest struct {
	Namespace string             `json:"namespace"`
	ThreadID  string             `json:"thread_id"`
	Messages  []episodes.Message `json:"messages"`
	Extract   bool               `json:"extract"`
}

// Ingest implements Sink.
func (s *HTTPSink) Ingest(ctx context.Context, req memory.IngestRequest) (memory.IngestResult, error) {
	body := wireRequest{Namespace: string(req.Namespace), ThreadID: req.ThreadID, Extract: req.Extract}
	for _, m := range req.Messages {
		m.Timestamp = m.Timestamp.UTC() // a zero timestamp stays zero and is left out
		body.Messages = append(body.Messages, m)
	}
	raw, err := json.Marshal(body)
	if err != nil {
		return memory.IngestResult{}, fmt.Errorf("encode batch: %w", err)
	}
	u := s.base.String() + "/v1/memories"
	for attempt := 1; ; attempt++ {
		res, retryAfter, err := s.post(ctx, u, raw)
		if err == nil || retryAfter < 0 || attempt >= s.MaxAttempts {
			return res, err
		}
		wait := s.backoff(attempt, retryAfter)
		s.retries.Add(1)
		select {
		case <-ctx.Done():
			return memory.IngestResult{}, fmt.Errorf("POST %s: %w (last: %v)", u, ctx.Err(), err)
		case <-time.After(wait):
		}
	}
}

// backoff is the server's Retry-After when given, else exponential with full jitter.
func (s *HTTPSink) backoff(attempt int, retryAfter time.Duration) time.Duration {
	if retryAfter > 0 {
		return min(retryAfter, s.MaxBackoff)
	}
	d := s.MinBackoff << min(attempt-1, 20)
	d = min(d, s.MaxBackoff)
	return d/2 + rand.N(d/2+1)
}

// post sends one attempt. retryAfter is negative when the error is final,
// zero when retryable without a server hint.
func (s *HTTPSink) post(ctx context.Context, u string, raw []byte) (memory.IngestResult, time.Duration, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u, bytes.NewReader(raw))
	if err != nil {
		return memory.IngestResult{}, -1, fmt.Errorf("POST %s: %w", u, err)
	}
	req.Header.Set("Content-Type", "application/json")
	if s.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+s.APIKey)
	}
	resp, err := s.http.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return memory.IngestResult{}, -1, fmt.Errorf("POST %s: %w", u, ctx.Err())
		}
		return memory.IngestResult{}, 0, fmt.Errorf("%w: POST %s: %v (is the kgmem server running?)", kgmem.ErrUnavailable, u, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return memory.IngestResult{}, 0, fmt.Errorf("%w: POST %s: read answer: %v", kgmem.ErrUnavailable, u, err)
	}
	switch {
	case resp.StatusCode == http.StatusOK || resp.StatusCode == http.StatusCreated:
		var res memory.IngestResult
		if err := json.Unmarshal(body, &res); err != nil {
			return memory.IngestResult{}, -1, fmt.Errorf("POST %s: decode answer: %w", u, err)
		}
		return res, 0, nil
	case resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode == http.StatusServiceUnavailable:
		return memory.IngestResult{}, retryAfterOf(resp.Header.Get("Retry-After")), fmt.Errorf("%w: POST %s: %d: %s", kgmem.ErrUnavailable, u, resp.StatusCode, detail(body))
	case resp.StatusCode >= 400 && resp.StatusCode < 500:
		return memory.IngestResult{}, -1, fmt.Errorf("%w: POST %s: %d: %s", kgmem.ErrInvalid, u, resp.StatusCode, detail(body))
	}
	return memory.IngestResult{}, -1, fmt.Errorf("POST %s: %d: %s", u, resp.StatusCode, detail(body))
}

// retryAfterOf parses Retry-After in seconds or as an HTTP date (0: absent).
func retryAfterOf(h string) time.Duration {
	if h == "" {
		return 0
	}
	if n, err := strconv.Atoi(strings.TrimSpace(h)); err == nil && n >= 0 {
		return time.Duration(n) * time.Second
	}
	if t, err := http.ParseTime(h); err == nil {
		return max(time.Until(t), 0)
	}
	return 0
}

// detail is a problem+json answer's field and detail, or the raw body cut short.
func detail(body []byte) string {
	var p struct {
		Detail string `json:"detail"`
		Field  string `json:"field"`
	}
	if json.Unmarshal(body, &p) == nil && p.Detail != "" {
		if p.Field != "" && !strings.Contains(p.Detail, p.Field) {
			return p.Field + ": " + p.Detail
		}
		return p.Detail
	}
	s := strings.TrimSpace(string(body))
	if len(s) > 300 {
		s = s[:300] + "…"
	}
	return s
}
