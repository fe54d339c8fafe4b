package nslock

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kgmem/kgmem"
)

// deadline bounds every wait for something that must happen: generous, so
// that a slow or loaded machine never fails a correct lock.
const deadline = 10 * time.Second

// refs is the number of callers holding or waiting for ns's lock (0 when l
// keeps no entry for ns).
func (l *Local) refs(ns kgmem.Namespace) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	if e := l.locks[ns]; e != nil {
		return e.refs
	}
	return 0
}

// entries is the number of namespaces l keeps an entry for.
func (l *Local) entries() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.locks)
}

// held reports whether some caller holds ns's lock: a Lock with a done
// context takes a free lock and fails on a held one, without waiting.
func held(t *testing.T, l *Local, ns kgmem.Namespace) bool {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	type result struct {
		unlock func()
		err    error
	}
	got := make(chan result, 1)
	go func() {
		unlock, err := l.Lock(ctx, ns)
		got <- result{unlock, err}
	}()
	r := within(t, got, fmt.Sprintf("a Lock of %q with a done context", ns))
	if r.err != nil {
		if !errors.Is(r.err, context.Canceled) {
			t.Fatalf("probe of %q: %v, want an error wrapping context.Canceled", ns, r.err)
		}
		return true
	}
	r.unlock()
	return false
}

// mustLock locks ns, failing the test if Lock has not returned within the
// deadline (then it leaves the waiting goroutine behind).
func mustLock(t *testing.T, l *Local, ns kgmem.Namespace) (unlock func()) {
	t.Helper()
	got := make(chan func(), 1)
	lockInto(t, l, ns, got)
	return within(t, got, fmt.Sprintf("Lock(%q)", ns))
}

// lockInto locks ns in a goroutine of its own and sends the unlock to got
// (a no-op after an error, which fails the test).
func lockInto(t *testing.T, l *Local, ns kgmem.Namespace, got chan<- func()) {
	go func() {
		unlock, err := l.Lock(context.Background(), ns)
		if err != nil {
			t.Errorf("Lock(%q): %v", ns, err)
			unlock = func() {}
		}
		got <- unlock
	}()
}

// within returns the next value from ch, failing the test if what has
// sent none within the deadline.
func within[T any](t *testing.T, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(deadline):
		t.Fatalf("%s: still waiting after %v", what, deadline)
		panic("unreachable")
	}
}

// waitFor polls cond until it holds, failing the test at the deadline.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for end := time.Now().Add(deadline); !cond(); time.Sleep(time.Millisecond) {
		if time.Now().After(end) {
			t.Fatalf("still waiting for %s after %v", what, deadline)
		}
	}
}

// oldStripe is the stripe that the former 64-stripe lock gave ns.
func oldStripe(ns kgmem.Namespace) uint32 {
	h := fnv.New32a()
	h.Write([]byte(ns))
	return h.Sum32() % 64
}

// sharedOldStripe returns a namespace other than ns that the former
// 64-stripe lock put on ns's stripe.
func sharedOldStripe(t *testing.T, ns kgmem.Namespace) kgmem.Namespace {
	t.Helper()
	for i := range 100_000 {
		other := kgmem.Namespace(fmt.Sprintf("acme/u%d", i))
		if other != ns && oldStripe(other) == oldStripe(ns) {
			return other
		}
	}
	t.Fatalf("no namespace shares %q's old stripe", ns)
	return ""
}

// TestLocalDifferentNamespacesNeverBlock: while some namespaces are held,
// another can be locked at once, including one that shared a stripe with
// a held namespace under the former 64-stripe lock.
func TestLocalDifferentNamespacesNeverBlock(t *testing.T) {
	many := make([]kgmem.Namespace, 20)
	for i := range many {
		many[i] = kgmem.Namespace(fmt.Sprintf("tenant-%d", i))
	}
	cases := []struct {
		name string
		held []kgmem.Namespace
		lock kgmem.Namespace
		// oldShared: lock shared held[0]'s stripe in the former lock.
		oldShared bool
	}{
		{"shared an old stripe", []kgmem.Namespace{"acme/u1"}, sharedOldStripe(t, "acme/u1"), true},
		{"shared an old stripe, reversed", []kgmem.Namespace{sharedOldStripe(t, "acme/u1")}, "acme/u1", true},
		{"prefix", []kgmem.Namespace{"acme/u1"}, "acme/u10", false},
		{"case", []kgmem.Namespace{"acme/u1"}, "ACME/u1", false},
		{"empty name", []kgmem.Namespace{""}, " ", false},
		{"twenty held", many, "tenant-20", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if tc.oldShared && oldStripe(tc.held[0]) != oldStripe(tc.lock) {
				t.Fatalf("%q and %q did not share an old stripe", tc.held[0], tc.lock)
			}
			var l Local
			for _, ns := range tc.held {
				defer mustLock(t, &l, ns)()
			}
			mustLock(t, &l, tc.lock)()
			for _, ns := range tc.held {
				if l.refs(ns) != 1 || !held(t, &l, ns) {
					t.Errorf("%q is no longer held alone after locking %q", ns, tc.lock)
				}
			}
			if n := l.entries(); n != len(tc.held) {
				t.Errorf("%d entries with %d namespaces held, want %d", n, len(tc.held), len(tc.held))
			}
		})
	}
}

