package memory

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/decay"
	"github.com/samber/lo"
	"golang.org/x/sync/errgroup"
)

// SearchOptions tune retrieval. Zero fields take DefaultSearchOptions; a
// negative weight switches its retriever off.
type SearchOptions struct {
	// RRFK is the k of reciprocal rank fusion: score = Σ weight / (k + rank).
	RRFK float64
	// Candidates is how many hits each retriever contributes per requested result.
	Candidates int
	// VectorWeight and TextWeight weigh the retrievers in the fusion.
	VectorWeight, TextWeight float64
	// ThreadWeight weighs the "thread" retriever: the episodes just before
	// and after the best episode hits in their threads (ThreadWindow places
	// on each side).
	ThreadWeight float64
	ThreadWindow int
	// SpeakerWeight weighs the "speaker" retriever: episodes said by someone
	// the query names.
	SpeakerWeight float64
	// GraphWeight weighs the "graph" retriever: facts within GraphDepth hops
	// of the entities the query names or the search found, following at most
	// GraphFanOut facts per entity.
	GraphWeight float64
	GraphDepth  int
	GraphFanOut int
	// MMRLambda trades relevance (1) against diversity (0) when choosing
	// the results of each kind by maximal marginal relevance; 1 keeps the
	// fused order.
	MMRLambda float64
	// RerankCandidates is how many facts and episodes each go to the
	// reranker, when one is configured; RerankTimeout bounds its call.
	RerankCandidates int
	RerankTimeout    time.Duration
	// Timeout bounds one search end to end.
	Timeout time.Duration
	// RetrieverTimeout bounds each retriever: one that takes longer is
	// dropped with a warning and the others answer.
	RetrieverTimeout time.Duration
	// MaxQueryBytes bounds the query text.
	MaxQueryBytes int
	// MaxLimit bounds the results per kind a client may ask for.
	MaxLimit int
}

// DefaultSearchOptions are the settings used when none are given.
func DefaultSearchOptions() SearchOptions {
	return SearchOptions{RRFK: 60, Candidates: 4, VectorWeight: 1, TextWeight: 1,
		ThreadWeight: 1, ThreadWindow: 1, SpeakerWeight: 1, GraphWeight: 1, GraphDepth: 2, GraphFanOut: 20,
		MMRLambda: 1, RerankCandidates: 20, RerankTimeout: 2 * time.Second, Timeout: 5 * time.Second, RetrieverTimeout: 2 * time.Second, MaxQueryBytes: 4096, MaxLimit: 100}
}

func (o SearchOptions) withDefaults() SearchOptions {
	d := DefaultSearchOptions()
	if o.RRFK <= 0 {
		o.RRFK = d.RRFK
	}
	if o.Candidates <= 0 {
		o.Candidates = d.Candidates
	}
	if o.VectorWeight < 0 || o.TextWeight < 0 || o.VectorWeight+o.TextWeight == 0 {
		o.VectorWeight, o.TextWeight = d.VectorWeight, d.TextWeight
	}
	weight := func(w *float64, def float64) {
		switch {
		case *w < 0:
			*w = 0
		case *w == 0:
			*w = def
		}
	}
	weight(&o.ThreadWeight, d.ThreadWeight)
	weight(&o.SpeakerWeight, d.SpeakerWeight)
	weight(&o.GraphWeight, d.GraphWeight)
	positive := func(v *int, def, most int) {
		if *v <= 0 {
			*v = def
		}
		*v = min(*v, most)
	}
	positive(&o.ThreadWindow, d.ThreadWindow, kgmem.MaxThreadWindow)
	positive(&o.GraphDepth, d.GraphDepth, 4)
	positive(&o.GraphFanOut, d.GraphFanOut, 200)
	if o.MMRLambda <= 0 || o.MMRLambda > 1 {
		o.MMRLambda = d.MMRLambda
	}
	positive(&o.RerankCandidates, d.RerankCandidates, 1000)
	if o.RerankTimeout <= 0 {
		o.RerankTimeout = d.RerankTimeout
	}
	if o.Timeout <= 0 {
		o.Timeout = d.Timeout
	}
	if o.RetrieverTimeout <= 0 || o.RetrieverTimeout > o.Timeout {
		o.RetrieverTimeout = min(d.RetrieverTimeout, o.Timeout)
	}
	if o.MaxQueryBytes <= 0 {
		o.MaxQueryBytes = d.MaxQueryBytes
	}
	if o.MaxLimit <= 0 {
		o.MaxLimit = d.MaxLimit
	}
	return o
}

