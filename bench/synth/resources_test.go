//go:build linux

package synth_test

import (
	"syscall"
	"testing"
	"time"

	"github.com/kgmem/kgmem/bench/synth"
)

// TestWatchAnonSeesAnAllocation checks that the sampled peak covers
// anonymous memory the process touched while it was watched (mapped
// directly, so that no earlier run's free heap is reused instead).
func TestWatchAnonSeesAnAllocation(t *testing.T) {
	before := synth.ReadResources().AnonBytes
	stop := synth.WatchAnon(5 * time.Millisecond)
	const size = 256 << 20
	buf, err := syscall.Mmap(-1, 0, size, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Munmap(buf)
	for i := 0; i < len(buf); i += 4096 {
		buf[i] = 1 // resident
	}
	peak := stop() // its last sample is taken while buf is still mapped
	if peak < before+size/2 {
		t.Errorf("peak anonymous %d MiB, want at least %d MiB (before: %d MiB, then %d MiB touched)", peak>>20, (before+size/2)>>20, before>>20, size>>20)
	}
}
