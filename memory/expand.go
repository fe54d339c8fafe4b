package memory

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/kgmem/kgmem"
	"github.com/kljensen/snowball/english"
)

// maxLinkedNgram is the longest run of query words tried as an entity name.
const maxLinkedNgram = 4

// seedEntityHits is how many of the best entity hits seed graph expansion,
// beside the entities the query names.
const seedEntityHits = 3

// linkEntities returns the ids of the entities of ns whose name or alias is
// a run of up to maxLinkedNgram consecutive words of the query ("ML team",
// "Alice"), in query order.
func (e *Engine) linkEntities(ctx context.Context, ns kgmem.Namespace, query string) ([]string, error) {
	ws := queryWords(query)
	var names []string
	seen := map[string]bool{}
	for i := range ws {
		for n := 1; n <= maxLinkedNgram && i+n <= len(ws); n++ {
			if n == 1 && isQueryStopWord(ws[i]) {
				continue
			}
			name := strings.Join(ws[i:i+n], " ")
			if !seen[name] {
				seen[name] = true
				names = append(names, name)
			}
		}
	}
	if len(names) == 0 {
		return nil, nil
	}
	ents, err := e.graph.FindEntities(ctx, ns, kgmem.EntityFilter{Names: names, Page: kgmem.Page{Limit: 100}})
	if err != nil {
		return nil, fmt.Errorf("entity linking: %w", err)
	}
	ids := make([]string, len(ents))
	for i, ent := range ents {
		ids[i] = ent.ID
	}
	return ids, nil
}

// graphHits is graph expansion: from the seed entities (linked, those the
// query names; then the best entity hits) it walks up to GraphDepth hops, at most
// GraphFanOut facts per entity, through current and historical facts alike
// ("the team Alice used to manage" is a path through history), and ranks the
// facts it reaches as the "graph" retriever. A fact h hops from the nearest
// seed scores confidence·(1 + m)/h, where m counts the predicates along its
// path that are query words ("who leads the team Alice used to manage?"
// follows manages, then leads). Only facts in the request's temporal view
// (current by default) are ranked; history still carries paths.
func (e *Engine) graphHits(ctx context.Context, st *searchState, linked []string, cands map[kgmem.Kind][]*fused) ([]kgmem.Hit, error) {
	req := st.req
	seeds := slices.Clone(linked)
	for _, c := range cands[kgmem.KindEntity][:min(seedEntityHits, len(cands[kgmem.KindEntity]))] {
		if !slices.Contains(seeds, c.id) {
			seeds = append(seeds, c.id)
		}
	}
	if len(seeds) == 0 {
		return nil, nil
	}
	sub, err := e.graph.Neighborhood(ctx, req.Namespace, kgmem.NeighborhoodQuery{
		Seeds: seeds, Depth: st.opts.GraphDepth, FanOut: st.opts.GraphFanOut, IncludeExpired: true, FactsOnly: true,
	})
	if err != nil {
		return nil, fmt.Errorf("graph expansion: %w", err)
	}
	stems := map[string]bool{}
	for _, w := range st.query.keywords {
		stems[english.Stem(w, false)] = true
	}
	// A fact's path score is 1 per predicate matching a query word along its
	// best path from a seed: facts are visited nearest first, and a fact's
	// parents are the facts that reach its nearer end one hop closer. The best
	// score among the facts of each hop touching each entity is kept as the
	// walk goes, so the scoring is linear in the facts reached.
	// Within a hop the order does not matter (each hop reads only the one
	// before it), so the facts are grouped by hop, as indexes.
	type hopFact struct {
		f    int // index in sub.Facts
		hop  int
		near string
	}
	facts := make([]hopFact, len(sub.Facts))
	for i := range sub.Facts {
		f := &sub.Facts[i]
		ds, do := distance(sub.Distance, f.SubjectID), distance(sub.Distance, f.ObjectID)
		near := f.SubjectID
		if do < ds {
			near = f.ObjectID
		}
		facts[i] = hopFact{f: i, hop: 1 + min(ds, do), near: near}
	}
	slices.SortFunc(facts, func(a, b hopFact) int { return cmp.Compare(a.hop, b.hop) })
	type hopEntity struct {
		hop    int
		entity string
	}
	bestAt := make(map[hopEntity]float64, 2*len(facts))
	matches := map[string]bool{} // predicate → predicateMatches, computed once
	hits := make([]kgmem.Hit, 0, len(facts))
	for _, hf := range facts {
		f := &sub.Facts[hf.f]
		best := bestAt[hopEntity{hf.hop - 1, hf.near}]
		m, ok := matches[f.Predicate]
		if !ok {
			m = predicateMatches(f.Predicate, stems)
			matches[f.Predicate] = m
		}
		if m {
			best++
		}
		for _, end := range []string{f.SubjectID, f.ObjectID} {
			k := hopEntity{hf.hop, end}
			bestAt[k] = max(bestAt[k], best)
		}
		if !inView(req, *f) {
			continue // a path through history, not an answer
		}
		hits = append(hits, kgmem.Hit{Kind: kgmem.KindFact, ID: f.ID, Score: confidenceOr1(f.Confidence) * (1 + best) / float64(hf.hop)})
	}
	// Score, then id, orders every hit (a walk reaches a fact once); like
	// the other retrievers, the graph contributes Candidates per result.
	slices.SortFunc(hits, func(a, b kgmem.Hit) int { return cmp.Or(cmp.Compare(b.Score, a.Score), cmp.Compare(a.ID, b.ID)) })
	return hits[:min(len(hits), req.Limit*st.opts.Candidates)], nil
}

// distance is the hop count of an entity in a traversal, large when unknown.
func distance(d map[string]int, id string) int {
	if n, ok := d[id]; ok {
		return n
	}
	return 1 << 20
}

// confidenceOr1 treats an unset confidence as certain.
func confidenceOr1(c float64) float64 {
	if c <= 0 {
		return 1
	}
	return c
}

// predicateMatches reports whether a word of a lower_snake predicate
// ("leads", "works_at") has the stem of a query keyword.
func predicateMatches(predicate string, stems map[string]bool) bool {
	for _, w := range strings.Split(predicate, "_") {
		if w != "" && stems[english.Stem(w, false)] {
			return true
		}
	}
	return false
}
