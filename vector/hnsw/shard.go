package hnsw

import (
	"slices"

	"github.com/kgmem/kgmem"
)

// shard is the in-memory search structure of one (namespace, kind): the unit
// vectors by slot, and a graph once the shard is large enough. Slots are only
// ever appended; deletes leave holes that compact reclaims.
type shard struct {
	opts  Options
	ids   []string    // by slot; "" for a deleted slot
	vecs  [][]float32 // by slot; unit length (or zero); nil for a deleted slot
	slots map[string]int32
	g     *graph // nil while the shard is searched exactly
}

func newShard(opts Options) *shard {
	return &shard{opts: opts, slots: map[string]int32{}}
}

// live is the number of vectors in the shard.
func (s *shard) live() int { return len(s.slots) }

// has reports whether id is in the shard.
func (s *shard) has(id string) bool {
	_, ok := s.slots[id]
	return ok
}

// put inserts or replaces id with the unit vector vec.
func (s *shard) put(id string, vec []float32) {
	s.remove(id)
	slot := int32(len(s.ids))
	s.ids = append(s.ids, id)
	s.vecs = append(s.vecs, vec)
	s.slots[id] = slot
	switch {
	case s.g != nil:
		s.g.add(slot, vec)
	case s.live() >= s.opts.ExactBelow:
		s.rebuild()
	}
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
		s.g.remove(slot)
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
	for slot, id := range s.ids {
		if id != "" {
			ids = append(ids, id)
			vecs = append(vecs, s.vecs[slot])
		}
	}
	s.ids, s.vecs, s.g = ids, vecs, nil
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
