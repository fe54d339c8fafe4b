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
func fuse(opts SearchOptions, order []string, lists map[string][]kgmem.Hit) map[kgmem.Kind][]*fused {
	// Two passes, so that the candidates and their sources take one
	// allocation each, of their exact size, rather than one or more per
	// hit (fuse allocated a fifth of a loaded server's bytes): the first
	// numbers the candidates in first-seen order and counts their hits,
	// the second scores them.
	type key struct {
		kind kgmem.Kind
		id   string
	}
	total := 0
	for _, name := range order {
		total += len(lists[name])
	}
	index := make(map[key]int, total)
	var keys []key // by candidate number
	var hits []int // by candidate number
	for _, name := range order {
		for _, h := range lists[name] {
			k := key{h.Kind, h.ID}
			i, ok := index[k]
			if !ok {
				i = len(keys)
				index[k] = i
				keys, hits = append(keys, k), append(hits, 0)
			}
			hits[i]++
		}
	}
	cands := make([]fused, len(keys))
	sources := make([]SourceScore, total)
	for i, k := range keys {
		// Capped at its hits: the second pass fills it, and whoever adds a
		// source later (speaker, reranker) clips first, so none spills
		// into the next candidate's.
		cands[i] = fused{kind: k.kind, id: k.id, score: Score{Sources: sources[:0:hits[i]]}}
		sources = sources[hits[i]:]
	}
	out := map[kgmem.Kind][]*fused{}
	for i := range cands {
		out[cands[i].kind] = append(out[cands[i].kind], &cands[i])
	}
	for _, name := range order {
		rankInKind := map[kgmem.Kind]int{}
		for _, h := range lists[name] {
			rankInKind[h.Kind]++
			rank := rankInKind[h.Kind]
			f := &cands[index[key{h.Kind, h.ID}]]
			share := opts.weight(name) / (opts.RRFK + float64(rank))
			f.score.Relevance += share
			f.score.Sources = append(f.score.Sources, SourceScore{Retriever: name, Rank: rank, Score: h.Score, Contribution: share})
		}
	}
	for k := range out {
		slices.SortStableFunc(out[k], func(a, b *fused) int { return cmp.Compare(b.score.Relevance, a.score.Relevance) })
	}
	return out
}
