package hnsw

import (
	"math"
	"math/rand/v2"
	"slices"
	"sync"
)

// graph is a Hierarchical Navigable Small World graph (Malkov & Yashunin,
// 2016) over unit vectors with distance 1 - dot. Nodes are addressed by the
// owning shard's slot numbers. Deleted nodes stay in the graph as tombstones:
// searches route through them but never return them, and the shard rebuilds
// the graph once tombstones pile up.
//
// It is written here rather than taken from github.com/coder/hnsw because
// that library's search stops at the first non-improving expansion, which
// measured recall@10 of 0.02–0.23 on 20k vectors of dimension 256 whatever
// EfSearch was (see the package doc).
//
// The bottom level's neighbour lists, which every node has, live in one
// flat array without pointers, so that the garbage collector neither scans
// nor traverses them (a million nodes were three million heap objects as
// a struct per node with a slice per level); the upper levels, which one
// node in M reaches, are kept apart.
//
// A graph is not safe for concurrent mutation; concurrent searches are safe.
type graph struct {
	m, m0, efConstruction int
	ml                    float64
	rng                   *rand.Rand

	vecs [][]float32 // by slot, views into the shard's arena; nil for slots never added
	// level0 holds, per slot, m0+1 entries: the length of its bottom-level
	// neighbour list, then the list.
	level0 []int32
	// upper holds the neighbour lists of levels 1 and up (upper[slot][l-1])
	// of the nodes drawn above the bottom level.
	upper    map[int32][][]int32
	deleted  []bool // by slot: a tombstone
	entry    int32  // entry point slot, -1 when empty
	maxLevel int

	visited sync.Pool // *visitSet
}

func newGraph(m, efConstruction int, seed uint64) *graph {
	return &graph{
		m:              m,
		m0:             2 * m,
		efConstruction: efConstruction,
		ml:             1 / math.Log(float64(m)),
		rng:            rand.New(rand.NewPCG(seed, 0x5eed)),
		upper:          map[int32][][]int32{},
		entry:          -1,
	}
}

// links returns the neighbours of slot on level l (a view: callers do not
// keep it across a change of the graph).
func (g *graph) links(slot int32, l int) []int32 {
	if l > 0 {
		return g.upper[slot][l-1]
	}
	at := int(slot) * (g.m0 + 1)
	return g.level0[at+1 : at+1+int(g.level0[at])]
}

// setLinks replaces the neighbours of slot on level l (at most m0 on the
// bottom level).
func (g *graph) setLinks(slot int32, l int, list []int32) {
	if l > 0 {
		g.upper[slot][l-1] = list
		return
	}
	at := int(slot) * (g.m0 + 1)
	g.level0[at] = int32(copy(g.level0[at+1:at+1+g.m0], list))
}

// grow makes room for slot.
func (g *graph) grow(slot int32) {
	for int(slot) >= len(g.vecs) {
		g.vecs = append(g.vecs, nil)
		g.deleted = append(g.deleted, false)
		g.level0 = append(g.level0, make([]int32, g.m0+1)...)
	}
}

func (g *graph) dist(a, b []float32) float32 { return 1 - dot(a, b) }

// randomLevel draws a node level from the exponential distribution.
func (g *graph) randomLevel() int {
	return int(-math.Log(1-g.rng.Float64()) * g.ml)
}

// add inserts vec (unit length) under slot, which must be new.
func (g *graph) add(slot int32, vec []float32) {
	g.grow(slot)
	level := g.randomLevel()
	g.vecs[slot] = vec
	if level > 0 {
		g.upper[slot] = make([][]int32, level)
	}
	if g.entry < 0 {
		g.entry, g.maxLevel = slot, level
		return
	}
	ep := g.entry
	epDist := g.dist(vec, g.vecs[ep])
	for l := g.maxLevel; l > level; l-- {
		ep, epDist = g.greedy(vec, ep, epDist, l)
	}
	vs := g.getVisited()
	defer g.visited.Put(vs)
	entries := []cand{{ep, epDist}}
	for l := min(level, g.maxLevel); l >= 0; l-- {
		found := g.searchLayer(vec, entries, g.efConstruction, l, false, vs)
		maxConn := g.m
		if l == 0 {
			maxConn = g.m0
		}
		neighbours := g.selectNeighbours(found, g.m)
		list := make([]int32, 0, len(neighbours))
		for _, c := range neighbours {
			list = append(list, c.slot)
		}
		g.setLinks(slot, l, list)
		for _, c := range neighbours {
			g.connect(c.slot, slot, l, maxConn)
		}
		entries = found
	}
	if level > g.maxLevel {
		g.entry, g.maxLevel = slot, level
	}
}

