package embed

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"time"

	"github.com/kgmem/kgmem"
	openai "github.com/sashabaranov/go-openai"
)

// retry runs call up to attempts times, waiting with exponential backoff and
// full jitter between tries, while the failure is transient (rate limit,
// server error, network failure, request timeout). The returned error wraps
// the kgmem error kind of the last failure, or the context's error.
func retry(ctx context.Context, attempts int, base, maxWait time.Duration, call func() error) error {
	var err error
	for attempt := range attempts {
		if attempt > 0 {
			wait := min(maxWait, base<<(attempt-1))
			wait = wait/2 + rand.N(wait/2+1) // jitter in [wait/2, wait]
			t := time.NewTimer(wait)
			select {
			case <-ctx.Done():
				t.Stop()
				return fmt.Errorf("after %d attempts (last: %v): %w", attempt, err, ctx.Err())
			case <-t.C:
			}
		}
		err = call()
		if err == nil {
			return nil
		}
		if ctx.Err() != nil {
			return fmt.Errorf("%w (%v)", ctx.Err(), err)
		}
		if !transient(err) {
			return classify(err)
		}
	}
	return fmt.Errorf("%w: %d attempts failed, last: %w", kgmem.ErrUnavailable, attempts, err)
}

// statusOf returns the HTTP status of an API error, or 0 for failures
// without one (network errors, timeouts).
func statusOf(err error) int {
	var apiErr *openai.APIError
	if errors.As(err, &apiErr) {
		return apiErr.HTTPStatusCode
	}
	var reqErr *openai.RequestError
	if errors.As(err, &reqErr) {
		return reqErr.HTTPStatusCode
	}
	return 0
}

// transient reports whether a retry may succeed.
func transient(err error) bool {
	switch s := statusOf(err); {
	case s == 0: // no response: network failure or per-request timeout
		return true
	case s == http.StatusTooManyRequests, s == http.StatusRequestTimeout, s >= 500:
		return true
	default:
		return false
	}
}

// classify wraps a permanent API failure in its kgmem error kind: a refused
// input is ErrInvalid; anything else (bad key, unknown model or URL) means
// the backend is unusable as configured, ErrUnavailable.
func classify(err error) error {
	switch statusOf(err) {
	case http.StatusBadRequest, http.StatusUnprocessableEntity, http.StatusRequestEntityTooLarge:
		return fmt.Errorf("%w: %w", kgmem.ErrInvalid, err)
	default:
		return fmt.Errorf("%w: %w", kgmem.ErrUnavailable, err)
	}
}
