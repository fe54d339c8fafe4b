// Package retry is the one retry policy of kgmem's HTTP callers: the
// OpenAI-compatible endpoints (extraction, embeddings, reranking) and the Go
// client of the REST API. It computes the wait before a retry — the
// server's Retry-After when it gave one, else exponential backoff with
// jitter — reads Retry-After in every form those servers send, and carries
// it from the HTTP layer to a retry loop above a library (go-openai) whose
// errors do not expose headers.
//
// It imports only the standard library: the Go client may use it and still
// depend on nothing of the engine.
package retry

import (
	"context"
	"errors"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Policy is how long to wait between tries.
type Policy struct {
	// Base is the first backoff, doubled at each retry.
	Base time.Duration
	// Max caps one wait, the server's Retry-After included (0: no cap).
	Max time.Duration
}

// Wait is the wait before retry number attempt+1 (attempt 0 is the first
// retry): retryAfter when the server asked for one (> 0), else Base·2^attempt
// with jitter in [d/2, d]; either capped at Max.
func (p Policy) Wait(attempt int, retryAfter time.Duration) time.Duration {
	if retryAfter > 0 {
		if p.Max > 0 {
			return min(retryAfter, p.Max)
		}
		return retryAfter
	}
	d := p.Base << min(max(attempt, 0), 20)
	if d <= 0 || (p.Max > 0 && d > p.Max) {
		d = p.Max
	}
	if d <= 0 {
		return 0
	}
	half := d / 2
	return half + time.Duration(rand.Int64N(int64(half)+1))
}

// After reads how long an answer asks the caller to wait: retry-after-ms
// (OpenAI, Azure), then Retry-After as seconds or an HTTP date; 0 when it
// asks for nothing usable.
func After(h http.Header, now time.Time) time.Duration {
	if ms, err := strconv.ParseFloat(h.Get("retry-after-ms"), 64); err == nil && ms > 0 {
		return time.Duration(ms * float64(time.Millisecond))
	}
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil && s > 0 {
		return time.Duration(s * float64(time.Second))
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return t.Sub(now)
	}
	return 0
}

// Retryable reports the HTTP statuses of an OpenAI-compatible endpoint
// worth another try: rate limited, request timeout, or a server error.
func Retryable(status int) bool {
	return status == http.StatusTooManyRequests || status == http.StatusRequestTimeout || status >= 500
}

// Sleep waits d, or until ctx ends (then its error).
func Sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Hint carries an answer's Retry-After from the HTTP layer up to the retry
// loop (WithHint, Note).
type Hint struct {
	mu sync.Mutex
	d  time.Duration
}

// Get returns the last Retry-After noted, 0 for none.
func (h *Hint) Get() time.Duration {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.d
}

type hintKey struct{}

// WithHint returns a context whose requests note their answers'
// Retry-After into the returned Hint (through Note or Doer).
func WithHint(ctx context.Context) (context.Context, *Hint) {
	h := new(Hint)
	return context.WithValue(ctx, hintKey{}, h), h
}

// Note records the Retry-After of a retryable answer (Retryable status)
// into the Hint of its request's context, if any.
func Note(resp *http.Response) {
	if resp == nil || resp.Request == nil || !Retryable(resp.StatusCode) {
		return
	}
	h, ok := resp.Request.Context().Value(hintKey{}).(*Hint)
	if !ok {
		return
	}
	if d := After(resp.Header, time.Now()); d > 0 {
		h.mu.Lock()
		h.d = d
		h.mu.Unlock()
	}
}

// Doer is an HTTP client that notes the Retry-After of each answer (Note):
// what go-openai's configuration takes as its HTTPClient.
type Doer struct{ Client *http.Client }

// Do sends r with the client (http.DefaultClient when nil) and notes the
// answer's Retry-After.
func (d Doer) Do(r *http.Request) (*http.Response, error) {
	hc := d.Client
	if hc == nil {
		hc = http.DefaultClient
	}
	resp, err := hc.Do(r)
	if err == nil {
		if resp.Request == nil {
			resp.Request = r
		}
		Note(resp)
	}
	return resp, err
}

// Do runs call, then again up to retries more times while it fails with an
// error transient accepts, waiting between tries as p says: the Retry-After
// the last answer asked for (noted into call's context by Doer or Note),
// else backoff. It returns nil, the first error not worth a retry, or the
// last one; when ctx ends before a retry, ctx's error joined with the last.
func (p Policy) Do(ctx context.Context, retries int, transient func(error) bool, call func(ctx context.Context) error) error {
	for attempt := 0; ; attempt++ {
		hctx, hint := WithHint(ctx)
		err := call(hctx)
		if err == nil || attempt >= retries || !transient(err) {
			return err
		}
		if ctx.Err() != nil {
			return errors.Join(ctx.Err(), err)
		}
		if serr := Sleep(ctx, p.Wait(attempt, hint.Get())); serr != nil {
			return errors.Join(serr, err)
		}
	}
}
