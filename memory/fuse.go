package memory

import (
	"cmp"
	"slices"

	"github.com/kgmem/kgmem"
)

// fused is one candidate with its accumulated score.
type fused struct {
	kind  kgmem.Kind
	id    string
	score Score
}

// fuse combines the retrievers' lists by weighted reciprocal rank, per kind,
// best first: a hit at rank r (1-based, counted within its kind, so that one
// kind's many hits cannot push another's down) of a retriever of weight w
// adds w / (RRFK + r). order fixes the order retrievers are read in, which
// breaks ties (stable sort) and orders each result's sources.
//
// sc holds fuse's own indexes between calls (nil: fresh ones); none of them
// is part of what fuse returns.
func fuse(opts SearchOptions, order []string, lists map[string][]kgmem.Hit, sc *fuseScratch) map[kgmem.Kind][]*fused {
	// A search fuses a few hundred hits twice (fuse was a fifth of the
	// bytes a server under load allocated, and its map lookups most of its
	// time): the kinds are few (kgmem's own, so a byte numbers them), each
	// hit's kind is found in a short slice, the candidates and their
	// sources are each allocated once, at their final size, and the
	// indexes are the scratch's, kept from earlier searches.
	if sc == nil {
		sc = &fuseScratch{}
	}
	n := 0
	for _, name := range order {
		n += len(lists[name])
	}
	// Each hit's kind, in reading order.
	var kinds []kindCandidates
	slot := sc.slot[:0]
	for _, name := range order {
		for _, h := range lists[name] {
			k := kindSlot(kinds, h.Kind)
			if k < 0 {
				k = len(kinds)
				kinds = append(kinds, kindCandidates{kind: h.Kind})
			}
			kinds[k].hits++
			slot = append(slot, uint8(k))
		}
	}
	for k := range kinds {
		kinds[k].ids = sc.index(k, kinds[k].hits)
	}
	// Each hit's candidate, the candidates numbered as first read.
	at := sc.at[:0]
	found := sc.found[:0] // lists that hold each candidate
	defer func() { sc.slot, sc.at, sc.found = slot, at, found }()
	j := 0
	for _, name := range order {
		for _, h := range lists[name] {
			k := slot[j]
			j++
			i, ok := kinds[k].ids[h.ID]
			if !ok {
				i = int32(len(found))
				kinds[k].ids[h.ID] = i
				found = append(found, 0)
			}
			found[i]++
			at = append(at, i)
		}
	}
	pool := make([]fused, len(found))
	sources := make([]SourceScore, n)
	for i := range pool {
		// Capped, so that a later stage's append cannot run into the next.
		pool[i].score.Sources, sources = sources[:0:found[i]], sources[found[i]:]
	}
	j = 0
	for _, name := range order {
		for k := range kinds {
			kinds[k].rank = 0
		}
		for _, h := range lists[name] {
			kc := &kinds[slot[j]]
			kc.rank++
			f := &pool[at[j]]
			j++
			if f.id == "" {
				f.kind, f.id = h.Kind, h.ID // its first hit
			}
			share := opts.weight(name) / (opts.RRFK + float64(kc.rank))
			f.score.Relevance += share
			f.score.Sources = append(f.score.Sources, SourceScore{Retriever: name, Rank: kc.rank, Score: h.Score, Contribution: share})
		}
	}
	out := make(map[kgmem.Kind][]*fused, len(kinds))
	ptrs := make([]*fused, 0, len(pool))
	for k := range kinds {
		start := len(ptrs)
		for i := range pool {
			if pool[i].kind == kinds[k].kind {
				ptrs = append(ptrs, &pool[i])
			}
		}
		// Capped, so that appending to one kind's list cannot overwrite
		// the next.
		byKind := ptrs[start:len(ptrs):len(ptrs)]
		slices.SortStableFunc(byKind, func(a, b *fused) int { return cmp.Compare(b.score.Relevance, a.score.Relevance) })
		out[kinds[k].kind] = byKind
	}
	return out
}

// kindCandidates is fuse's index of the candidates of one kind.
type kindCandidates struct {
	kind kgmem.Kind
	hits int              // hits of the kind, over every list
	ids  map[string]int32 // each candidate's number
	rank int              // hits of the kind read so far in the current list
}

// kindSlot returns the index of kind in kinds, or -1.
func kindSlot(kinds []kindCandidates, kind kgmem.Kind) int {
	for k := range kinds {
		if kinds[k].kind == kind {
			return k
		}
	}
	return -1
}

// fuseScratch is what fuse indexes hits with, kept for the next call: an
// Engine keeps them in a pool (Engine.fusing) for its searches.
type fuseScratch struct {
	slot      []uint8
	at, found []int32
	ids       []map[string]int32 // per kind slot
}

// maxKeptIndex bounds the candidates of a kind whose index a scratch keeps:
// clearing a map costs its capacity, and a search of a few hundred
// candidates should not pay for one that had thousands.
const maxKeptIndex = 4096

// index returns an empty index of kind slot k for hits hits.
func (sc *fuseScratch) index(k, hits int) map[string]int32 {
	for len(sc.ids) <= k {
		sc.ids = append(sc.ids, nil)
	}
	m := sc.ids[k]
	if m == nil || len(m) > maxKeptIndex {
		m = make(map[string]int32, hits)
		sc.ids[k] = m
		return m
	}
	clear(m)
	return m
}
