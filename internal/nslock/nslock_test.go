package nslock

import (
	"sync"
	"testing"

	"github.com/kgmem/kgmem"
)

// TestLockExcludesPerNamespace checks that holders of one namespace's lock
// never overlap, while another namespace's stripe stays free.
func TestLockExcludesPerNamespace(t *testing.T) {
	var s Striped
	const ns = kgmem.Namespace("acme/u1")
	var (
		wg      sync.WaitGroup
		inside  int
		overlap bool
		mu      sync.Mutex
	)
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 200 {
				unlock := s.Lock(ns)
				mu.Lock()
				inside++
				overlap = overlap || inside > 1
				mu.Unlock()
				mu.Lock()
				inside--
				mu.Unlock()
				unlock()
			}
		}()
	}
	wg.Wait()
	if overlap {
		t.Fatal("two holders of the same namespace's lock overlapped")
	}
	// A namespace on another stripe can be locked while ns is held.
	unlock := s.Lock(ns)
	defer unlock()
	for i := range 100 {
		other := kgmem.Namespace("acme/other" + string(rune('a'+i%26)) + string(rune('a'+i/26)))
		if stripe(other) == stripe(ns) {
			continue
		}
		done := make(chan struct{})
		go func() { s.Lock(other)(); close(done) }()
		<-done
		return
	}
	t.Fatal("no namespace on another stripe among 100 tried")
}

// stripe is the stripe index of ns, as Lock computes it.
func stripe(ns kgmem.Namespace) uint32 {
	var s Striped
	unlock := s.Lock(ns)
	defer unlock()
	for i := range s.mus {
		if !s.mus[i].TryLock() {
			return uint32(i)
		}
		s.mus[i].Unlock()
	}
	return stripes
}
