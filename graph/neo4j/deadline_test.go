package neo4j_test

import (
	"context"
	"errors"
	"testing"
	"time"
)

// TestReadPastItsDeadlineIsADeadlineError checks that a query cut off by
// its context's deadline while the driver reads its answer fails with an
// error wrapping context.DeadlineExceeded: the driver reports it as a
// cancelled connection read that wraps nothing, which the API would answer
// with a 500 instead of a timeout.
func TestReadPastItsDeadlineIsADeadlineError(t *testing.T) {
	s := openStore(t)
	for _, q := range []struct {
		query string
		after time.Duration
	}{{`UNWIND range(1, 200000000) AS x RETURN count(x)`, 50 * time.Millisecond}, {`UNWIND range(1, 20000000) AS x RETURN x`, 300 * time.Millisecond}} {
		query, after := q.query, q.after
		ctx, cancel := context.WithTimeout(t.Context(), after)
		err := s.Read(ctx, query)
		cancel()
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("a read cut off after %s: got %v (%T), want an error wrapping context.DeadlineExceeded", after, err, errors.Unwrap(err))
		}
	}
}