// SearchRequest is one query.
type SearchRequest struct {
	Namespace kgmem.Namespace
	Query     string
	// Limit is the number of results per kind (default 10).
	Limit int
	// Include selects the kinds returned (default all).
	Include []kgmem.Kind
	// IncludeHistory also returns invalidated facts.
	IncludeHistory bool
	// IncludeForgotten also returns records the forgetting sweep has hidden.
	IncludeForgotten bool
	// AsOf, when set, answers as of that instant: only facts valid then, and
	// retention computed then. Zero means now.
	AsOf time.Time
	// Reinforce records the returned results as recalled (strengthening them).
	Reinforce bool
}

// SearchResult holds the ranked results per kind and a prompt-ready context.
type SearchResult struct {
	Facts    []FactResult    `json:"facts"`
	Episodes []EpisodeResult `json:"episodes"`
	Entities []EntityResult  `json:"entities"`
	// Graph is the entity subgraph of the returned facts and entities.
	Graph ResultGraph `json:"graph"`
	// Context is the results rendered for an LLM prompt, with dates.
	Context string `json:"context"`
	// Warnings report degraded retrieval (a retriever failed; the others answered).
	Warnings []string `json:"warnings,omitempty"`
}

// FactResult is a ranked fact.
type FactResult struct {
	FactView
	// Provenance holds the most recent episodes the fact was drawn from (at
	// most 3; the fact's episodes field lists every id).
	Provenance []kgmem.Episode `json:"provenance,omitempty"`
	Score      Score           `json:"score"`
}

// EpisodeResult is a ranked episode.
type EpisodeResult struct {
	kgmem.Episode
	Score Score `json:"score"`
}

// EntityResult is a ranked entity.
type EntityResult struct {
	kgmem.Entity
	Score Score `json:"score"`
}

// Score explains a result's rank: which retrievers found it, at which rank and
// raw score, and how that fused into the final score.
type Score struct {
	// Final orders the results: Relevance × DecayWeight.
	Final float64 `json:"final"`
	// Relevance is the fused reciprocal-rank score before any weighting, or
	// the reranker's score when a reranker ordered the results.
	Relevance float64 `json:"relevance"`
	// Retention is the forgetting-curve retention R in [0, 1] at the query instant.
	Retention float64 `json:"retention"`
	// DecayWeight is floor + (1 − floor)·R: decay reorders, never hides.
	DecayWeight float64 `json:"decay_weight"`
	// Sources lists each retriever that found the result.
	Sources []SourceScore `json:"sources"`
}

// SourceScore is one retriever's opinion of a result.
type SourceScore struct {
	// Retriever is "vector", "bm25", "thread", "speaker", "graph" or "rerank".
	Retriever string `json:"retriever"`
	// Rank is 1-based within that retriever's list for the result's kind.
	Rank int `json:"rank"`
	// Score is the retriever's raw score (cosine similarity, BM25).
	Score float64 `json:"score"`
	// Contribution is what this retriever added to Relevance in the fusion:
	// its weight / (rrf_k + Rank). Zero for "rerank".
	Contribution float64 `json:"contribution,omitzero"`
}

// Retriever names, as reported in score breakdowns.
const (
	// RetrieverVector is vector recall (cosine similarity of embeddings).
	RetrieverVector = "vector"
	// RetrieverBM25 is full-text search (BM25) over the query's keywords.
	RetrieverBM25 = "bm25"
	// RetrieverThread finds the episodes next to the best episode hits in their threads.
	RetrieverThread = "thread"
	// RetrieverSpeaker favours episodes said by someone the query names.
	RetrieverSpeaker = "speaker"
	// RetrieverGraph finds facts near the query's entities in the graph.
	RetrieverGraph = "graph"
	// RetrieverRerank is the optional reranker, which reorders the best candidates.
	RetrieverRerank = "rerank"
)

// errRerankCount reports a reranker that scored the wrong number of documents.
var errRerankCount = errors.New("reranker returned a score count unlike the documents sent")

