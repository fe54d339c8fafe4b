package retry

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

func TestAfter(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for _, tc := range []struct {
		name string
		h    http.Header
		want time.Duration
	}{
		{"none", http.Header{}, 0},
		{"seconds", http.Header{"Retry-After": {"3"}}, 3 * time.Second},
		{"fractional seconds", http.Header{"Retry-After": {"0.5"}}, 500 * time.Millisecond},
		{"milliseconds first", http.Header{"Retry-After-Ms": {"250"}, "Retry-After": {"9"}}, 250 * time.Millisecond},
		{"HTTP date", http.Header{"Retry-After": {now.Add(7 * time.Second).Format(http.TimeFormat)}}, 7 * time.Second},
		{"past date", http.Header{"Retry-After": {now.Add(-time.Minute).Format(http.TimeFormat)}}, 0},
		{"garbage", http.Header{"Retry-After": {"soon"}}, 0},
		{"negative", http.Header{"Retry-After": {"-4"}}, 0},
	} {
		if got := After(tc.h, now); got != tc.want {
			t.Errorf("%s: After = %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestWait(t *testing.T) {
	p := Policy{Base: 100 * time.Millisecond, Max: time.Second}
	for _, tc := range []struct {
		name       string
		p          Policy
		attempt    int
		retryAfter time.Duration
		lo, hi     time.Duration
	}{
		{"first retry", p, 0, 0, 50 * time.Millisecond, 100 * time.Millisecond},
		{"third retry", p, 2, 0, 200 * time.Millisecond, 400 * time.Millisecond},
		{"capped", p, 10, 0, 500 * time.Millisecond, time.Second},
		{"huge attempt", p, 1 << 20, 0, 500 * time.Millisecond, time.Second},
		{"Retry-After replaces", p, 0, 700 * time.Millisecond, 700 * time.Millisecond, 700 * time.Millisecond},
		{"Retry-After capped", p, 0, time.Hour, time.Second, time.Second},
		{"no cap", Policy{Base: time.Second}, 3, time.Hour, time.Hour, time.Hour},
		{"nothing", Policy{}, 3, 0, 0, 0},
	} {
		for range 20 {
			if got := tc.p.Wait(tc.attempt, tc.retryAfter); got < tc.lo || got > tc.hi {
				t.Errorf("%s: Wait = %v, want within [%v, %v]", tc.name, got, tc.lo, tc.hi)
				break
			}
		}
	}
}

// TestDoerNotes carries a 429's Retry-After up to the context's Hint, and
// ignores it on answers not worth a retry.
func TestDoerNotes(t *testing.T) {
	status := http.StatusTooManyRequests
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Retry-After", "2")
		w.WriteHeader(status)
	}))
	defer srv.Close()
	for _, tc := range []struct {
		status int
		want   time.Duration
	}{
		{http.StatusTooManyRequests, 2 * time.Second},
		{http.StatusServiceUnavailable, 2 * time.Second},
		{http.StatusBadRequest, 0},
	} {
		status = tc.status
		ctx, hint := WithHint(context.Background())
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL, nil)
		if err != nil {
			t.Fatal(err)
		}
		resp, err := Doer{}.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_ = resp.Body.Close()
		if got := hint.Get(); got != tc.want {
			t.Errorf("status %d: hint %v, want %v", tc.status, got, tc.want)
		}
	}
}

func TestSleepEndsWithContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := Sleep(ctx, time.Hour); !errors.Is(err, context.Canceled) {
		t.Errorf("Sleep on a cancelled context: %v", err)
	}
	if err := Sleep(context.Background(), 0); err != nil {
		t.Errorf("Sleep 0: %v", err)
	}
}

// TestDo retries transient failures up to the budget, waits what the
// answer asked for, and stops at once on others.
func TestDo(t *testing.T) {
	errTransient, errPermanent := errors.New("busy"), errors.New("refused")
	transient := func(err error) bool { return errors.Is(err, errTransient) }
	for _, tc := range []struct {
		name      string
		failures  []error
		retries   int
		wantErr   error
		wantCalls int
	}{
		{"success", nil, 2, nil, 1},
		{"transient then success", []error{errTransient, errTransient}, 2, nil, 3},
		{"budget spent", []error{errTransient, errTransient, errTransient}, 2, errTransient, 3},
		{"no retries", []error{errTransient}, 0, errTransient, 1},
		{"permanent", []error{errPermanent, errTransient}, 2, errPermanent, 1},
	} {
		calls := 0
		// An hour of backoff: only the noted Retry-After (1 ms) lets the
		// retries happen before the test's deadline.
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		err := Policy{Base: time.Hour}.Do(ctx, tc.retries, transient, func(ctx context.Context) error {
			calls++
			if calls > len(tc.failures) {
				return nil
			}
			req, _ := http.NewRequestWithContext(ctx, http.MethodGet, "http://x", nil)
			Note(&http.Response{StatusCode: http.StatusServiceUnavailable, Header: http.Header{"Retry-After-Ms": {"1"}}, Request: req})
			return tc.failures[calls-1]
		})
		cancel()
		if !errors.Is(err, tc.wantErr) || (tc.wantErr == nil) != (err == nil) || calls != tc.wantCalls {
			t.Errorf("%s: %v after %d calls, want %v after %d", tc.name, err, calls, tc.wantErr, tc.wantCalls)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err := Policy{Base: time.Hour}.Do(ctx, 3, transient, func(context.Context) error { return errTransient })
	if !errors.Is(err, context.Canceled) || !errors.Is(err, errTransient) {
		t.Errorf("a cancelled context: %v, want it joined with the last failure", err)
	}
}
