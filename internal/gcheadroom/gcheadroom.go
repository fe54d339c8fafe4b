// Package gcheadroom keeps Go's collector from running often while a
// process's live heap is small.
//
// With GOGC=100 the collector runs each time the heap has grown by as much
// as was live after the last collection. A server whose live heap is tens of
// megabytes but which allocates hundreds of megabytes a second under load
// then collects several times a second, and marks the same live heap each
// time: a tenth of a loaded server's CPU can go to the collector. A Tuner raises the GC percent after each collection so
// that the next one comes once the heap has grown by at least a fixed
// headroom, and by GOGC percent of the live heap when that is more: a small
// heap trades a bounded amount of memory for fewer collections, and a large
// one (a million facts in memory) is collected as GOGC says.
//
// The headroom is for a busy process: once no collection has run for a
// while (Config.IdleAfter) and the heap holds more than GOGC alone would
// let it, the Tuner collects, so an idle server returns to the heap it
// would have had without it.
//
// The GC percent is process-wide: start one Tuner per process, from main.
// A memory limit (GOMEMLIMIT, debug.SetMemoryLimit) still bounds the heap,
// and GOGC=off is left alone.
package gcheadroom

import (
	"math"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
	"time"
)

// The runtime metrics a Tuner reads: the heap the last collection found
// live, the heap's objects now (live and not yet collected), collections
// so far.
const (
	liveHeapMetric    = "/gc/heap/live:bytes"
	heapObjectsMetric = "/memory/classes/heap/objects:bytes"
	gcCyclesMetric    = "/gc/cycles/total:gc-cycles"
)

// DefaultIdleAfter is Config.IdleAfter's default.
const DefaultIdleAfter = 10 * time.Second

// Config configures a Tuner.
type Config struct {
	// Headroom is the growth, in bytes, the heap is allowed past the live
	// heap before the next collection; 0 leaves the collector to GOGC.
	Headroom uint64
	// IdleAfter: when no collection has run for this long and the heap
	// holds more than GOGC alone would let it, the Tuner collects. 0 means
	// DefaultIdleAfter.
	IdleAfter time.Duration
}

// Percent returns the GC percent that lets a heap of live bytes grow by at
// least headroom bytes, and by base percent when that is more, before the
// next collection. A base below zero (GOGC=off) is returned as it is.
func Percent(live, headroom uint64, base int) int {
	if base < 0 || live == 0 {
		return base
	}
	need := math.Ceil(float64(headroom) * 100 / float64(live))
	if need <= float64(base) {
		return base
	}
	// At most math.MaxInt32: the runtime keeps the percent in an int32.
	return int(min(need, math.MaxInt32))
}

// GCPercent returns the process's GC percent now (debug.SetGCPercent has no
// getter: it is set and set back).
func GCPercent() int {
	p := debug.SetGCPercent(100)
	debug.SetGCPercent(p)
	return p
}

// Tuner adjusts the GC percent after every collection, and collects an
// idle heap (see the package doc). It is safe for concurrent use.
type Tuner struct {
	headroom uint64
	base     int
	done     chan struct{} // closed by Stop; ends the idle watch

	mu      sync.Mutex
	stopped bool
	percent int
	sample  []metrics.Sample
}

// Start starts a Tuner; its base is the GC percent in force when it starts
// (GOGC, 100 by default). A headroom of 0 or GOGC=off starts nothing and
// returns a Tuner whose Stop does nothing.
func Start(cfg Config) *Tuner {
	base := GCPercent()
	t := &Tuner{headroom: cfg.Headroom, base: base, percent: base, done: make(chan struct{}),
		sample: []metrics.Sample{{Name: liveHeapMetric}, {Name: heapObjectsMetric}, {Name: gcCyclesMetric}}}
	if cfg.Headroom == 0 || base < 0 {
		t.stopped = true
		return t
	}
	t.adjust()
	t.arm()
	idle := cfg.IdleAfter
	if idle <= 0 {
		idle = DefaultIdleAfter
	}
	go t.collectWhenIdle(idle)
	return t
}

// collectWhenIdle checks every interval whether a collection ran since the
// last check, and when none did and the heap holds more than GOGC alone
// would let it (live × (1 + GOGC/100)), collects.
func (t *Tuner) collectWhenIdle(interval time.Duration) {
	tick := time.NewTicker(interval)
	defer tick.Stop()
	var lastCycles uint64
	for {
		select {
		case <-t.done:
			return
		case <-tick.C:
		}
		live, objects, cycles, ok := t.read()
		if ok && cycles == lastCycles && float64(objects) > float64(live)*(1+float64(t.base)/100) {
			runtime.GC()
			_, _, cycles, _ = t.read()
		}
		lastCycles = cycles
	}
}

// read returns the live heap, the heap's objects and the collections so
// far; ok is false when this runtime does not report them.
func (t *Tuner) read() (live, objects, cycles uint64, ok bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	metrics.Read(t.sample)
	for _, s := range t.sample {
		if s.Value.Kind() != metrics.KindUint64 {
			return 0, 0, 0, false
		}
	}
	return t.sample[0].Value.Uint64(), t.sample[1].Value.Uint64(), t.sample[2].Value.Uint64(), true
}

// arm registers a cleanup on a fresh object that nothing references, so
// that it runs once the next collection has found it unreachable, adjusts
// the percent, and arms again.
func (t *Tuner) arm() {
	runtime.AddCleanup(new(sentinel), func(t *Tuner) {
		if t.adjust() {
			t.arm()
		}
	}, t)
}

// sentinel is the unreferenced object whose cleanup marks a collection. It
// has a field so that each is its own allocation (zero-sized ones share an
// address and are never collected).
type sentinel struct{ _ int64 }

// adjust sets the percent for the live heap the last collection left, and
// reports whether the Tuner still runs.
func (t *Tuner) adjust() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.stopped {
		return false
	}
	metrics.Read(t.sample[:1])
	if t.sample[0].Value.Kind() != metrics.KindUint64 {
		return true // not reported by this runtime: leave GOGC as it is
	}
	want := Percent(t.sample[0].Value.Uint64(), t.headroom, t.base)
	// Small changes are not worth a call into the pacer.
	if want != t.percent && (want == t.base || math.Abs(float64(want-t.percent)) > float64(t.percent)/20) {
		debug.SetGCPercent(want)
		t.percent = want
	}
	return true
}

// Stop stops adjusting and restores the GC percent the Tuner started with.
func (t *Tuner) Stop() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.stopped {
		return
	}
	t.stopped = true
	close(t.done)
	debug.SetGCPercent(t.base)
	t.percent = t.base
}

// Percent returns the GC percent the Tuner last set.
func (t *Tuner) Percent() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.percent
}

// Base returns the GC percent the Tuner started with (GOGC).
func (t *Tuner) Base() int { return t.base }