// ValidateSearch checks a request and fills in defaults.
func (e *Engine) ValidateSearch(req *SearchRequest) error {
	switch {
	case strings.TrimSpace(req.Query) == "":
		return kgmem.Invalidf("query", "is empty")
	case len(req.Query) > e.search.MaxQueryBytes:
		return kgmem.Invalidf("query", "is %d bytes, at most %d allowed", len(req.Query), e.search.MaxQueryBytes)
	case !utf8.ValidString(req.Query):
		return kgmem.Invalidf("query", "is not valid UTF-8")
	case req.Limit < 0 || req.Limit > e.search.MaxLimit:
		return kgmem.Invalidf("limit", "is %d, must be within 1..%d", req.Limit, e.search.MaxLimit)
	}
	if req.Limit == 0 {
		req.Limit = 10
	}
	if len(req.Include) == 0 {
		req.Include = kgmem.AllKinds()
	}
	for i, k := range req.Include {
		if !k.Valid() {
			return kgmem.Invalidf(fmt.Sprintf("include[%d]", i), "is %q; use facts, episodes or entities", k)
		}
	}
	return nil
}

// Search runs vector recall and BM25 concurrently over the requested kinds,
// fuses them by reciprocal rank, adds the episodes around the best episode
// hits in their threads and the facts around the entities the query names
// (graph expansion), and returns the top results per kind.
func (e *Engine) Search(ctx context.Context, req SearchRequest) (SearchResult, error) {
	if err := e.ValidateSearch(&req); err != nil {
		return SearchResult{}, err
	}
	ctx, cancel := context.WithTimeout(ctx, e.search.Timeout)
	defer cancel()

	// First stage, all at once: the candidate retrievers, entity linking of
	// the query (the graph retriever's seeds) and the namespace's decay model
	// (for hydration); none needs another's answer.
	graphOn := slices.Contains(req.Include, kgmem.KindFact) && e.search.GraphWeight > 0
	var (
		res         SearchResult
		lists       map[string][]kgmem.Hit
		retrieveErr error
		linked      []string
		linkErr     error
		model       decay.Model
		modelErr    error
		first       errgroup.Group
	)
	first.Go(func() error {
		res, lists, retrieveErr = e.retrieve(ctx, req)
		return nil
	})
	if graphOn {
		first.Go(func() error {
			linked, linkErr = withDeadline(ctx, e.search.RetrieverTimeout, func(ctx context.Context) ([]string, error) {
				return e.linkEntities(ctx, req.Namespace, req.Query)
			})
			return nil
		})
	}
	first.Go(func() error {
		model, modelErr = e.models(ctx, req.Namespace)
		return nil
	})
	_ = first.Wait() // each part reports through its own error
	if retrieveErr != nil {
		return SearchResult{}, retrieveErr
	}
	if modelErr != nil {
		return SearchResult{}, fmt.Errorf("decay parameters of %q: %w", req.Namespace, modelErr)
	}
	cands := e.fuse(lists)
	// The thread and graph retrievers start from the fused candidates (the
	// best episodes; the best entities) and add hits of other kinds (episodes;
	// facts), so neither changes what the other starts from: they run at once.
	type second struct {
		name string
		run  func(context.Context) ([]kgmem.Hit, error)
		hits []kgmem.Hit
		err  error
	}
	var seconds []*second
	if slices.Contains(req.Include, kgmem.KindEpisode) && e.search.ThreadWeight > 0 {
		anchors := cands[kgmem.KindEpisode][:min(req.Limit, len(cands[kgmem.KindEpisode]))]
		seconds = append(seconds, &second{name: RetrieverThread, run: func(ctx context.Context) ([]kgmem.Hit, error) {
			return e.threadHits(ctx, req.Namespace, anchors)
		}})
	}
	if graphOn {
		seconds = append(seconds, &second{name: RetrieverGraph, run: func(ctx context.Context) ([]kgmem.Hit, error) {
			if linkErr != nil {
				return nil, linkErr
			}
			return e.graphHits(ctx, req, linked, cands)
		}})
	}
	var g errgroup.Group
	for _, s := range seconds {
		g.Go(func() error {
			s.hits, s.err = withDeadline(ctx, e.search.RetrieverTimeout, s.run)
			return nil
		})
	}
	_ = g.Wait() // each retriever reports through its own err
	for _, s := range seconds {
		if s.err != nil {
			res.Warnings = append(res.Warnings, e.degraded(ctx, req.Namespace, s.name, s.err))
		}
		lists[s.name] = s.hits
	}
	if len(seconds) > 0 {
		cands = e.fuse(lists)
	}
	if err := e.hydrate(ctx, req, model, cands, &res); err != nil {
		return SearchResult{}, err
	}
	e.rerank(ctx, req, &res)
	// Provenance and the result graph both start from the final facts and
	// neither changes what the other reads: they load at once.
	var (
		provenance [][]kgmem.Episode
		last       errgroup.Group
	)
	last.Go(func() (err error) {
		provenance, err = e.provenance(ctx, req.Namespace, res.Facts)
		return err
	})
	last.Go(func() (err error) {
		res.Graph, err = e.resultGraph(ctx, req, res.Facts, res.Entities)
		return err
	})
	if err := last.Wait(); err != nil {
		return SearchResult{}, err
	}
	for i := range res.Facts {
		res.Facts[i].Provenance = provenance[i]
	}
	res.Context = RenderContext(res)
	e.metrics.searches.Inc()
	if len(res.Warnings) > 0 {
		e.metrics.degraded.Inc()
	}
	if req.Reinforce {
		e.reinforce(ctx, req.Namespace, resultRefs(res))
	}
	return res, nil
}

