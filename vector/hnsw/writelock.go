package hnsw

import (
	"hash/fnv"
	"slices"
	"sync"

	"github.com/kgmem/kgmem"
)

// writeStripes is the number of mutexes of writeLocks.
const writeStripes = 64

// writeLocks are the Index's write locks: one of writeStripes mutexes per
// namespace, by hash. The zero value is ready to use.
type writeLocks struct {
	mus [writeStripes]sync.Mutex
}

// lock takes the locks of the namespaces nss in stripe order (so that two
// writes over several namespaces never wait on each other in a cycle) and
// returns the function that releases them.
func (w *writeLocks) lock(nss ...kgmem.Namespace) (unlock func()) {
	stripes := make([]int, 0, 1)
	for _, ns := range nss {
		h := fnv.New32a()
		h.Write([]byte(ns))
		stripes = append(stripes, int(h.Sum32()%writeStripes))
	}
	slices.Sort(stripes)
	stripes = slices.Compact(stripes)
	for _, i := range stripes {
		w.mus[i].Lock()
	}
	return func() {
		for _, i := range slices.Backward(stripes) {
			w.mus[i].Unlock()
		}
	}
}
