// Package nslock serialises the writes to each namespace with a fixed set of
// striped mutexes: memory stays bounded for any number of namespaces, at the
// price of two namespaces sometimes sharing a stripe. The engine and the
// decay reinforcer share one Striped so that their read-modify-writes of a
// namespace do not interleave.
package nslock

import (
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

// Lock locks ns's stripe and returns the function that unlocks it.
func (s *Striped) Lock(ns kgmem.Namespace) (unlock func()) {
	h := fnv.New32a()
	h.Write([]byte(ns))
	m := &s.mus[h.Sum32()%stripes]
	m.Lock()
	return m.Unlock
}
