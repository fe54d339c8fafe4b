package polltest

import (
	"runtime"
	"sync/atomic"
	"testing"
	"time"
)

// TestUntil returns once the condition holds, and fails a test whose
// condition never does.
func TestUntil(t *testing.T) {
	var n atomic.Int32
	go func() {
		for range 3 {
			n.Add(1)
		}
	}()
	Until(t, 10*time.Second, "three increments", func() bool { return n.Load() == 3 })

	ft := &failing{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		Until(ft, 30*time.Millisecond, "never", func() bool { return false })
	}()
	<-done
	if !ft.failed {
		t.Error("a condition that never held did not fail the test")
	}
}

// failing records Fatalf, and ends its goroutine as testing.T would,
// instead of failing the test it wraps.
type failing struct {
	testing.TB
	failed bool
}

func (f *failing) Helper() {}

func (f *failing) Fatalf(string, ...any) {
	f.failed = true
	runtime.Goexit()
}
