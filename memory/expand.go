package memory

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

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
	req := &st.req
	seeds := slices.Clone(linked)
	for _, c := range cands[kgmem.KindEntity][:min(seedEntityHits, len(cands[kgmem.KindEntity]))] {
		if !slices.Contains(seeds, c.id) {
			seeds = append(seeds, c.id)
		}
	}
	if len(seeds) == 0 {
		return nil, nil
	}
	stems := map[string]bool{}
	for _, w := range st.query.keywords {
		stems[english.Stem(w, false)] = true
	}
	walk := func(visit func(kgmem.WalkedFact)) error {
		return e.graph.WalkFacts(ctx, req.Namespace, kgmem.NeighborhoodQuery{
			Seeds: seeds, Depth: st.opts.GraphDepth, FanOut: st.opts.GraphFanOut, IncludeExpired: true, FactsOnly: true,
		}, visit)
	}
	hits, err := pathHits(walk, func(predicate string) bool { return e.predicates.matches(predicate, stems) },
		func(f *kgmem.Fact) bool { return inView(req, st.named, f) }, req.Limit*st.opts.Candidates)
	if err != nil {
		return nil, fmt.Errorf("graph expansion: %w", err)
	}
	return hits, nil
}

// pathHits scores the facts walk reaches and returns the best k of those
// that answer, by score, then id. A fact's path score is 1 per predicate
// matching (matches) along its best path from a seed. Facts are scored
// nearest first: a fact h hops away (1 + the nearer end's distance) extends
// the best path reaching its nearer end, which the facts h-1 hops away that
// reach that entity as their farther end carried on. Keeping that best per
// entity as the walk goes makes the scoring linear in the facts reached; an
// entity's best is written only by the facts of the hop equal to its
// distance and read only by those one hop further, so one number per entity
// holds it. Facts that do not answer (a path through history) still carry
// paths.
func pathHits(walk func(visit func(kgmem.WalkedFact)) error, matches func(predicate string) bool,
	answers func(*kgmem.Fact) bool, k int) ([]kgmem.Hit, error) {
	type reachedFact struct {
		id   string
		near string
		// far is the other end when its distance is hop (the path goes on
		// through it); empty when both ends are as near, or when the walk
		// placed the other end further (the fan-out kept this fact from
		// the nearer end's expansion), whose best is another hop's.
		far     string
		hop     int
		weight  float64 // confidence, 1 when unset
		matched bool
		answers bool
	}
	var reached []reachedFact
	matched := map[string]bool{} // predicate → its match, computed once
	err := walk(func(w kgmem.WalkedFact) {
		f := w.Fact
		r := reachedFact{id: f.ID, near: f.SubjectID, hop: 1 + min(w.SubjectDistance, w.ObjectDistance),
			weight: confidenceOr1(f.Confidence), answers: answers(f)}
		far, farDistance := f.ObjectID, w.ObjectDistance
		if w.ObjectDistance < w.SubjectDistance {
			r.near, far, farDistance = f.ObjectID, f.SubjectID, w.SubjectDistance
		}
		if farDistance == r.hop {
			r.far = far
		}
		m, ok := matched[f.Predicate]
		if !ok {
			m = matches(f.Predicate)
			matched[f.Predicate] = m
		}
		r.matched = m
		reached = append(reached, r)
	})
	if err != nil {
		return nil, err
	}
	// Within a hop the order does not matter: each hop reads only the one
	// before it.
	slices.SortFunc(reached, func(a, b reachedFact) int { return cmp.Compare(a.hop, b.hop) })
	bestAt := make(map[string]float64, len(reached))
	hits := make([]kgmem.Hit, 0, len(reached))
	for _, r := range reached {
		best := bestAt[r.near]
		if r.matched {
			best++
		}
		if r.far != "" {
			bestAt[r.far] = max(bestAt[r.far], best)
		}
		if r.answers {
			hits = append(hits, kgmem.Hit{Kind: kgmem.KindFact, ID: r.id, Score: r.weight * (1 + best) / float64(r.hop)})
		}
	}
	// Score, then id, orders every hit (a walk reaches a fact once); like
	// the other retrievers, the graph contributes Candidates per result.
	return best(hits, k, func(a, b kgmem.Hit) int {
		if a.Score != b.Score { // ids compared only on a tie (cmp.Or would compare both)
			return cmp.Compare(b.Score, a.Score)
		}
		return strings.Compare(a.ID, b.ID)
	}), nil
}

// best returns the first k of s in the order of compare, in that order,
// reordering s: a walk reaches far more facts than the graph retriever
// keeps, and sorting them all cost more than keeping the best while
// reading them. compare must be a strict total order (no two elements
// equal), so that the result is what sorting all of s would give.
func best[T any](s []T, k int, compare func(a, b T) int) []T {
	if len(s) <= k {
		slices.SortFunc(s, compare)
		return s
	}
	if k <= 0 {
		return s[:0]
	}
	// s[:n] holds the best of those read so far, in order; each element
	// read later that beats the last held is moved in by binary search.
	n := 0
	for i := range s {
		if n == k && compare(s[i], s[k-1]) >= 0 {
			continue
		}
		x := s[i]
		at, _ := slices.BinarySearchFunc(s[:n], x, compare)
		if n < k {
			n++
		}
		copy(s[at+1:n], s[at:n-1])
		s[at] = x
	}
	return s[:k]
}

// confidenceOr1 treats an unset confidence as certain.
func confidenceOr1(c float64) float64 {
	if c <= 0 {
		return 1
	}
	return c
}

// predicateStems keeps the stems of the words of predicates, which a store
// shares among many facts and searches: stemming them again for every
// search was a tenth of the graph retriever's CPU. It holds at most
// maxPredicateStems predicates (past it, others are stemmed each time).
// Safe for concurrent use.
type predicateStems struct {
	stems sync.Map // predicate → []string
	held  atomic.Int64
}

// maxPredicateStems bounds predicateStems: a schema names tens of
// predicates, and an LLM left free makes hundreds.
const maxPredicateStems = 10_000

// of returns the stems of the words of a lower_snake predicate ("leads",
// "works_at").
func (p *predicateStems) of(predicate string) []string {
	if v, ok := p.stems.Load(predicate); ok {
		return v.([]string)
	}
	var out []string
	for _, w := range strings.Split(predicate, "_") {
		if w != "" {
			out = append(out, english.Stem(w, false))
		}
	}
	if p.held.Load() < maxPredicateStems {
		if _, loaded := p.stems.LoadOrStore(predicate, out); !loaded {
			p.held.Add(1)
		}
	}
	return out
}

// matches reports whether a word of predicate has the stem of a query
// keyword (stems).
func (p *predicateStems) matches(predicate string, stems map[string]bool) bool {
	for _, s := range p.of(predicate) {
		if stems[s] {
			return true
		}
	}
	return false
}