// degraded logs a retriever that failed or ran out of time and returns the
// warning the response carries.
func (e *Engine) degraded(ctx context.Context, ns kgmem.Namespace, retriever string, err error) string {
	e.log.WarnContext(ctx, "retriever failed; answering without it", "namespace", ns, "retriever", retriever, "error", err)
	return fmt.Sprintf("%s retriever unavailable, results without it: %v", retriever, err)
}

// withDeadline runs f under the per-retriever deadline.
func withDeadline[T any](ctx context.Context, d time.Duration, f func(context.Context) (T, error)) (T, error) {
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	return f(ctx)
}

// retrieve runs vector recall and full-text search for every requested kind
// concurrently, each under the per-retriever deadline. One of them failing
// degrades the answer with a warning; both failing fails it.
func (e *Engine) retrieve(ctx context.Context, req SearchRequest) (SearchResult, map[string][]kgmem.Hit, error) {
	k := req.Limit * e.search.Candidates
	vectorHits := make([][]kgmem.Hit, len(req.Include))
	textHits := make([][]kgmem.Hit, len(req.Include))
	var mu sync.Mutex
	var vectorErr, textErr error
	fail := func(target *error, err error) {
		mu.Lock()
		defer mu.Unlock()
		if *target == nil {
			*target = err
		}
	}
	var g errgroup.Group
	g.Go(func() error {
		ctx, cancel := context.WithTimeout(ctx, e.search.RetrieverTimeout)
		defer cancel()
		vecs, err := e.embedder.Embed(ctx, []string{req.Query})
		if err != nil {
			fail(&vectorErr, fmt.Errorf("embed query: %w", err))
			return nil
		}
		if kgmem.IsZeroVector(vecs[0]) {
			return nil // nothing in the query to embed (punctuation): no vector recall, nothing failed
		}
		var inner errgroup.Group
		for i, kind := range req.Include {
			inner.Go(func() error {
				hits, err := e.vectors.Search(ctx, kgmem.VectorQuery{Namespace: req.Namespace, Vector: vecs[0], Kinds: []kgmem.Kind{kind}, K: k})
				if err != nil {
					fail(&vectorErr, err)
				}
				vectorHits[i] = hits
				return nil
			})
		}
		return inner.Wait()
	})
	text := strings.Join(keywords(req.Query), " ")
	for i, kind := range req.Include {
		g.Go(func() error {
			ctx, cancel := context.WithTimeout(ctx, e.search.RetrieverTimeout)
			defer cancel()
			hits, err := e.graph.SearchText(ctx, req.Namespace, kgmem.TextQuery{Text: text, Kinds: []kgmem.Kind{kind}, IncludeExpired: req.IncludeHistory || !req.AsOf.IsZero(), Limit: k})
			if err != nil {
				fail(&textErr, err)
			}
			textHits[i] = hits
			return nil
		})
	}
	_ = g.Wait() // the goroutines report through vectorErr and textErr
	var res SearchResult
	switch {
	case vectorErr != nil && textErr != nil:
		return res, nil, fmt.Errorf("search: vector recall: %v; full-text: %w", vectorErr, textErr)
	case vectorErr != nil:
		e.log.WarnContext(ctx, "vector recall failed; answering from full-text only", "namespace", req.Namespace, "error", vectorErr)
		res.Warnings = append(res.Warnings, "vector recall unavailable, results from full-text search only: "+vectorErr.Error())
	case textErr != nil:
		e.log.WarnContext(ctx, "full-text search failed; answering from vector recall only", "namespace", req.Namespace, "error", textErr)
		res.Warnings = append(res.Warnings, "full-text search unavailable, results from vector recall only: "+textErr.Error())
	}
	return res, map[string][]kgmem.Hit{RetrieverVector: lo.Flatten(vectorHits), RetrieverBM25: lo.Flatten(textHits)}, nil
}