// TestLocalSameNamespaceExclusive: the callers that wait for a held
// namespace get it one at a time, each only after the previous holder's
// unlock.
func TestLocalSameNamespaceExclusive(t *testing.T) {
	for _, waiters := range []int{1, 4} {
		t.Run(fmt.Sprintf("%d waiters", waiters), func(t *testing.T) {
			const ns = kgmem.Namespace("acme/u1")
			var l Local
			unlock := mustLock(t, &l, ns)
			got := make(chan func(), waiters)
			for range waiters {
				lockInto(t, &l, ns, got)
			}
			waitFor(t, "the waiters to register", func() bool { return l.refs(ns) == 1+waiters })
			for i := range waiters {
				select {
				case <-got:
					t.Fatalf("a waiter got the lock while it was held (%d unlocks so far)", i)
				default:
				}
				unlock()
				unlock = within(t, got, "a waiter getting the lock after the unlock")
				if n := l.refs(ns); n != waiters-i {
					t.Fatalf("refs %d after %d unlocks, want %d", n, i+1, waiters-i)
				}
			}
			select {
			case <-got:
				t.Fatal("a waiter got the lock twice")
			default:
			}
			unlock()
			if n := l.entries(); n != 0 {
				t.Errorf("%d entries after the last unlock, want 0", n)
			}
		})
	}
}

// TestLocalExcludesConcurrentHolders: many goroutines locking a few
// namespaces over and over never hold one namespace at the same time.
func TestLocalExcludesConcurrentHolders(t *testing.T) {
	nss := []kgmem.Namespace{"acme/u1", "acme/u2", "acme/u3"}
	var (
		l       Local
		wg      sync.WaitGroup
		inside  [3]atomic.Int32
		overlap atomic.Bool
	)
	for g := range 12 {
		wg.Go(func() {
			for i := range 200 {
				k := (g + i) % len(nss)
				unlock, err := l.Lock(t.Context(), nss[k])
				if err != nil {
					t.Error(err)
					return
				}
				if inside[k].Add(1) > 1 {
					overlap.Store(true)
				}
				runtime.Gosched() // let another holder in, if the lock would
				inside[k].Add(-1)
				unlock()
			}
		})
	}
	wg.Wait()
	if overlap.Load() {
		t.Fatal("two holders of the same namespace's lock overlapped")
	}
	if n := l.entries(); n != 0 {
		t.Errorf("%d entries after every unlock, want 0", n)
	}
}

// TestLocalForgetsUnlockedNamespaces: a Local keeps an entry only for the
// namespaces held or waited for, however many namespaces it has seen.
func TestLocalForgetsUnlockedNamespaces(t *testing.T) {
	t.Run("one after another", func(t *testing.T) {
		var l Local
		for i := range 1000 {
			mustLock(t, &l, kgmem.Namespace(fmt.Sprintf("ns-%d", i)))()
		}
		if n := l.entries(); n != 0 {
			t.Errorf("%d entries after 1000 namespaces, want 0", n)
		}
	})
	t.Run("held at once", func(t *testing.T) {
		var l Local
		var unlocks []func()
		for i := range 100 {
			unlocks = append(unlocks, mustLock(t, &l, kgmem.Namespace(fmt.Sprintf("ns-%d", i))))
		}
		if n := l.entries(); n != 100 {
			t.Errorf("%d entries with 100 namespaces held, want 100", n)
		}
		for i, unlock := range unlocks {
			unlock()
			if n := l.entries(); n != 99-i {
				t.Fatalf("%d entries after %d unlocks, want %d", n, i+1, 99-i)
			}
		}
	})
	t.Run("with waiters", func(t *testing.T) {
		const ns = kgmem.Namespace("acme/u1")
		var l Local
		unlock := mustLock(t, &l, ns)
		var wg sync.WaitGroup
		for range 5 {
			wg.Go(func() {
				unlock, err := l.Lock(context.Background(), ns)
				if err != nil {
					t.Error(err)
					return
				}
				unlock()
			})
		}
		waitFor(t, "the waiters to register", func() bool { return l.refs(ns) == 6 })
		if n := l.entries(); n != 1 {
			t.Errorf("%d entries for one namespace and its waiters, want 1", n)
		}
		unlock()
		wg.Wait()
		if n := l.entries(); n != 0 {
			t.Errorf("%d entries after the waiters' unlocks, want 0", n)
		}
	})
	t.Run("concurrent", func(t *testing.T) {
		var l Local
		var wg sync.WaitGroup
		for g := range 16 {
			wg.Go(func() {
				for i := range 300 {
					// Each namespace is shared by 4 goroutines, so some
					// Locks wait; 4 of them cover 200 namespaces.
					ns := kgmem.Namespace(fmt.Sprintf("ns-%d", (g%4)*50+i%50))
					unlock, err := l.Lock(context.Background(), ns)
					if err != nil {
						t.Error(err)
						return
					}
					unlock()
				}
			})
		}
		wg.Wait()
		if n := l.entries(); n != 0 {
			t.Errorf("%d entries after every unlock, want 0", n)
		}
	})
}

