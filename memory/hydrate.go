package memory

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"sort"

	"github.com/kgmem/kgmem"
	"github.com/samber/lo"
)

// hydrate loads the records behind the fused candidates (cands) of kinds,
// drops what the request excludes (history, forgotten, not valid at AsOf,
// deleted since indexing, expired items), scores each — the speaker bonus for episodes said
// by someone the query names, the forgetting-curve weight, then the priors —
// and keeps the top of each kind (diversified by MMR when MMRLambda < 1).
func (e *Engine) hydrate(ctx context.Context, st *searchState, cands map[kgmem.Kind][]*fused, kinds []kgmem.Kind) error {
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
	now := e.now() // an expired item is hidden whatever AsOf says
	res := &st.res
	// The kinds load at once; each writes only its own field.
	g := st.fanOut()
	goKind := func(k kgmem.Kind, load func() error) {
		if slices.Contains(kinds, k) {
			g.Go(load)
		}
	}
	goKind(kgmem.KindFact, func() (err error) {
		res.Facts, err = pick(cands[kgmem.KindFact], depth, e.firstLoad(),
			func(ids []string) ([]kgmem.Fact, error) { return e.graph.Facts(ctx, ns, ids) },
			func(f kgmem.Fact) string { return f.ID },
			func(f kgmem.Fact) bool { return visible(f.Decay) && inView(&req, st.named, &f) },
			func(f kgmem.Fact, s *Score) {
				weigh(s, f.Decay, f.Importance, func(p prior) float64 { return p.fact(f) })
			},
			func(f kgmem.Fact, s Score) FactResult { return FactResult{FactView: NewFactView(f), Score: s} },
			func(r FactResult) float64 { return r.Score.Final },
			opts.MMRLambda, func(r FactResult) string { return r.Text }, nil, maxWeight)
		if err != nil {
			return fmt.Errorf("load facts: %w", err)
		}
		return nil
	})
	goKind(kgmem.KindEpisode, func() (err error) {
		epBonus := e.speakerBonuses(ctx, st, cands[kgmem.KindEpisode], depth, speakerBonus)
		res.Episodes, err = pick(cands[kgmem.KindEpisode], depth, e.firstLoad(),
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
			opts.MMRLambda, func(r EpisodeResult) string { return r.Content }, epBonus, maxWeight)
		if err != nil {
			return fmt.Errorf("load episodes: %w", err)
		}
		return nil
	})
	goKind(kgmem.KindEntity, func() (err error) {
		res.Entities, err = pick(cands[kgmem.KindEntity], depth, e.firstLoad(),
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
			opts.MMRLambda, func(r EntityResult) string { return r.Name }, nil, maxWeight)
		if err != nil {
			return fmt.Errorf("load entities: %w", err)
		}
		return nil
	})
	goKind(kgmem.KindItem, func() (err error) {
		items, err := pick(cands[kgmem.KindItem], depth, e.firstLoad(),
			func(ids []string) ([]kgmem.Item, error) { return e.graph.Items(ctx, ns, ids) },
			func(it kgmem.Item) string { return it.ID },
			func(it kgmem.Item) bool {
				return visible(it.Decay) && !it.Expired(now) && (req.AsOf.IsZero() || !it.CreatedAt.After(req.AsOf))
			},
			func(it kgmem.Item, s *Score) { weigh(s, it.Decay, 0, func(prior) float64 { return 1 }) },
			func(it kgmem.Item, s Score) ItemResult { return ItemResult{Item: it, Score: &s} },
			func(r ItemResult) float64 { return r.Score.Final },
			opts.MMRLambda, func(r ItemResult) string { return r.Text }, nil, maxWeight)
		res.Items = items
		if err != nil {
			return fmt.Errorf("load items: %w", err)
		}
		return nil
	})
	return g.Wait()
}

// speakerBonuses bounds the speaker bonus each episode candidate can get,
// for pick: bonus for every candidate, unless the store tells the
// candidates' speakers without loading them (EpisodeSpeakers), when it is
// bonus only for those said by someone the query names. Nil when no
// candidate can get one, and when pick loads every candidate anyway (MMR,
// or no more candidates than its first load). The speakers are a bound
// only: a failure to read them leaves every candidate the bonus, and the
// episodes' loading reports the store's failure.
func (e *Engine) speakerBonuses(ctx context.Context, st *searchState, cands []*fused, limit int, bonus float64) []float64 {
	if bonus == 0 || st.opts.MMRLambda < 1 || len(cands) <= e.firstLoad()*limit {
		return nil
	}
	out := make([]float64, len(cands))
	names, known, err := e.graph.EpisodeSpeakers(ctx, st.req.Namespace, lo.Map(cands, func(f *fused, _ int) string { return f.id }))
	if err != nil || !known || len(names) != len(cands) {
		for i := range out {
			out[i] = bonus
		}
		return out
	}
	named := map[string]bool{} // speakers repeat: each is matched once
	for i, name := range names {
		ok, seen := named[name]
		if !seen {
			ok = name != "" && speakerNamed(name, st.query.words)
			named[name] = ok
		}
		if ok {
			out[i] = bonus
		}
	}
	return out
}

