package memory

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/kgmem/kgmem"
)

// timelines caches each namespace's timeline end: the latest message time
// or fact validity bound it holds, the instant relative time expressions
// ("last year", "two years ago") resolve against. A write to a namespace
// drops its entry; the next search that needs it reads it again.
type timelines struct {
	mu  sync.Mutex
	end map[kgmem.Namespace]time.Time
	// gen counts forgets, so that a scan that overlapped a write does not
	// store what it read.
	gen uint64
}

// forget drops ns's cached end (after a write or a purge).
func (t *timelines) forget(ns kgmem.Namespace) {
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.end, ns)
	t.gen++
}

// timelineEnd returns the latest message timestamp or fact validity bound
// (valid_at, invalid_at) of ns, or the zero time for an empty namespace.
func (e *Engine) timelineEnd(ctx context.Context, ns kgmem.Namespace) (time.Time, error) {
	e.timelines.mu.Lock()
	end, ok := e.timelines.end[ns]
	gen := e.timelines.gen
	e.timelines.mu.Unlock()
	if ok {
		return end, nil
	}
	end, err := e.graph.LatestTime(ctx, ns)
	if err != nil {
		return time.Time{}, fmt.Errorf("timeline of %q: %w", ns, err)
	}
	e.timelines.mu.Lock()
	defer e.timelines.mu.Unlock()
	if e.timelines.gen != gen {
		return end, nil
	}
	if e.timelines.end == nil {
		e.timelines.end = map[kgmem.Namespace]time.Time{}
	}
	e.timelines.end[ns] = end
	return end, nil
}
