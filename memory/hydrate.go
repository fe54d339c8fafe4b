package memory

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"sort"

	"github.com/kgmem/kgmem"
	"github.com/samber/lo"
	"golang.org/x/sync/errgroup"
)

// hydrate loads the records behind the fused candidates, drops what the
// request excludes (history, forgotten, not valid at AsOf, deleted since
// indexing), scores each — the speaker bonus for episodes said by someone
// the query names, the forgetting-curve weight, then the priors — and keeps
// the top of each kind (diversified by MMR when MMRLambda < 1).
func (e *Engine) hydrate(ctx context.Context, st *searchState) error {
	req, opts := st.req, st.opts
	ns := req.Namespace
	at := req.AsOf
	if at.IsZero() {
		at = e.now()
	}
	weigh := func(s *Score, state kgmem.DecayState, importance int, factor func(prior) float64) {
		s.Retention = st.model.Retention(state, importance, at)
		s.DecayWeight = st.model.Weight(s.Retention)
		s.Final = s.Relevance * s.DecayWeight
		applyPriors(s, st.priors, factor)
	}
	depth := req.Limit // results kept per kind; more when a reranker will choose
	if e.reranker != nil {
		depth = max(depth, opts.RerankCandidates)
	}
	visible := func(state kgmem.DecayState) bool { return req.IncludeForgotten || !state.Forgotten() }
	// The bounds pick stops loading by: decay weights are linear in
	// retention, priors never raise a score, and the speaker bonus adds to
	// an episode's relevance.
	maxWeight := max(st.model.Weight(0), st.model.Weight(1))
	speakerBonus := 0.0
	if opts.SpeakerWeight > 0 {
		speakerBonus = opts.SpeakerWeight / (opts.RRFK + 1)
	}
	cands := st.cands
	res := &st.res
	// The kinds load at once; each writes only its own field.
	var g errgroup.Group
	g.Go(func() (err error) {
		res.Facts, err = pick(cands[kgmem.KindFact], depth,
			func(ids []string) ([]kgmem.Fact, error) { return e.graph.Facts(ctx, ns, ids) },
			func(f kgmem.Fact) string { return f.ID },
			func(f kgmem.Fact) bool { return visible(f.Decay) && inView(req, f) },
			func(f kgmem.Fact, s *Score) {
				weigh(s, f.Decay, f.Importance, func(p prior) float64 { return p.fact(f) })
			},
			func(f kgmem.Fact, s Score) FactResult { return FactResult{FactView: NewFactView(f), Score: s} },
			func(r FactResult) float64 { return r.Score.Final },
			opts.MMRLambda, func(r FactResult) string { return r.Text }, 0, maxWeight)
		if err != nil {
			return fmt.Errorf("load facts: %w", err)
		}
		return nil
	})
	g.Go(func() (err error) {
		res.Episodes, err = pick(cands[kgmem.KindEpisode], depth,
			func(ids []string) ([]kgmem.Episode, error) { return e.graph.Episodes(ctx, ns, ids) },
			func(ep kgmem.Episode) string { return ep.ID },
			func(ep kgmem.Episode) bool {
				return visible(ep.Decay) && (req.AsOf.IsZero() || !ep.Timestamp.After(req.AsOf))
			},
			func(ep kgmem.Episode, s *Score) {
				if opts.SpeakerWeight != 0 && speakerNamed(ep.Name, st.query.words) {
					s.Relevance += speakerBonus
					s.Sources = append(slices.Clip(s.Sources), SourceScore{Retriever: RetrieverSpeaker, Rank: 1, Score: 1, Contribution: speakerBonus})
				}
				weigh(s, ep.Decay, 0, func(p prior) float64 { return p.episode(ep) })
			},
			func(ep kgmem.Episode, s Score) EpisodeResult { return EpisodeResult{Episode: ep, Score: s} },
			func(r EpisodeResult) float64 { return r.Score.Final },
			opts.MMRLambda, func(r EpisodeResult) string { return r.Content }, speakerBonus, maxWeight)
		if err != nil {
			return fmt.Errorf("load episodes: %w", err)
		}
		return nil
	})
	g.Go(func() (err error) {
		res.Entities, err = pick(cands[kgmem.KindEntity], depth,
			func(ids []string) ([]kgmem.Entity, error) { return e.graph.Entities(ctx, ns, ids) },
			func(ent kgmem.Entity) string { return ent.ID },
			func(ent kgmem.Entity) bool {
				return visible(ent.Decay) && (req.AsOf.IsZero() || ent.CreatedAt.IsZero() || !ent.CreatedAt.After(req.AsOf))
			},
			func(ent kgmem.Entity, s *Score) {
				weigh(s, ent.Decay, 0, func(p prior) float64 { return p.entity(ent) })
			},
			func(ent kgmem.Entity, s Score) EntityResult { return EntityResult{Entity: ent, Score: s} },
			func(r EntityResult) float64 { return r.Score.Final },
			opts.MMRLambda, func(r EntityResult) string { return r.Name }, 0, maxWeight)
		if err != nil {
			return fmt.Errorf("load entities: %w", err)
		}
		return nil
	})
	g.Go(func() (err error) {
		items, err := pick(cands[kgmem.KindItem], depth,
			func(ids []string) ([]kgmem.Item, error) { return e.graph.Items(ctx, ns, ids) },
			func(it kgmem.Item) string { return it.ID },
			func(it kgmem.Item) bool {
				return visible(it.Decay) && (req.AsOf.IsZero() || !it.CreatedAt.After(req.AsOf))
			},
			func(it kgmem.Item, s *Score) { weigh(s, it.Decay, 0, func(prior) float64 { return 1 }) },
			func(it kgmem.Item, s Score) ItemResult { return ItemResult{Item: it, Score: &s} },
			func(r ItemResult) float64 { return r.Score.Final },
			opts.MMRLambda, func(r ItemResult) string { return r.Text }, 0, maxWeight)
		res.Items = items
		if err != nil {
			return fmt.Errorf("load items: %w", err)
		}
		return nil
	})
	return g.Wait()
}

