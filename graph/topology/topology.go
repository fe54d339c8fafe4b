// Package topology holds the shape of one namespace's graph in memory (every
// fact's graph fields and, per entity, its facts in walk order), so graph
// expansion (GraphStore.Neighborhood with FactsOnly) walks it without reading
// the store. Both graph stores build it from their records and keep it in an
// nscache.Cache keyed by namespace and checked against the namespace's graph
// version.
package topology

import (
	"cmp"
	"math/bits"
	"slices"
	"time"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/internal/nscache"
)

// Cache bounds. CacheBudget is the facts a store's topology cache holds over
// all namespaces (about 200 bytes each): past it the least recently walked
// namespaces are dropped, and a namespace larger than it is walked in the
// store. A stale topology of more than RefreshAbove facts is read again in
// the background while walks go to the store (nscache).
const (
	CacheBudget  = 2_000_000
	RefreshAbove = 20_000
)

// NewCache returns an empty topology cache with the bounds above and opts
// (nscache.VersionsGrow for a store whose versions only grow).
func NewCache(opts ...nscache.Option) *nscache.Cache[*Topology] {
	return nscache.New[*Topology](CacheBudget, RefreshAbove, opts...)
}

// Topology is one namespace's graph shape. It is read-only once built and
// safe for concurrent use.
type Topology struct {
	ns    kgmem.Namespace
	edges []edge
	// entities are the ends of the edges, each once; edges and the lists
	// below refer to them by index, so that a walk keeps its books in
	// index space instead of hashing entity ids.
	entities []string
	entityAt map[string]int32
	// bySubject and byObject list the edges of each entity (by index) in
	// that role, most important first, then by id: the order of the
	// stores' walks.
	bySubject, byObject [][]int32
}

// edge is a fact's graph fields, its ends as indexes into entities.
type edge struct {
	id, predicate                        string
	subject, object                      int32
	confidence                           float64
	importance                           int
	validAt, invalidAt, created, expired instant
}

// instant is a UTC time.Time in 16 bytes instead of 24, without the
// location pointer: a topology holds four per fact.
type instant struct {
	sec  int64 // seconds since January 1, year 1 (the zero time.Time)
	nsec int32
}

// secondsToUnix is the zero time.Time in Unix seconds.
const secondsToUnix = -62135596800

func instantOf(t time.Time) instant {
	return instant{sec: t.Unix() - secondsToUnix, nsec: int32(t.Nanosecond())}
}

// time returns the instant in UTC; the zero instant is the zero time.
func (i instant) time() time.Time {
	if i == (instant{}) {
		return time.Time{}
	}
	return time.Unix(i.sec+secondsToUnix, int64(i.nsec)).UTC()
}

// New builds the topology of ns from its facts, of which only the graph
// fields (id, ends, predicate, confidence, importance, the four times) are
// kept.
func New(ns kgmem.Namespace, facts []kgmem.Fact) *Topology {
	t := &Topology{ns: ns, edges: make([]edge, len(facts)), entityAt: map[string]int32{}}
	// Predicates repeat across facts: keep one copy of each.
	predicates := map[string]string{}
	intern := func(s string) string {
		if v, ok := predicates[s]; ok {
			return v
		}
		predicates[s] = s
		return s
	}
	entity := func(id string) int32 {
		if i, ok := t.entityAt[id]; ok {
			return i
		}
		i := int32(len(t.entities))
		t.entities, t.entityAt[id] = append(t.entities, id), i
		t.bySubject, t.byObject = append(t.bySubject, nil), append(t.byObject, nil)
		return i
	}
	// Edges are kept in fact id order, so that an order of edge indexes is
	// the order of their ids: Walk lists what it reached by index.
	byID := make([]int, len(facts))
	for i := range byID {
		byID[i] = i
	}
	slices.SortFunc(byID, func(a, b int) int { return cmp.Compare(facts[a].ID, facts[b].ID) })
	for i, at := range byID {
		f := &facts[at]
		t.edges[i] = edge{id: f.ID, subject: entity(f.SubjectID), predicate: intern(f.Predicate), object: entity(f.ObjectID),
			confidence: f.Confidence, importance: f.Importance,
			validAt: instantOf(f.ValidAt), invalidAt: instantOf(f.InvalidAt), created: instantOf(f.CreatedAt), expired: instantOf(f.ExpiredAt)}
		e := &t.edges[i]
		t.bySubject[e.subject] = append(t.bySubject[e.subject], int32(i))
		t.byObject[e.object] = append(t.byObject[e.object], int32(i))
	}
	for _, sides := range [][][]int32{t.bySubject, t.byObject} {
		for _, idx := range sides {
			slices.SortFunc(idx, t.walkOrder)
		}
	}
	t.entities = slices.Clip(t.entities)
	return t
}

// Len returns the number of facts held.
func (t *Topology) Len() int { return len(t.edges) }

// Walk is kgmem.WalkNeighborhood's walk with FactsOnly over the topology,
// from seeds that exist: depth levels, each entity expanded to its first
// fanOut facts in either role (expandEdges), each fact kept once. It returns the same facts (in id order) and
// distances, but works on edge indexes and makes each fact once, at the
// end: a walk from a hub reaches the same facts through many entities.
func (t *Topology) Walk(seeds []string, depth, fanOut int, includeExpired bool) kgmem.Subgraph {
	g := kgmem.Subgraph{Distance: make(map[string]int, len(seeds))}
	for _, id := range seeds {
		g.Distance[id] = 0 // a seed without facts is placed, and expands to nothing
	}
	r := t.reach(seeds, depth, fanOut, includeExpired)
	if r.kept == 0 {
		return g
	}
	for end, d := range r.distance {
		if d > 0 {
			g.Distance[t.entities[end]] = d
		}
	}
	g.Facts = make([]kgmem.Fact, 0, r.kept)
	r.each(func(i int) { g.Facts = append(g.Facts, t.fact(i)) })
	return g
}

