package hnsw

import (
	"fmt"
	"runtime"
	"slices"
	"sync"
	"testing"

	"github.com/kgmem/kgmem"
)

// TestWriteLocksOverSeveralNamespaces takes the locks of overlapping sets of
// namespaces, listed in different orders and with repeats, from many
// goroutines at once: it must neither deadlock nor let two holders of one
// namespace's lock in together.
func TestWriteLocksOverSeveralNamespaces(t *testing.T) {
	var w writeLocks
	nss := make([]kgmem.Namespace, 200)
	for i := range nss {
		nss[i] = kgmem.Namespace(fmt.Sprintf("ns/%d", i))
	}
	var mu sync.Mutex
	holders := make([]int, len(nss))
	var wg sync.WaitGroup
	for g := range 16 {
		wg.Go(func() {
			for round := range 300 {
				picked := []int{(g*7 + round) % len(nss), (round * 13) % len(nss), (g + round*3) % len(nss)}
				set := []kgmem.Namespace{nss[picked[2]], nss[picked[0]], nss[picked[1]], nss[picked[0]]} // unordered, a repeat
				slices.Sort(picked)
				picked = slices.Compact(picked)
				unlock := w.lock(set...)
				mu.Lock()
				for _, k := range picked {
					if holders[k]++; holders[k] > 1 {
						t.Errorf("namespace %d held by two writers at once", k)
					}
				}
				mu.Unlock()
				runtime.Gosched() // let other writers try while this one holds the locks
				mu.Lock()
				for _, k := range picked {
					holders[k]--
				}
				mu.Unlock()
				unlock()
			}
		})
	}
	wg.Wait()
}
