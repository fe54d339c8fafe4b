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
	type key struct {
		kind kgmem.Kind
		id   string
	}
	byKey := map[key]*fused{}
	out := map[kgmem.Kind][]*fused{}
	for _, name := range order {
		rankInKind := map[kgmem.Kind]int{}
		for _, h := range lists[name] {
			rankInKind[h.Kind]++
			rank := rankInKind[h.Kind]
			key := key{h.Kind, h.ID}
			f, ok := byKey[key]
			if !ok {
				f = &fused{kind: h.Kind, id: h.ID}
				byKey[key] = f
				out[h.Kind] = append(out[h.Kind], f)
			}
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
