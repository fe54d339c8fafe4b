package neo4j_test

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kgmem/kgmem"
)

// TestNamespaceLocksExcludeAcrossStores: two stores on one database are two
// servers; holders of one namespace's lock never overlap, whichever store
// they lock through, and another namespace is free meanwhile.
func TestNamespaceLocksExcludeAcrossStores(t *testing.T) {
	scope := "l" + kgmem.NewID("")[1:]
	a, b := openScope(t, scope), openScope(t, scope)
	locks := []kgmem.NamespaceLocker{a.NamespaceLocks(0, nil), b.NamespaceLocks(0, nil)}
	const ns = kgmem.Namespace("acme/u1")
	var inside, overlaps, held atomic.Int32
	var wg sync.WaitGroup
	for g := range 6 {
		wg.Go(func() {
			for range 10 {
				unlock, err := locks[g%2].Lock(t.Context(), ns)
				if err != nil {
					t.Error(err)
					return
				}
				if inside.Add(1) > 1 {
					overlaps.Add(1)
				}
				held.Add(1)
				inside.Add(-1)
				unlock()
			}
		})
	}
	// Another namespace's lock is taken while ns is contended.
	other, err := locks[1].Lock(t.Context(), "acme/u2")
	if err != nil {
		t.Fatal(err)
	}
	other()
	wg.Wait()
	if overlaps.Load() != 0 || held.Load() != 60 {
		t.Errorf("%d overlapping holds of 60 (%d held)", overlaps.Load(), held.Load())
	}
}

// TestNamespaceLockOfADeadServerExpires: a lock whose holder died blocks
// writers until its lease ends, then the next one takes it; a waiter gives
// up when its context ends.
func TestNamespaceLockOfADeadServerExpires(t *testing.T) {
	s := openScope(t, "d"+kgmem.NewID("")[1:])
	if err := s.HoldLockAsDeadServer(t.Context(), "acme/u1", 2*time.Second); err != nil {
		t.Fatal(err)
	}
	locks := s.NamespaceLocks(0, nil)
	short, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
	defer cancel()
	if _, err := locks.Lock(short, "acme/u1"); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Lock while a live lease is held: %v, want a context deadline error", err)
	}
	long, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	unlock, err := locks.Lock(long, "acme/u1")
	if err != nil {
		t.Fatalf("Lock after the dead server's lease: %v", err)
	}
	unlock()
}