// match pairs a candidate with the index of its loaded record.
type match struct {
	cand   *fused
	record int
}

// matchRecords pairs the candidates of chunk with the records their ids
// loaded, in chunk order, skipping candidates without one. Stores return
// records in the order of the ids asked for, missing ones left out, so one
// walk over both does it; a store that answered in another order falls back
// to a lookup by id.
func matchRecords[T any](chunk []*fused, records []T, id func(T) string) []match {
	out := make([]match, 0, len(records))
	j := 0
	for _, c := range chunk {
		if j < len(records) && id(records[j]) == c.id {
			out = append(out, match{c, j})
			j++
		}
	}
	if j == len(records) {
		return out
	}
	at := make(map[string]int, len(records))
	for i, r := range records {
		if _, dup := at[id(r)]; !dup {
			at[id(r)] = i
		}
	}
	out = out[:0]
	for _, c := range chunk {
		if i, ok := at[c.id]; ok {
			out = append(out, match{c, i})
		}
	}
	return out
}

// firstLoad is how many candidates pick loads first, per result wanted; it
// loads more (doubling) only while an unloaded candidate could still place.
const firstLoad = 2

// pick completes the scores of cands (ordered by relevance, best first) with
// rank, keeps those that pass keep, and returns the best limit by final
// score. It loads the records in growing batches and stops once the best
// final score any unloaded candidate could reach (its relevance plus bonus,
// times the largest decay weight maxWeight) cannot beat the limit-th loaded
// one, so a search loads about the records it returns, not every candidate.
// With maximal marginal relevance (lambda < 1) every candidate is loaded.
func pick[T, R any](cands []*fused, limit int, load func([]string) ([]T, error), id func(T) string,
	keep func(T) bool, rank func(T, *Score), wrap func(T, Score) R, final func(R) float64,
	lambda float64, text func(R) string, bonus, maxWeight float64) ([]R, error) {
	batch := len(cands)
	if lambda >= 1 {
		batch = max(1, firstLoad*limit)
	}
	out := make([]R, 0, min(batch, len(cands), limit))
	for start := 0; start < len(cands); {
		// Without MMR out is kept sorted as it fills (below).
		if lambda >= 1 && len(out) >= limit && (cands[start].score.Relevance+bonus)*maxWeight <= final(out[limit-1]) {
			break // no unloaded candidate can place
		}
		chunk := cands[start:min(start+batch, len(cands))]
		records, err := load(lo.Map(chunk, func(f *fused, _ int) string { return f.id }))
		if err != nil {
			return nil, err
		}
		for _, m := range matchRecords(chunk, records, id) {
			rec := records[m.record]
			if !keep(rec) {
				continue
			}
			score := m.cand.score
			rank(rec, &score)
			if lambda < 1 {
				out = append(out, wrap(rec, score)) // MMR chooses among all
				continue
			}
			// Only the best limit can be returned: out holds them, best
			// first, each after the equal ones loaded before it, which is
			// what a stable sort of everything loaded would keep.
			at := sort.Search(len(out), func(i int) bool { return final(out[i]) < score.Final })
			if at == limit {
				continue
			}
			if len(out) == limit {
				out = out[:limit-1]
			}
			out = slices.Insert(out, at, wrap(rec, score))
		}
		start += len(chunk)
		batch *= 2
	}
	if lambda < 1 {
		slices.SortStableFunc(out, func(a, b R) int { return cmp.Compare(final(b), final(a)) })
	}
	return diversify(out, limit, lambda, text, final), nil
}
