// Package nslock serialises the writes to each namespace with a fixed set of
// striped mutexes: memory stays bounded for any number of namespaces, at the
// price of two namespaces sometimes sharing a stripe. The engine and the
// decay reinforcer share one Striped so that their read-modify-writes of a
// namespace do not interleave.
package nslock

import (
	"context"
	"hash/fnv"
	"sync"

	"github.com/kgmem/kgmem"
)

// stripes is the number of mutexes of a Striped.
const stripes = 64

// Striped is a set of namespace locks. The zero value is ready to use; it
// must not be copied after first use.
type Striped struct {
	mus [stripes]sync.Mutex
}

// Lock locks ns's stripe and returns the function that unlocks it. It
// waits for the stripe however long it takes (the holders are this
// process's own writes) and never fails: it implements
// kgmem.NamespaceLocker.
func (s *Striped) Lock(_ context.Context, ns kgmem.Namespace) (unlock func(), err error) {
	h := fnv.New32a()
	h.Write([]byte(ns))
	m := &s.mus[h.Sum32()%stripes]
	m.Lock()
	return m.Unlock, nil
}

// Chain takes each of its lockers in order and releases them in reverse:
// with the process's own stripes first, a process's concurrent writes queue
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