// Visit is Walk for kgmem.GraphStore.WalkFacts: it calls visit for each
// fact reached, in id order, with its ends' distances, filling one Fact for
// all of them instead of making a Fact of each and a map of distances.
func (t *Topology) Visit(seeds []string, depth, fanOut int, includeExpired bool, visit func(kgmem.WalkedFact)) {
	r := t.reach(seeds, depth, fanOut, includeExpired)
	var f kgmem.Fact
	r.each(func(i int) {
		f = t.fact(i)
		e := &t.edges[i]
		visit(kgmem.WalkedFact{Fact: &f, SubjectDistance: r.distance[e.subject], ObjectDistance: r.distance[e.object]})
	})
}

// reached is what a walk reached, in index space.
type reached struct {
	// seen has the bit of each edge reached; kept counts them.
	seen []uint64
	kept int
	// distance is the hop count of each entity reached (seeds: 0).
	distance map[int32]int
}

// each calls fn with each edge reached, in index order, which is id order.
func (r *reached) each(fn func(i int)) {
	for w, word := range r.seen {
		for ; word != 0; word &= word - 1 {
			fn(w*64 + bits.TrailingZeros64(word))
		}
	}
}

// reach walks from the seeds that have facts, keeping its books by edge and
// entity index: hashing entity ids was a quarter of a walk's time.
func (t *Topology) reach(seeds []string, depth, fanOut int, includeExpired bool) reached {
	r := reached{seen: make([]uint64, (len(t.edges)+63)/64), distance: make(map[int32]int, len(seeds))}
	var frontier []int32
	for _, id := range seeds {
		if i, ok := t.entityAt[id]; ok {
			if _, dup := r.distance[i]; !dup {
				r.distance[i] = 0
				frontier = append(frontier, i)
			}
		}
	}
	var level []int32
	for d := 0; d < depth && len(frontier) > 0; d++ {
		level = t.expandEdges(level[:0], frontier, fanOut, includeExpired)
		var next []int32
		for _, i := range level {
			if r.seen[i/64]&(1<<(i%64)) != 0 {
				continue
			}
			r.seen[i/64] |= 1 << (i % 64)
			r.kept++
			// One end is on the frontier (already placed); the other, if
			// new, is one hop further.
			for _, end := range [2]int32{t.edges[i].subject, t.edges[i].object} {
				if _, ok := r.distance[end]; !ok {
					r.distance[end] = d + 1
					next = append(next, end)
				}
			}
		}
		frontier = next // its order changes nothing: each entity expands alike
	}
	return r
}

// expandEdges appends to all, for each entity of frontier, at most fanOut of
// its facts in either role (unexpired ones unless includeExpired), most
// important first, then by id, as edge indexes: the expansion of one level
// of Walk (kgmem.NeighborhoodSteps.Expand over the topology).
func (t *Topology) expandEdges(all []int32, frontier []int32, fanOut int, includeExpired bool) []int32 {
	subj, obj := make([]int32, 0, fanOut), make([]int32, 0, fanOut)
	for _, ent := range frontier {
		subj, obj = t.firstOf(subj[:0], t.bySubject[ent], fanOut, includeExpired), t.firstOf(obj[:0], t.byObject[ent], fanOut, includeExpired)
		// Both sides are in walk order: merge them up to fanOut.
		i, j := 0, 0
		for n := 0; n < fanOut && (i < len(subj) || j < len(obj)); n++ {
			switch {
			case j == len(obj) || i < len(subj) && t.walkOrder(subj[i], obj[j]) < 0:
				all = append(all, subj[i])
				i++
			case i == len(subj) || subj[i] != obj[j]:
				all = append(all, obj[j])
				j++
			default: // a fact from ent to itself is on both sides
				all = append(all, subj[i])
				i, j = i+1, j+1
			}
		}
	}
	return all
}

// firstOf appends to dst the first n edges of side (in walk order) that are
// unexpired unless includeExpired.
func (t *Topology) firstOf(dst, side []int32, n int, includeExpired bool) []int32 {
	for _, i := range side {
		if len(dst) == n {
			break
		}
		if includeExpired || t.edges[i].expired == (instant{}) {
			dst = append(dst, i)
		}
	}
	return dst
}

// walkOrder orders edge indexes most important first, then by fact id
// (edges are in id order).
func (t *Topology) walkOrder(a, b int32) int {
	return cmp.Or(cmp.Compare(t.edges[b].importance, t.edges[a].importance), cmp.Compare(a, b))
}

// fact returns edge i as a fact of the namespace with its graph fields
// only.
func (t *Topology) fact(i int) kgmem.Fact {
	e := &t.edges[i]
	return kgmem.Fact{ID: e.id, Namespace: t.ns, SubjectID: t.entities[e.subject], Predicate: e.predicate, ObjectID: t.entities[e.object],
		Confidence: e.confidence, Importance: e.importance, ValidAt: e.validAt.time(), InvalidAt: e.invalidAt.time(),
		CreatedAt: e.created.time(), ExpiredAt: e.expired.time()}
}