// fused is one candidate with its accumulated score.
type fused struct {
	kind  kgmem.Kind
	id    string
	score Score
}

// retrievers lists every retriever in fusion order.
var retrievers = []string{RetrieverVector, RetrieverBM25, RetrieverThread, RetrieverGraph}

// weight is the fusion weight of a retriever.
func (o SearchOptions) weight(retriever string) float64 {
	switch retriever {
	case RetrieverVector:
		return o.VectorWeight
	case RetrieverBM25:
		return o.TextWeight
	case RetrieverThread:
		return o.ThreadWeight
	case RetrieverGraph:
		return o.GraphWeight
	case RetrieverSpeaker:
		return o.SpeakerWeight
	}
	return 0
}

// fuse combines the retrievers' lists by weighted reciprocal rank, per kind,
// best first. Ranks are counted within each kind so that one kind's many hits
// cannot push another's down.
func (e *Engine) fuse(lists map[string][]kgmem.Hit) map[kgmem.Kind][]*fused {
	byKey := map[string]*fused{}
	out := map[kgmem.Kind][]*fused{}
	for _, name := range retrievers {
		rankInKind := map[kgmem.Kind]int{}
		for _, h := range lists[name] {
			rankInKind[h.Kind]++
			rank := rankInKind[h.Kind]
			key := string(h.Kind) + "\x00" + h.ID
			f, ok := byKey[key]
			if !ok {
				f = &fused{kind: h.Kind, id: h.ID}
				byKey[key] = f
				out[h.Kind] = append(out[h.Kind], f)
			}
			share := e.search.weight(name) / (e.search.RRFK + float64(rank))
			f.score.Relevance += share
			f.score.Sources = append(f.score.Sources, SourceScore{Retriever: name, Rank: rank, Score: h.Score, Contribution: share})
		}
	}
	for k := range out {
		slices.SortStableFunc(out[k], func(a, b *fused) int { return cmp.Compare(b.score.Relevance, a.score.Relevance) })
	}
	return out
}