// connect adds a link from → to on level l, pruning from's list back to
// maxConn with the neighbour-selection heuristic when it overflows.
func (g *graph) connect(from, to int32, l, maxConn int) {
	list := g.links(from, l)
	if len(list) < maxConn {
		if l > 0 {
			g.upper[from][l-1] = append(list, to)
		} else {
			at := int(from) * (g.m0 + 1)
			g.level0[at+1+len(list)] = to
			g.level0[at]++
		}
		return
	}
	cands := make([]cand, 0, len(list)+1)
	for _, s := range append(list[:len(list):len(list)], to) {
		cands = append(cands, cand{s, g.dist(g.vecs[from], g.vecs[s])})
	}
	slices.SortFunc(cands, cmpCand)
	kept := g.selectNeighbours(cands, maxConn)
	out := make([]int32, len(kept))
	for i, c := range kept {
		out[i] = c.slot
	}
	g.setLinks(from, l, out)
}

// selectNeighbours applies the HNSW heuristic to candidates sorted nearest
// first: a candidate is kept only if it is closer to the base than to every
// neighbour kept so far, which keeps links spread in all directions. Slots
// the heuristic skipped fill any remaining room, so sparse regions stay
// connected.
func (g *graph) selectNeighbours(sorted []cand, m int) []cand {
	if len(sorted) <= m {
		return slices.Clone(sorted)
	}
	kept := make([]cand, 0, m)
	var skipped []cand
	for _, c := range sorted {
		if len(kept) == m {
			break
		}
		good := true
		for _, k := range kept {
			if g.dist(g.vecs[c.slot], g.vecs[k.slot]) < c.dist {
				good = false
				break
			}
		}
		if good {
			kept = append(kept, c)
		} else {
			skipped = append(skipped, c)
		}
	}
	for _, c := range skipped {
		if len(kept) == m {
			break
		}
		kept = append(kept, c)
	}
	return kept
}

// greedy walks level l from ep to the node nearest q.
func (g *graph) greedy(q []float32, ep int32, epDist float32, l int) (int32, float32) {
	for changed := true; changed; {
		changed = false
		for _, s := range g.links(ep, l) {
			if d := g.dist(q, g.vecs[s]); d < epDist {
				ep, epDist, changed = s, d, true
			}
		}
	}
	return ep, epDist
}

// searchLayer is the beam search of level l from entries with beam width ef.
// It returns up to ef nodes nearest q, sorted nearest first; with live set,
// tombstones are traversed but left out of the result.
func (g *graph) searchLayer(q []float32, entries []cand, ef, l int, live bool, vs *visitSet) []cand {
	vs.reset(len(g.vecs))
	var frontier minHeap // candidates to expand, nearest first
	var best maxHeap     // the result so far, farthest on top
	for _, e := range entries {
		vs.visit(e.slot)
		frontier.push(e)
		if !live || !g.deleted[e.slot] {
			best.push(e)
		}
	}
	for frontier.len() > 0 {
		c := frontier.pop()
		if best.len() >= ef && c.dist > best.top().dist {
			break
		}
		for _, s := range g.links(c.slot, l) {
			if !vs.visit(s) {
				continue
			}
			d := g.dist(q, g.vecs[s])
			if best.len() < ef || d < best.top().dist {
				frontier.push(cand{s, d})
				if !live || !g.deleted[s] {
					best.push(cand{s, d})
					if best.len() > ef {
						best.pop()
					}
				}
			}
		}
	}
	out := best.items
	slices.SortFunc(out, cmpCand)
	return out
}

// search returns up to k live nodes nearest q (unit length), nearest first.
func (g *graph) search(q []float32, k, ef int) []cand {
	if g.entry < 0 {
		return nil
	}
	ep := g.entry
	epDist := g.dist(q, g.vecs[ep])
	for l := g.maxLevel; l > 0; l-- {
		ep, epDist = g.greedy(q, ep, epDist, l)
	}
	vs := g.getVisited()
	defer g.visited.Put(vs)
	found := g.searchLayer(q, []cand{{ep, epDist}}, max(ef, k), 0, true, vs)
	return found[:min(k, len(found))]
}

// remove marks slot as a tombstone.
func (g *graph) remove(slot int32) {
	if int(slot) < len(g.vecs) && g.vecs[slot] != nil {
		g.deleted[slot] = true
	}
}

func (g *graph) getVisited() *visitSet {
	if vs, ok := g.visited.Get().(*visitSet); ok {
		return vs
	}
	return &visitSet{}
}

// visitSet marks visited slots with an epoch number, so clearing is O(1).
type visitSet struct {
	marks []uint32
	epoch uint32
}

func (v *visitSet) reset(n int) {
	if len(v.marks) < n {
		v.marks = make([]uint32, n+n/4)
		v.epoch = 0
	}
	v.epoch++
	if v.epoch == 0 { // wrapped: clear for real
		clear(v.marks)
		v.epoch = 1
	}
}

// visit marks s and reports whether it was unvisited.
func (v *visitSet) visit(s int32) bool {
	if v.marks[s] == v.epoch {
		return false
	}
	v.marks[s] = v.epoch
	return true
}
