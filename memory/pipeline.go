package memory

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/decay"
	"github.com/samber/lo"
)

// The search pipeline, in one place:
//
//	settings  the namespace's recipe and decay model; meanwhile vector
//	          recall as the recipe most likely asks it (vectorAhead)
//	parse     keywords, named words, time expression, tense, "when"
//	retrieve  vector | bm25                (at once; with entity linking and the decay model)
//	fuse      weighted reciprocal rank fusion, per kind
//	retrieve  thread | graph               (from the fused candidates, at once;
//	          meanwhile hydrate the kinds they do not rank: settledKinds)
//	fuse      again, over all lists
//	hydrate   load records, keep the request's view; speaker bonus; priors:
//	          decay (retention), currency, time, when; MMR
//	rerank    the configured reranker, if any
//	finish    provenance + result graph, context block, reinforcement
//
// Each retriever implements retriever (retriever.go); each prior implements
// prior (priors.go). The constants are SearchOptions; which stages run for a
// request is plan's answer, which a test pins (TestPlan).

// searchState carries one search through the stages.
type searchState struct {
	req  SearchRequest
	opts SearchOptions
	// query is the parsed question.
	query parsedQuery
	// model is the namespace's forgetting curve.
	model decay.Model
	// named is the world-time window the question names, as the time prior
	// holds facts to it (nil: none, or one that could not be placed); facts
	// true then are in view though superseded since (inView).
	named *timeWindow
	// linked are the entities the query names (the graph retriever's seeds).
	linked  []string
	linkErr error
	// lists holds each retriever's ranked hits; cands their fusion.
	lists map[string][]kgmem.Hit
	cands map[kgmem.Kind][]*fused
	// priors weigh the loaded results (besides decay).
	priors []prior
	res    SearchResult
	// inline says the stages' parts run one after another (fanOut).
	inline bool
	// ahead is the vector recall started before the settings were read
	// (nil: none).
	ahead *vectorAhead
}

// parsedQuery is the question read once for every stage.
type parsedQuery struct {
	// keywords are the content words (BM25's query; graph path matching).
	keywords []string
	// words is the set of the query's words (speaker linking).
	words map[string]bool
	// time is what the question says about time.
	time queryTime
}

// parseQuery reads a query.
func parseQuery(q string) parsedQuery {
	return parsedQuery{keywords: keywords(q), words: wordSet(q), time: parseQueryTime(q)}
}

// searchPlan is the declared pipeline of one request: the retrievers of each
// phase (a phase runs at once and is fused before the next) and the priors.
type searchPlan struct {
	phases [][]retriever
	// priors are built per request (they need its clock and time window),
	// so the plan names them; buildPriors makes them.
	priors []string
	// mmr is true when results are diversified (MMRLambda < 1).
	mmr bool
	// rerank is true when a reranker reorders the results.
	rerank bool
	// settled are the requested kinds hydrated while the later phases run
	// (no retriever of theirs ranks them); rest those hydrated after them.
	settled, rest []kgmem.Kind
}

// plan declares the pipeline for a request: retrievers whose weight is 0 or
// whose kinds were not asked for are left out, and the priors the question
// calls for are named: currency for a question about the present (no past
// tense, no time named, no "when", no as_of, history not asked for: with
// include_history the caller wants history ranked by relevance alone), time
// for a question that names a time, when for a "when…?" question.
func (e *Engine) plan(req SearchRequest, opts SearchOptions, q parsedQuery) searchPlan {
	has := func(k kgmem.Kind) bool {
		for _, x := range req.Include {
			if x == k {
				return true
			}
		}
		return false
	}
	var first, second []retriever
	if opts.VectorWeight > 0 {
		first = append(first, vectorRetriever{e})
	}
	if opts.TextWeight > 0 {
		first = append(first, textRetriever{e})
	}
	if has(kgmem.KindEpisode) && opts.ThreadWeight > 0 {
		second = append(second, threadRetriever{e})
	}
	if has(kgmem.KindFact) && opts.GraphWeight > 0 {
		second = append(second, graphRetriever{e})
	}
	p := searchPlan{phases: [][]retriever{first}, mmr: opts.MMRLambda < 1, rerank: e.reranker != nil, rest: req.Include}
	if len(second) > 0 {
		p.phases = append(p.phases, second)
		p.settled, p.rest = p.settledKinds(req.Include)
	}
	qt := q.time
	if opts.CurrencyFactor < 1 && req.AsOf.IsZero() && !req.IncludeHistory && qt.expr == nil && !qt.past && !qt.when {
		p.priors = append(p.priors, PriorCurrency)
	}
	if opts.TimeFactor < 1 && qt.expr != nil {
		p.priors = append(p.priors, PriorTime)
	}
	if opts.WhenFactor < 1 && qt.when {
		p.priors = append(p.priors, PriorWhen)
	}
	return p
}

// settledKinds splits include into the kinds no retriever after the first
// phase ranks (settled: their fused candidates are final after the first
// fusion, so they are hydrated while the later phases run) and the others
// (rest). The graph retriever walks on one core; hydrating entities
// meanwhile uses the other.
func (p searchPlan) settledKinds(include []kgmem.Kind) (settled, rest []kgmem.Kind) {
	for _, k := range include {
		later := slices.ContainsFunc(p.phases[1:], func(phase []retriever) bool {
			return slices.ContainsFunc(phase, func(r retriever) bool { return r.Ranks(k) })
		})
		if later {
			rest = append(rest, k)
		} else {
			settled = append(settled, k)
		}
	}
	return settled, rest
}

