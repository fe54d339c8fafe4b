// Package polltest waits in tests for a condition another goroutine or
// process brings about: polling with a deadline, never a bare sleep.
package polltest

import (
	"testing"
	"time"
)

// Interval is how often Until checks its condition.
const Interval = 10 * time.Millisecond

// Until checks cond every Interval until it holds, and fails t (naming
// what it waited for) once within has passed without it holding.
func Until(t testing.TB, within time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(within)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s waiting for %s", within, what)
		}
		time.Sleep(Interval)
	}
}
