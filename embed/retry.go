package embed

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/kgmem/kgmem"
	httpretry "github.com/kgmem/kgmem/internal/retry"
	openai "github.com/sashabaranov/go-openai"
)

// retry runs call up to attempts times while the failure is transient (rate
// limit, server error, network failure, request timeout), waiting between
// tries as the shared policy says (internal/retry): the server's
// Retry-After when its answer gave one, else exponential backoff with
// jitter, capped at maxWait. The returned error wraps the kgmem error kind
// of the last failure, or the context's error.
func retry(ctx context.Context, attempts int, base, maxWait time.Duration, call func(ctx context.Context) error) error {
	policy := httpretry.Policy{Base: base, Max: maxWait}
	var (
		err   error
		after time.Duration
	)
	for attempt := range attempts {
		if attempt > 0 {
			if serr := httpretry.Sleep(ctx, policy.Wait(attempt-1, after)); serr != nil {
				return fmt.Errorf("after %d attempts (last: %v): %w", attempt, err, serr)
			}
		}
		hctx, hint := httpretry.WithHint(ctx)
		err = call(hctx)
		after = hint.Get()
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
	s := statusOf(err)
	return s == 0 || httpretry.Retryable(s) // 0: no response (network failure, per-request timeout)
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