// TestLocalLockHonoursContext: a Lock that has to wait gives up when its
// context ends, with an error wrapping ctx.Err(), and leaves no trace; a
// free lock is taken whatever the context.
func TestLocalLockHonoursContext(t *testing.T) {
	const ns = kgmem.Namespace("acme/u1")
	cases := []struct {
		name string
		// ctx returns the waiting Lock's context, and the function that
		// ends it once the Lock is waiting (nil: it has ended already).
		ctx  func() (context.Context, func())
		want error
	}{
		{"cancelled before the call", func() (context.Context, func()) {
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			return ctx, nil
		}, context.Canceled},
		{"deadline passed before the call", func() (context.Context, func()) {
			ctx, cancel := context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
			t.Cleanup(cancel)
			return ctx, nil
		}, context.DeadlineExceeded},
		{"cancelled while waiting", func() (context.Context, func()) {
			return context.WithCancel(context.Background())
		}, context.Canceled},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var l Local
			unlock := mustLock(t, &l, ns)
			ctx, end := tc.ctx()
			errc := make(chan error, 1)
			go func() {
				unlock, err := l.Lock(ctx, ns)
				if err == nil {
					unlock()
				}
				errc <- err
			}()
			if end != nil {
				waitFor(t, "the Lock to wait", func() bool { return l.refs(ns) == 2 })
				end()
			}
			err := within(t, errc, "a Lock whose context ended")
			if !errors.Is(err, tc.want) {
				t.Fatalf("Lock: %v, want an error wrapping %v", err, tc.want)
			}
			if n := l.refs(ns); n != 1 {
				t.Errorf("refs %d after the Lock gave up, want 1 (the holder)", n)
			}
			unlock()
			if n := l.entries(); n != 0 {
				t.Errorf("%d entries after the holder's unlock, want 0", n)
			}
			mustLock(t, &l, ns)() // the lock that gave up took nothing
		})
	}
	t.Run("free lock with a done context", func(t *testing.T) {
		var l Local
		if held(t, &l, ns) {
			t.Fatal("a Lock with a done context did not take a free lock")
		}
		if n := l.entries(); n != 0 {
			t.Errorf("%d entries after the unlock, want 0", n)
		}
	})
}

// TestLocalUnlockTwicePanics: a second call of an unlock panics, neither
// waiting nor releasing the lock of whoever holds the namespace now, be it
// on the same entry (the next holder was already waiting) or on a new one.
func TestLocalUnlockTwicePanics(t *testing.T) {
	const ns = kgmem.Namespace("acme/u1")
	cases := []struct {
		name string
		// next takes ns's lock after first's unlock.
		next func(t *testing.T, l *Local, first func()) (second func())
	}{
		{"same entry", func(t *testing.T, l *Local, first func()) func() {
			got := make(chan func(), 1)
			lockInto(t, l, ns, got)
			waitFor(t, "the waiter to register", func() bool { return l.refs(ns) == 2 })
			first()
			return within(t, got, "the waiter getting the lock")
		}},
		{"new entry", func(t *testing.T, l *Local, first func()) func() {
			first()
			return mustLock(t, l, ns)
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var l Local
			first := mustLock(t, &l, ns)
			second := tc.next(t, &l, first)
			recovered := make(chan any, 1)
			go func() {
				defer func() { recovered <- recover() }()
				first()
			}()
			if within(t, recovered, "a second call of unlock") == nil {
				t.Error("a second call of unlock did not panic")
			}
			if !held(t, &l, ns) || l.refs(ns) != 1 {
				t.Fatalf("the second holder's lock changed (refs %d)", l.refs(ns))
			}
			second()
			if n := l.entries(); n != 0 {
				t.Errorf("%d entries after the last unlock, want 0", n)
			}
		})
	}
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

	// A Local before a failing lock is released and forgotten.
	var l Local
	down := lockerFunc(func(context.Context, kgmem.Namespace) (func(), error) { return nil, errors.New("down") })
	if _, err := (Chain{&l, down}).Lock(t.Context(), "ns"); err == nil {
		t.Fatal("a chain with a failing lock succeeded")
	}
	if held(t, &l, "ns") || l.entries() != 0 {
		t.Errorf("the Local stayed held (%d entries) after the chain failed", l.entries())
	}
}

type lockerFunc func(context.Context, kgmem.Namespace) (func(), error)

func (f lockerFunc) Lock(ctx context.Context, ns kgmem.Namespace) (func(), error) { return f(ctx, ns) }
