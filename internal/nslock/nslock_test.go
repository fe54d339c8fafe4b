package nslock

import (
	"context"
	"errors"
	"slices"
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
				unlock, _ := s.Lock(t.Context(), ns)
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
	unlock, _ := s.Lock(t.Context(), ns)
	defer unlock()
	for i := range 100 {
		other := kgmem.Namespace("acme/other" + string(rune('a'+i%26)) + string(rune('a'+i/26)))
		if stripe(other) == stripe(ns) {
			continue
		}
		done := make(chan struct{})
		go func() {
			release, _ := s.Lock(t.Context(), other)
			release()
			close(done)
		}()
		<-done
		return
	}
	t.Fatal("no namespace on another stripe among 100 tried")
}

// stripe is the stripe index of ns, as Lock computes it.
func stripe(ns kgmem.Namespace) uint32 {
	var s Striped
	unlock, _ := s.Lock(context.Background(), ns)
	defer unlock()
	for i := range s.mus {
		if !s.mus[i].TryLock() {
			return uint32(i)
		}
		s.mus[i].Unlock()
	}
	return stripes
}

// TestChainReleasesInReverseAndOnFailure: a chain holds every lock in
// order, and a lock that fails releases those already taken.
func TestChainReleasesInReverseAndOnFailure(t *testing.T) {
	var order []string
	step := func(name string, fail bool) kgmem.NamespaceLocker {
		return lockerFunc(func(context.Context, kgmem.Namespace) (func(), error) {
			if fail {
				return nil, errors.New(name + " is down")
			}
			order = append(order, "lock "+name)
			return func() { order = append(order, "unlock "+name) }, nil
		})
	}
	unlock, err := Chain{step("a", false), step("b", false)}.Lock(t.Context(), "ns")
	if err != nil {
		t.Fatal(err)
	}
	unlock()
	if want := []string{"lock a", "lock b", "unlock b", "unlock a"}; !slices.Equal(order, want) {
		t.Errorf("order %v, want %v", order, want)
	}
	order = nil
	if _, err := (Chain{step("a", false), step("b", true)}).Lock(t.Context(), "ns"); err == nil {
		t.Fatal("a chain with a failing lock succeeded")
	}
	if want := []string{"lock a", "unlock a"}; !slices.Equal(order, want) {
		t.Errorf("after a failure: %v, want %v", order, want)
	}
}

type lockerFunc func(context.Context, kgmem.Namespace) (func(), error)

func (f lockerFunc) Lock(ctx context.Context, ns kgmem.Namespace) (func(), error) { return f(ctx, ns) }
