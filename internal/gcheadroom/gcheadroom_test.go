package gcheadroom_test

import (
	"math"
	"runtime"
	"runtime/debug"
	"testing"
	"time"

	"github.com/kgmem/kgmem/internal/gcheadroom"
)

const mib = 1 << 20

func TestPercent(t *testing.T) {
	tests := []struct {
		name           string
		live, headroom uint64
		base, want     int
	}{
		{"small heap: the headroom", 10 * mib, 128 * mib, 100, 1280},
		{"rounded up", 3 * mib, 128 * mib, 100, 4267},
		{"large heap: GOGC", 1024 * mib, 128 * mib, 100, 100},
		{"headroom equal to GOGC's growth", 128 * mib, 128 * mib, 100, 100},
		{"a higher GOGC wins", 100 * mib, 128 * mib, 200, 200},
		{"GOGC=off stays off", 10 * mib, 128 * mib, -1, -1},
		{"nothing live yet", 0, 128 * mib, 100, 100},
		{"capped at the runtime's int32", 1, 1 << 40, 100, math.MaxInt32},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := gcheadroom.Percent(tc.live, tc.headroom, tc.base); got != tc.want {
				t.Errorf("Percent(%d, %d, %d) = %d, want %d", tc.live, tc.headroom, tc.base, got, tc.want)
			}
		})
	}
}

// collectUntil runs collections until ok holds (the Tuner adjusts from a
// cleanup, which runs after a collection on its own goroutine) or fails
// after a deadline.
func collectUntil(t *testing.T, what string, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("no %s within 10 s: GC percent %d", what, gcheadroom.GCPercent())
		}
		runtime.GC()
		runtime.Gosched()
	}
}

// The GC percent process-wide: the tests below run one after another.

func TestTunerFollowsTheLiveHeap(t *testing.T) {
	base := gcheadroom.GCPercent()
	tuner := gcheadroom.Start(gcheadroom.Config{Headroom: 64 * mib})
	t.Cleanup(tuner.Stop)
	if tuner.Base() != base {
		t.Fatalf("Base() = %d, want the GOGC in force %d", tuner.Base(), base)
	}

	// The test binary's live heap is a few MiB: 64 MiB of headroom is
	// many times GOGC's growth.
	collectUntil(t, "raised percent", func() bool { return tuner.Percent() > 4*base && gcheadroom.GCPercent() == tuner.Percent() })

	// A live heap of 256 MiB grows by GOGC percent, more than 64 MiB.
	live := make([]byte, 256*mib)
	for i := range live {
		live[i] = byte(i)
	}
	collectUntil(t, "return to GOGC under a large heap", func() bool { return tuner.Percent() == base && gcheadroom.GCPercent() == base })
	runtime.KeepAlive(live)
	live = nil

	collectUntil(t, "raised percent once the heap is small again", func() bool { return tuner.Percent() > 4*base && gcheadroom.GCPercent() == tuner.Percent() })

	tuner.Stop()
	if got := gcheadroom.GCPercent(); got != base {
		t.Fatalf("after Stop the GC percent is %d, want %d", got, base)
	}
	// Stopped, it no longer follows collections.
	for range 3 {
		runtime.GC()
	}
	if got := gcheadroom.GCPercent(); got != base {
		t.Fatalf("collections after Stop set the GC percent to %d, want %d", got, base)
	}
	tuner.Stop() // twice is harmless
}

func TestTunerLeavesGOGCAlone(t *testing.T) {
	tests := []struct {
		name     string
		gogc     int
		headroom uint64
	}{
		{"no headroom", 100, 0},
		{"GOGC=off", -1, 64 * mib},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			old := debug.SetGCPercent(tc.gogc)
			defer debug.SetGCPercent(old)
			tuner := gcheadroom.Start(gcheadroom.Config{Headroom: tc.headroom})
			defer tuner.Stop()
			for range 3 {
				runtime.GC()
			}
			if got := gcheadroom.GCPercent(); got != tc.gogc || tuner.Percent() != tc.gogc {
				t.Fatalf("GC percent %d (tuner %d), want %d untouched", got, tuner.Percent(), tc.gogc)
			}
		})
	}
}

func TestTunerCollectsWhenIdle(t *testing.T) {
	tuner := gcheadroom.Start(gcheadroom.Config{Headroom: 256 * mib, IdleAfter: 20 * time.Millisecond})
	defer tuner.Stop()
	collectUntil(t, "raised percent", func() bool { return tuner.Percent() > 4*tuner.Base() })

	// Garbage the headroom lets stay: 64 MiB allocated and dropped, far
	// below the next collection's goal.
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	for range 64 {
		garbage = make([]byte, mib)
	}
	garbage = nil

	// Nothing else allocates much here: the Tuner sees no collection for
	// a whole interval and collects the garbage itself.
	deadline := time.Now().Add(10 * time.Second)
	for {
		var now runtime.MemStats
		runtime.ReadMemStats(&now)
		if now.NumGC > before.NumGC && now.HeapAlloc < before.HeapAlloc+32*mib {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no collection of an idle heap within 10 s: %d collections since (before %d), heap %d MiB (before %d MiB)",
				now.NumGC-before.NumGC, before.NumGC, now.HeapAlloc/mib, before.HeapAlloc/mib)
		}
		time.Sleep(5 * time.Millisecond) // polling interval under the deadline above
	}
}

// garbage keeps allocations from being optimised away.
var garbage []byte