// match pairs a candidate, by its place in a chunk, with the index of its
// loaded record.
type match struct {
	pos    int
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
	for pos, c := range chunk {
		if j < len(records) && id(records[j]) == c.id {
			out = append(out, match{pos, j})
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
	for pos, c := range chunk {
		if i, ok := at[c.id]; ok {
			out = append(out, match{pos, i})
		}
	}
	return out
}

// localFirstLoad is how many candidates pick loads first, per result
// wanted, from stores in this process; it loads more (doubling) only while
// an unloaded candidate could still place. From a remote store a load
// costs a round trip more than its records, so pick loads remoteFirstLoad
// per result first.
const (
	localFirstLoad  = 2
	remoteFirstLoad = 8
)

// firstLoad is how many candidates pick loads first per result wanted,
// from this engine's graph store.
func (e *Engine) firstLoad() int {
	if e.inlineWhenBusy {
		return localFirstLoad
	}
	return remoteFirstLoad
}

// pick completes the scores of cands (ordered by relevance, best first) with
// rank, keeps those that pass keep, and returns the best limit by final
// score, equal ones in the order of cands. With maximal marginal relevance
// (lambda < 1) it loads every candidate and lets diversify choose.
// Otherwise it loads the records in growing batches: first the best
// first*limit candidates, then, once it holds limit results, only the candidates that
// could still place: those whose best final score (relevance plus the most
// rank can add to it, bonus[i] for cands[i], none when bonus is nil, times
// the largest decay weight maxWeight) beats the limit-th held. A search so
// loads about the records it returns, not every candidate; a bonus only some
// candidates can get (the speaker's) loads those, not all in between.
func pick[T, R any](cands []*fused, limit, first int, load func([]string) ([]T, error), id func(T) string,
	keep func(T) bool, rank func(T, *Score), wrap func(T, Score) R, final func(R) float64,
	lambda float64, text func(R) string, bonus []float64, maxWeight float64) ([]R, error) {
	if lambda < 1 {
		var out []R
		err := loadScored(cands, load, id, keep, rank, func(_ int, rec T, score Score) { out = append(out, wrap(rec, score)) })
		if err != nil {
			return nil, err
		}
		slices.SortStableFunc(out, func(a, b R) int { return cmp.Compare(final(b), final(a)) })
		return diversify(out, limit, lambda, text, final), nil
	}
	// out holds the best limit loaded, ordered by final score, then by
	// place in cands (at): what a stable sort of everything loaded keeps.
	out := make([]R, 0, min(len(cands), limit))
	at := make([]int, 0, cap(out))
	loaded := make([]bool, len(cands))
	next := 0 // cands[:next] are all loaded
	chunk, places := []*fused{}, []int{}
	for batch := max(1, first*limit); ; batch *= 2 {
		chunk, places = chunk[:0], places[:0]
		for i := next; i < len(cands) && len(chunk) < batch; i++ {
			if loaded[i] {
				continue
			}
			if len(out) == limit {
				best := cands[i].score.Relevance
				if bonus != nil {
					best += bonus[i]
				}
				best *= maxWeight
				if worst := final(out[limit-1]); best < worst || best == worst && i > at[limit-1] {
					continue // cannot place
				}
			}
			chunk, places = append(chunk, cands[i]), append(places, i)
		}
		if len(chunk) == 0 {
			break
		}
		for _, i := range places {
			loaded[i] = true
		}
		for next < len(cands) && loaded[next] {
			next++
		}
		err := loadScored(chunk, load, id, keep, rank, func(pos int, rec T, score Score) {
			place := places[pos]
			j := sort.Search(len(out), func(j int) bool {
				f := final(out[j])
				return f < score.Final || f == score.Final && at[j] > place
			})
			if j == limit {
				return
			}
			if len(out) == limit {
				out, at = out[:limit-1], at[:limit-1]
			}
			out, at = slices.Insert(out, j, wrap(rec, score)), slices.Insert(at, j, place)
		})
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// loadScored loads the records of chunk, and passes each that keep keeps,
// with its candidate's place in chunk and its score completed by rank, to
// use, in chunk order.
func loadScored[T any](chunk []*fused, load func([]string) ([]T, error), id func(T) string,
	keep func(T) bool, rank func(T, *Score), use func(pos int, rec T, score Score)) error {
	records, err := load(lo.Map(chunk, func(f *fused, _ int) string { return f.id }))
	if err != nil {
		return err
	}
	for _, m := range matchRecords(chunk, records, id) {
		rec := records[m.record]
		if !keep(rec) {
			continue
		}
		score := chunk[m.pos].score
		rank(rec, &score)
		use(m.pos, rec, score)
	}
	return nil
}
