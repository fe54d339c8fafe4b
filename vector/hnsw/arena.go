package hnsw

import (
	"errors"
	"fmt"
	"os"
	"sync"
	"unsafe"

	"github.com/edsrzf/mmap-go"
)

// arena holds the loaded vectors outside the Go heap, in a scratch file
// mapped into memory: the kernel keeps the pages in its file cache (and may
// write them back and drop them under memory pressure), so a million loaded
// vectors of dimension 256 cost the process 1 GiB less anonymous memory and
// the garbage collector never scans or copies them. Searches read them in
// place, at the same speed as heap memory once the pages are resident.
//
// The file is a cache of what the SQLite store holds: it is created empty
// next to the store with a unique name, removed as soon as it is mapped
// (where the platform allows; otherwise at close), and never read back.
//
// Vectors live in fixed-size slots, allocated from a free list and then from
// the end; the file grows by whole segments, each mapped on its own so that
// views handed out earlier stay valid. A released slot may be handed out
// again at once, so callers release a slot only when no search can still
// read it (see shard).
type arena struct {
	dim int

	mu       sync.Mutex // guards everything below
	file     *os.File
	removed  bool // the file is unlinked already
	perSeg   int  // slots per segment
	segments []mmap.MMap
	views    [][]float32 // segments as float32s
	free     []uint32
	next     uint32 // slots ever handed out from the end
}

// arenaSegmentBytes is the size by which the arena file grows: large enough
// that a million vectors take a few dozen mappings, small enough that an
// index of a few vectors maps little (the file is sparse until written).
const arenaSegmentBytes = 64 << 20

// errArenaClosed is returned by alloc after close.
var errArenaClosed = errors.New("vector arena is closed")

// openArena creates the arena's scratch file in dir for vectors of dim
// float32s, growing by segments of about segmentBytes.
func openArena(dir string, dim, segmentBytes int) (*arena, error) {
	f, err := os.CreateTemp(dir, ".vectors-*.arena")
	if err != nil {
		return nil, fmt.Errorf("create vector arena in %s: %w", dir, err)
	}
	a := &arena{dim: dim, file: f, perSeg: max(1, segmentBytes/(4*dim))}
	// Unlinked, the file lives as long as it is open or mapped and leaves
	// nothing behind after a crash. Windows refuses to remove an open file:
	// there close removes it.
	a.removed = os.Remove(f.Name()) == nil
	return a, nil
}

// alloc copies vec (of the arena's dimension) into a free slot and returns
// the slot and a view of it, valid until the slot is released.
func (a *arena) alloc(vec []float32) (uint32, []float32, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.file == nil {
		return 0, nil, errArenaClosed
	}
	var slot uint32
	if n := len(a.free); n > 0 {
		slot, a.free = a.free[n-1], a.free[:n-1]
	} else {
		if int(a.next) == len(a.segments)*a.perSeg {
			if err := a.grow(); err != nil {
				return 0, nil, err
			}
		}
		slot = a.next
		a.next++
	}
	view := a.view(slot)
	copy(view, vec)
	return slot, view, nil
}

// grow extends the file by one segment and maps it.
func (a *arena) grow() error {
	segBytes := a.perSeg * 4 * a.dim
	// Segments start at multiples of the mapping granularity.
	stride := roundUp(segBytes, os.Getpagesize())
	offset := int64(len(a.segments)) * int64(stride)
	if err := a.file.Truncate(offset + int64(stride)); err != nil {
		return fmt.Errorf("grow vector arena: %w", err)
	}
	m, err := mmap.MapRegion(a.file, segBytes, mmap.RDWR, 0, offset)
	if err != nil {
		return fmt.Errorf("map vector arena segment %d: %w", len(a.segments), err)
	}
	a.segments = append(a.segments, m)
	a.views = append(a.views, unsafe.Slice((*float32)(unsafe.Pointer(&m[0])), len(m)/4))
	return nil
}

// view returns slot's vector in place; a.mu is held.
func (a *arena) view(slot uint32) []float32 {
	seg, i := int(slot)/a.perSeg, int(slot)%a.perSeg
	return a.views[seg][i*a.dim : (i+1)*a.dim : (i+1)*a.dim]
}

// release returns slots to the free list. Their views must no longer be
// read by anyone.
func (a *arena) release(slots ...uint32) {
	if len(slots) == 0 {
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.file != nil {
		a.free = append(a.free, slots...)
	}
}

// inUse is the number of slots handed out and not released.
func (a *arena) inUse() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return int(a.next) - len(a.free)
}

// close unmaps the file and removes it; every view becomes invalid.
func (a *arena) close() error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.file == nil {
		return nil
	}
	var errs []error
	for _, m := range a.segments {
		errs = append(errs, m.Unmap())
	}
	errs = append(errs, a.file.Close())
	if !a.removed {
		errs = append(errs, os.Remove(a.file.Name()))
	}
	a.file, a.segments, a.views, a.free = nil, nil, nil, nil
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("close vector arena: %w", err)
	}
	return nil
}

func roundUp(n, to int) int { return (n + to - 1) / to * to }
