package hnsw

import (
	"slices"

	"github.com/kgmem/kgmem"
	"github.com/samber/lo"
)

// shard is the in-memory search structure of one (namespace, kind): the unit
// vectors by slot, and a graph once the shard is large enough. Slots are only
// ever appended; deletes leave holes that compact reclaims.
//
// The vectors themselves live in the index's arena. A shard is only changed
// under its space's write lock, so no search reads it meanwhile: a removed
// vector's arena slot is released at once, unless the graph still routes
// through it as a tombstone, in which case the rebuild that drops the
// tombstone releases it.
type shard struct {
	opts  Options
	arena *arena
	ids   []string    // by slot; "" for a deleted slot
	vecs  [][]float32 // by slot, views into the arena; unit length (or zero); nil for a deleted slot
	refs  []uint32    // by slot, the arena slot holding vecs[slot]; noRef once released
	slots map[string]int32
	g     *graph // nil while the shard is searched exactly
}

// noRef marks a shard slot whose arena slot was released.
const noRef = ^uint32(0)

func newShard(opts Options, a *arena) *shard {
	return &shard{opts: opts, arena: a, slots: map[string]int32{}}
}

// live is the number of vectors in the shard.
func (s *shard) live() int { return len(s.slots) }

// has reports whether id is in the shard.
func (s *shard) has(id string) bool {
	_, ok := s.slots[id]
	return ok
}

// put inserts or replaces id with the unit vector vec, which it copies into
// the arena. It fails only when the arena cannot grow; the shard is then
// unchanged but for id's removal.
func (s *shard) put(id string, vec []float32) error {
	s.remove(id)
	ref, view, err := s.arena.alloc(vec)
	if err != nil {
		return err
	}
	slot := int32(len(s.ids))
	s.ids = append(s.ids, id)
	s.vecs = append(s.vecs, view)
	s.refs = append(s.refs, ref)
	s.slots[id] = slot
	switch {
	case s.g != nil:
		s.g.add(slot, view)
	case s.live() >= s.opts.ExactBelow:
		s.rebuild()
	}
	return nil
}

// remove deletes id if present.
func (s *shard) remove(id string) {
	slot, ok := s.slots[id]
	if !ok {
		return
	}
	delete(s.slots, id)
	s.ids[slot], s.vecs[slot] = "", nil
	if s.g != nil {
		s.g.remove(slot) // routes through the vector until the next rebuild
	} else {
		s.arena.release(s.refs[slot])
		s.refs[slot] = noRef
	}
	// Reclaim holes once they are a quarter of the slots.
	if holes := len(s.ids) - s.live(); holes >= 64 && holes*4 >= len(s.ids) {
		s.rebuild()
	}
}

// rebuild compacts the slots and rebuilds the graph from the live vectors,
// or drops it when the shard has shrunk below the exact-scan threshold.
func (s *shard) rebuild() {
	ids := make([]string, 0, s.live())
	vecs := make([][]float32, 0, s.live())
	refs := make([]uint32, 0, s.live())
	var dropped []uint32
	for slot, id := range s.ids {
		switch {
		case id != "":
			ids = append(ids, id)
			vecs = append(vecs, s.vecs[slot])
			refs = append(refs, s.refs[slot])
		case s.refs[slot] != noRef:
			dropped = append(dropped, s.refs[slot]) // a tombstone of the old graph
		}
	}
	s.arena.release(dropped...)
	s.ids, s.vecs, s.refs, s.g = ids, vecs, refs, nil
	clear(s.slots)
	for slot, id := range ids {
		s.slots[id] = int32(slot)
	}
	if len(ids) < s.opts.ExactBelow {
		return
	}
	s.g = newGraph(s.opts.M, s.opts.EfConstruction, s.opts.Seed)
	for slot, v := range vecs {
		s.g.add(int32(slot), v)
	}
}

// release returns every vector of the shard to the arena; the shard must
// not be used afterwards.
func (s *shard) release() {
	s.arena.release(lo.Filter(s.refs, func(r uint32, _ int) bool { return r != noRef })...)
	s.ids, s.vecs, s.refs, s.slots, s.g = nil, nil, nil, nil, nil
}

// search returns up to k hits nearest the unit (or zero) vector q, best first.
func (s *shard) search(q []float32, k int, kind kgmem.Kind) []kgmem.Hit {
	var found []cand
	if s.g != nil {
		found = s.g.search(q, k, s.opts.EfSearch)
	} else {
		found = s.scan(q, k)
	}
	hits := make([]kgmem.Hit, len(found))
	for i, c := range found {
		hits[i] = kgmem.Hit{Kind: kind, ID: s.ids[c.slot], Score: min(1, max(-1, 1-float64(c.dist)))}
	}
	return hits
}

// scan is the exact search: every live vector, keeping the k nearest.
func (s *shard) scan(q []float32, k int) []cand {
	var best maxHeap
	for slot, v := range s.vecs {
		if v == nil {
			continue
		}
		d := 1 - dot(q, v)
		if best.len() < k {
			best.push(cand{int32(slot), d})
		} else if d < best.top().dist {
			best.pop()
			best.push(cand{int32(slot), d})
		}
	}
	out := best.items
	slices.SortFunc(out, cmpCand)
	return out
}