// stageNames lists the plan's stages in order, as TestPlan pins them.
func (p searchPlan) stageNames() []string {
	var out []string
	kinds := func(ks []kgmem.Kind) string {
		return strings.Join(lo.Map(ks, func(k kgmem.Kind, _ int) string { return string(k) }), "|")
	}
	for i, phase := range p.phases {
		names := ""
		for i, r := range phase {
			if i > 0 {
				names += "|"
			}
			names += r.Name()
		}
		if i > 0 && len(p.settled) > 0 {
			names += " & hydrate:" + kinds(p.settled)
		}
		out = append(out, "retrieve:"+names, "fuse")
	}
	out = append(out, "hydrate:"+kinds(p.rest))
	for _, pr := range p.priors {
		out = append(out, "prior:"+pr)
	}
	if p.mmr {
		out = append(out, "mmr")
	}
	if p.rerank {
		out = append(out, "rerank")
	}
	return append(out, "provenance", "context")
}

// buildPriors makes the plan's priors for one search. The time prior needs
// the reference instant of relative expressions: as_of when given, else the
// namespace's timeline end, else now.
func (e *Engine) buildPriors(ctx context.Context, st *searchState, names []string) error {
	for _, name := range names {
		switch name {
		case PriorCurrency:
			st.priors = append(st.priors, currencyPrior{at: e.now(), factor: st.opts.CurrencyFactor})
		case PriorTime:
			if expr := st.query.time.expr; expr.event != nil {
				at, ok, err := e.eventTime(ctx, st.req.Namespace, expr.event, st.req.AsOf)
				if err != nil {
					return err
				}
				if ok {
					// Messages: anything before (after) the event. Facts: the
					// state that held just before (after) it ("where did Kim
					// live before she moved to Rome?" is the city she left).
					w, just := timeWindow{To: at}, timeWindow{From: at.Add(-time.Second), To: at}
					if expr.after {
						w, just = timeWindow{From: at}, timeWindow{From: at, To: at.Add(time.Second)}
					}
					st.priors = append(st.priors, timePrior{window: w, facts: just, factor: st.opts.TimeFactor})
					st.named = &just
				}
				continue
			}
			ref := st.req.AsOf
			if ref.IsZero() && st.query.time.expr.relative {
				end, err := e.timelineEnd(ctx, st.req.Namespace)
				if err != nil {
					return err
				}
				ref = end
			}
			if ref.IsZero() {
				ref = e.now()
			}
			w := st.query.time.expr.resolve(ref)
			st.priors = append(st.priors, timePrior{window: w, factor: st.opts.TimeFactor})
			st.named = &w
		case PriorWhen:
			st.priors = append(st.priors, whenPrior{factor: st.opts.WhenFactor})
		}
	}
	return nil
}

// runPhase runs a phase's retrievers at once, each under the per-retriever
// deadline. A failing retriever degrades the answer with a warning; when
// every retriever of the first phase fails, the search fails.
func (e *Engine) runPhase(ctx context.Context, st *searchState, phase []retriever, first bool) error {
	hits := make([][]kgmem.Hit, len(phase))
	errs := make([]error, len(phase))
	g := st.fanOut()
	for i, r := range phase {
		g.Go(func() error {
			hits[i], errs[i] = withDeadline(ctx, st.opts.RetrieverTimeout, func(ctx context.Context) ([]kgmem.Hit, error) {
				return r.Retrieve(ctx, st)
			})
			return nil
		})
	}
	_ = g.Wait() // each retriever reports through errs
	failed := 0
	for i, r := range phase {
		if errs[i] != nil {
			failed++
			continue
		}
		st.lists[r.Name()] = hits[i]
	}
	if first && failed == len(phase) && failed > 0 {
		return fmt.Errorf("search: %w", joinRetrieverErrors(phase, errs))
	}
	for i, r := range phase {
		if errs[i] != nil {
			st.res.Warnings = append(st.res.Warnings, e.degraded(ctx, st.req.Namespace, r.Name(), errs[i]))
		}
	}
	return nil
}

// joinRetrieverErrors names each failed retriever's error.
func joinRetrieverErrors(phase []retriever, errs []error) error {
	var err error
	for i, r := range phase {
		if errs[i] != nil {
			if err == nil {
				err = fmt.Errorf("%s: %w", retrieverLabel(r.Name()), errs[i])
			} else {
				err = fmt.Errorf("%s: %v; %w", retrieverLabel(r.Name()), errs[i], err)
			}
		}
	}
	return err
}

// retrieverLabel is how warnings name a retriever (or a prior).
func retrieverLabel(name string) string {
	switch name {
	case RetrieverVector:
		return "vector recall"
	case RetrieverBM25:
		return "full-text search"
	case "time prior":
		return name
	}
	return name + " retriever"
}

// degraded logs a retriever that failed or ran out of time and returns the
// warning the response carries.
func (e *Engine) degraded(ctx context.Context, ns kgmem.Namespace, retriever string, err error) string {
	e.log.WarnContext(ctx, "retriever failed; answering without it", "namespace", ns, "retriever", retriever, "error", err)
	return fmt.Sprintf("%s unavailable, results without it: %v", retrieverLabel(retriever), err)
}

// withDeadline runs f under the per-retriever deadline.
func withDeadline[T any](ctx context.Context, d time.Duration, f func(context.Context) (T, error)) (T, error) {
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	return f(ctx)
}

// fusionOrder is the order the plan's retrievers are fused in.
func (p searchPlan) fusionOrder() []string {
	var out []string
	for _, phase := range p.phases {
		for _, r := range phase {
			out = append(out, r.Name())
		}
	}
	return out
}
