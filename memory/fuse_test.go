package memory

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/kgmem/kgmem"
)

// TestFuseMatchesPlainFusion checks fuse against reciprocal rank fusion
// written plainly (maps throughout, a sort at the end) on random lists:
// repeated and shared ids, kinds mixed in every list, empty and unlisted
// lists, equal relevances. Candidates, their order, relevances (summed in
// the same order, so equal to the bit) and sources must all agree, and each
// kind's list and each candidate's sources must be capped. One scratch
// serves every call, and each result is checked after the next call used
// it, so that nothing fuse returns lives in its scratch.
func TestFuseMatchesPlainFusion(t *testing.T) {
	kinds := []kgmem.Kind{kgmem.KindEpisode, kgmem.KindFact, kgmem.KindEntity, kgmem.KindItem}
	names := []string{RetrieverVector, RetrieverBM25, RetrieverThread, RetrieverGraph, RetrieverSpeaker}
	r := rand.New(rand.NewPCG(7, 23))
	sc := &fuseScratch{}
	for trial := range 300 {
		opts := SearchOptions{RRFK: float64(1 + r.IntN(60)), VectorWeight: r.Float64(), TextWeight: 1, ThreadWeight: float64(r.IntN(3)), GraphWeight: 0.5}
		lists := map[string][]kgmem.Hit{}
		for _, name := range append(slices.Clone(names), "unlisted") {
			for range r.IntN(40) {
				k := kinds[r.IntN(1+r.IntN(len(kinds)))]
				lists[name] = append(lists[name], kgmem.Hit{Kind: k, ID: fmt.Sprintf("id%d", r.IntN(30)), Score: r.Float64()})
			}
		}
		order := names[:1+r.IntN(len(names))]
		got := fuse(opts, order, lists, sc)
		want := plainFusion(opts, order, lists)
		other := map[string][]kgmem.Hit{RetrieverVector: {{Kind: kinds[trial%len(kinds)], ID: "other", Score: 1}}}
		fuse(opts, order, other, sc)
		if len(got) != len(want) {
			t.Fatalf("trial %d: kinds %d, want %d", trial, len(got), len(want))
		}
		for kind, ws := range want {
			gs := got[kind]
			if len(gs) != len(ws) {
				t.Fatalf("trial %d, %s: %d candidates, want %d", trial, kind, len(gs), len(ws))
			}
			// Capped, so that appending to one kind's list cannot
			// overwrite another's.
			if cap(gs) != len(gs) {
				t.Fatalf("trial %d, %s: candidates not capped: len %d, cap %d", trial, kind, len(gs), cap(gs))
			}
			for i := range ws {
				g, w := gs[i], ws[i]
				if g.kind != w.kind || g.id != w.id || g.score.Relevance != w.score.Relevance || !slices.Equal(g.score.Sources, w.score.Sources) {
					t.Fatalf("trial %d, %s #%d: %s %s %v %+v, want %s %s %v %+v", trial, kind, i,
						g.kind, g.id, g.score.Relevance, g.score.Sources, w.kind, w.id, w.score.Relevance, w.score.Sources)
				}
				if cap(g.score.Sources) != len(g.score.Sources) {
					t.Fatalf("trial %d: sources of %s are not capped: len %d, cap %d", trial, g.id, len(g.score.Sources), cap(g.score.Sources))
				}
			}
		}
	}
}

// plainFusion is reciprocal rank fusion as the doc of fuse states it.
func plainFusion(opts SearchOptions, order []string, lists map[string][]kgmem.Hit) map[kgmem.Kind][]*fused {
	type key struct {
		kind kgmem.Kind
		id   string
	}
	byKey := map[key]*fused{}
	var seen []*fused
	for _, name := range order {
		rank := map[kgmem.Kind]int{}
		for _, h := range lists[name] {
			rank[h.Kind]++
			f := byKey[key{h.Kind, h.ID}]
			if f == nil {
				f = &fused{kind: h.Kind, id: h.ID}
				byKey[key{h.Kind, h.ID}] = f
				seen = append(seen, f)
			}
			share := opts.weight(name) / (opts.RRFK + float64(rank[h.Kind]))
			f.score.Relevance += share
			f.score.Sources = append(f.score.Sources, SourceScore{Retriever: name, Rank: rank[h.Kind], Score: h.Score, Contribution: share})
		}
	}
	out := map[kgmem.Kind][]*fused{}
	for _, f := range seen {
		out[f.kind] = append(out[f.kind], f)
	}
	for _, fs := range out {
		slices.SortStableFunc(fs, func(a, b *fused) int { return cmp.Compare(b.score.Relevance, a.score.Relevance) })
	}
	return out
}