// hydrate loads the records behind the fused candidates, drops what the request
// excludes (history, forgotten, not valid at AsOf, deleted since indexing),
// weights each by its forgetting-curve retention and keeps the top Limit.
func (e *Engine) hydrate(ctx context.Context, req SearchRequest, model decay.Model, cands map[kgmem.Kind][]*fused, res *SearchResult) error {
	ns := req.Namespace
	at := req.AsOf
	if at.IsZero() {
		at = e.now()
	}
	weigh := func(state kgmem.DecayState, importance int) ranker {
		return func(s *Score) {
			s.Retention = model.Retention(state, importance, at)
			s.DecayWeight = model.Weight(s.Retention)
			s.Final = s.Relevance * s.DecayWeight
		}
	}
	named := wordSet(req.Query)
	depth := req.Limit // results kept per kind; more when a reranker will choose
	if e.reranker != nil {
		depth = max(depth, e.search.RerankCandidates)
	}
	visible := func(state kgmem.DecayState) bool { return req.IncludeForgotten || !state.Forgotten() }
	// The bounds pick stops loading by: decay weights are linear in
	// retention, and the speaker retriever adds to an episode's relevance.
	maxWeight := max(model.Weight(0), model.Weight(1))
	speakerBonus := 0.0
	if e.search.SpeakerWeight > 0 {
		speakerBonus = e.search.SpeakerWeight / (e.search.RRFK + 1)
	}
	// The three kinds load at once; each writes only its own field.
	var g errgroup.Group
	g.Go(func() (err error) {
		res.Facts, err = pick(cands[kgmem.KindFact], depth,
			func(ids []string) ([]kgmem.Fact, error) { return e.graph.Facts(ctx, ns, ids) },
			func(f kgmem.Fact) string { return f.ID },
			func(f kgmem.Fact) bool { return visible(f.Decay) && inView(req, f) },
			func(f kgmem.Fact) ranker { return weigh(f.Decay, f.Importance) },
			func(f kgmem.Fact, s Score) FactResult { return FactResult{FactView: NewFactView(f), Score: s} },
			func(r FactResult) float64 { return r.Score.Final },
			e.search.MMRLambda, func(r FactResult) string { return r.Text }, 0, maxWeight)
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
			func(ep kgmem.Episode) ranker {
				w := weigh(ep.Decay, 0)
				if e.search.SpeakerWeight == 0 || !speakerNamed(ep.Name, named) {
					return w
				}
				return func(s *Score) {
					s.Relevance += speakerBonus
					s.Sources = append(slices.Clip(s.Sources), SourceScore{Retriever: RetrieverSpeaker, Rank: 1, Score: 1})
					w(s)
				}
			},
			func(ep kgmem.Episode, s Score) EpisodeResult { return EpisodeResult{Episode: ep, Score: s} },
			func(r EpisodeResult) float64 { return r.Score.Final },
			e.search.MMRLambda, func(r EpisodeResult) string { return r.Content }, speakerBonus, maxWeight)
		if err != nil {
			return fmt.Errorf("load episodes: %w", err)
		}
		return nil
	})
	g.Go(func() (err error) {
		res.Entities, err = pick(cands[kgmem.KindEntity], depth,
			func(ids []string) ([]kgmem.Entity, error) { return e.graph.Entities(ctx, ns, ids) },
			func(ent kgmem.Entity) string { return ent.ID },
			func(ent kgmem.Entity) bool { return visible(ent.Decay) },
			func(ent kgmem.Entity) ranker { return weigh(ent.Decay, 0) },
			func(ent kgmem.Entity, s Score) EntityResult { return EntityResult{Entity: ent, Score: s} },
			func(r EntityResult) float64 { return r.Score.Final },
			e.search.MMRLambda, func(r EntityResult) string { return r.Name }, 0, maxWeight)
		if err != nil {
			return fmt.Errorf("load entities: %w", err)
		}
		return nil
	})
	return g.Wait()
}

// ranker completes a Score from the fused relevance (decay weighting).
type ranker func(*Score)

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
	keep func(T) bool, rank func(T) ranker, wrap func(T, Score) R, final func(R) float64,
	lambda float64, text func(R) string, bonus, maxWeight float64) ([]R, error) {
	out := []R{}
	batch := len(cands)
	if lambda >= 1 {
		batch = max(1, firstLoad*limit)
	}
	for start := 0; start < len(cands); {
		if lambda >= 1 && len(out) >= limit {
			slices.SortStableFunc(out, func(a, b R) int { return cmp.Compare(final(b), final(a)) })
			if (cands[start].score.Relevance+bonus)*maxWeight <= final(out[limit-1]) {
				break // no unloaded candidate can place
			}
		}
		chunk := cands[start:min(start+batch, len(cands))]
		records, err := load(lo.Map(chunk, func(f *fused, _ int) string { return f.id }))
		if err != nil {
			return nil, err
		}
		byID := lo.KeyBy(records, id)
		for _, c := range chunk {
			if rec, ok := byID[c.id]; ok && keep(rec) {
				score := c.score
				rank(rec)(&score)
				out = append(out, wrap(rec, score))
			}
		}
		start += len(chunk)
		batch *= 2
	}
	slices.SortStableFunc(out, func(a, b R) int { return cmp.Compare(final(b), final(a)) })
	return diversify(out, limit, lambda, text, final), nil
}

// resultRefs names every returned record, for reinforcement.
func resultRefs(res SearchResult) []decay.Ref {
	refs := make([]decay.Ref, 0, len(res.Facts)+len(res.Episodes)+len(res.Entities))
	for _, f := range res.Facts {
		refs = append(refs, decay.Ref{Kind: kgmem.KindFact, ID: f.ID})
	}
	for _, ep := range res.Episodes {
		refs = append(refs, decay.Ref{Kind: kgmem.KindEpisode, ID: ep.ID})
	}
	for _, ent := range res.Entities {
		refs = append(refs, decay.Ref{Kind: kgmem.KindEntity, ID: ent.ID})
	}
	return refs
}
