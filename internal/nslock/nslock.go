// Package nslock serialises the writes to each namespace. A Local holds
// one exact lock per namespace for the writers of one process, so a slow
// write of one namespace (one that waits on an LLM judge, say) never holds
// up another namespace, and it keeps memory only for the namespaces being
// locked or waited for. The engine and the decay reinforcer share one Local
// so that their read-modify-writes of a namespace do not interleave; Chain
// stacks a Local before the locks that several processes share.
package nslock

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/kgmem/kgmem"
)

// Local is a set of exact per-namespace locks of one process: two
// namespaces never wait for each other. It holds an entry only for the
// namespaces some caller holds or waits for, and drops it at the last
// unlock. The zero value is ready to use; it must not be copied after
// first use.
type Local struct {
	mu    sync.Mutex
	locks map[kgmem.Namespace]*entry // guarded by mu
}

// entry is the lock of one namespace.
type entry struct {
	// token holds a value while the namespace is locked: a mutex whose
	// waiters can give up when their context ends.
	token chan struct{}
	// refs counts the callers that hold or wait for the lock; guarded by
	// Local.mu. The entry leaves the map when it drops to zero.
	refs int
}

// Lock implements kgmem.NamespaceLocker: it blocks until the caller holds
// ns's lock and returns the function that releases it. It fails only when
// it has to wait and ctx ends first (an error wrapping ctx.Err()); a free
// lock is taken even when ctx is already done (the write that follows
// checks ctx itself). A caller that gives up waiting leaves no trace.
//
// The returned unlock must be called exactly once: a second call is a bug
// and panics, rather than release a lock that another caller may hold by
// then or block forever.
func (l *Local) Lock(ctx context.Context, ns kgmem.Namespace) (unlock func(), err error) {
	l.mu.Lock()
	if l.locks == nil {
		l.locks = make(map[kgmem.Namespace]*entry)
	}
	e := l.locks[ns]
	if e == nil {
		e = &entry{token: make(chan struct{}, 1)}
		l.locks[ns] = e
	}
	e.refs++
	l.mu.Unlock()

	select {
	case e.token <- struct{}{}:
	default:
		select {
		case e.token <- struct{}{}:
		case <-ctx.Done():
			l.release(ns, e)
			return nil, fmt.Errorf("nslock: wait for the lock of %q: %w", ns, ctx.Err())
		}
	}
	var unlocked atomic.Bool
	return func() {
		if unlocked.Swap(true) {
			panic(fmt.Sprintf("nslock: unlock of namespace %q called twice", ns))
		}
		<-e.token
		l.release(ns, e)
	}, nil
}

// release drops one holder or waiter of e, the entry of ns, and forgets the
// entry when it was the last.
func (l *Local) release(ns kgmem.Namespace, e *entry) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if e.refs--; e.refs == 0 {
		delete(l.locks, ns)
	}
}

// Chain takes each of its lockers in order and releases them in reverse:
// with the process's own Local first, a process's concurrent writes queue
// locally and only one of them at a time waits on a shared lock.
type Chain []kgmem.NamespaceLocker

// Lock implements kgmem.NamespaceLocker.
func (c Chain) Lock(ctx context.Context, ns kgmem.Namespace) (func(), error) {
	var held []func()
	release := func() {
		for i := len(held) - 1; i >= 0; i-- {
			held[i]()
		}
	}
	for _, l := range c {
		unlock, err := l.Lock(ctx, ns)
		if err != nil {
			release()
			return nil, err
		}
		held = append(held, unlock)
	}
	return release, nil
}
