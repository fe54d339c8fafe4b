package memory

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/decay"
)

// SearchRequest is one query.
type SearchRequest struct {
	Namespace kgmem.Namespace
	Query     string
	// Limit is the number of results per kind (default 10).
	Limit int
	// Include selects the kinds returned (default: the recipe's, every kind
	// for most).
	Include []kgmem.Kind
	// Recipe names the search recipe (recipe.go; default: the namespace's,
	// else the engine's).
	Recipe string
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
	// Items are the ranked items (kgmem.Item), each with a score.
	Items []ItemResult `json:"items"`
	// Graph is the entity subgraph of the returned facts and entities.
	Graph ResultGraph `json:"graph"`
	// Context is the results rendered for an LLM prompt, with dates.
	Context string `json:"context"`
	// Warnings report degraded retrieval (a retriever failed; the others answered).
	Warnings []string `json:"warnings"`
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
	// Final orders the results: Relevance × DecayWeight × the factors of
	// Priors.
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
	// Priors lists the priors that weighed the result down (currency: not
	// true now; time: outside the time the question names; when: states no
	// time), each with its factor.
	Priors []PriorScore `json:"priors,omitempty"`
}

// SourceScore is one retriever's opinion of a result.
type SourceScore struct {
	// Retriever is "vector", "bm25", "thread", "speaker", "graph" or "rerank".
	Retriever string `json:"retriever"`
	// Rank is 1-based within that retriever's list for the result's kind.
	Rank int `json:"rank"`
	// Score is the retriever's raw score (cosine similarity, BM25).
	Score float64 `json:"score"`
	// Contribution is what this retriever added to Relevance: in the fusion
	// its weight / (rrf_k + Rank), for "speaker" its bonus. Zero for "rerank".
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
	case req.Query == "":
		return kgmem.Invalidf("query", "is empty")
	case strings.TrimSpace(req.Query) == "":
		// Well formed (the contract asks for a character, not a visible one).
		return kgmem.Unprocessablef("query", "holds only white space")
	case len(req.Query) > e.search.MaxQueryBytes:
		return kgmem.TooLong("query", req.Query, e.search.MaxQueryBytes)
	case !utf8.ValidString(req.Query):
		return kgmem.Invalidf("query", "is not valid UTF-8")
	case req.Limit < 0 || req.Limit > e.search.MaxLimit:
		return kgmem.Invalidf("limit", "is %d, must be within 1..%d", req.Limit, e.search.MaxLimit)
	}
	if req.Limit == 0 {
		req.Limit = 10
	}
	if err := ValidRecipe("recipe", req.Recipe); err != nil {
		return err
	}
	for i, k := range req.Include {
		if !k.Valid() {
			return kgmem.Invalidf(fmt.Sprintf("include[%d]", i), "is %q; use facts, episodes, entities or items", k)
		}
	}
	return nil
}

// Search answers a query through the search pipeline (pipeline.go): the
// first retrievers (vector, BM25) at once, fusion, the retrievers that start
// from the fused candidates (thread neighbours, graph expansion), fusion
// again, hydration with the priors (decay, currency, time, when) and MMR,
// the optional reranker, then provenance, the result graph and the context
// block; with Reinforce, the results are recorded as recalled.
func (e *Engine) Search(ctx context.Context, req SearchRequest) (SearchResult, error) {
	if err := e.ValidateSearch(&req); err != nil {
		return SearchResult{}, err
	}
	e.searching.Add(1)
	defer e.searching.Add(-1)
	ctx, cancel := context.WithTimeout(ctx, e.search.Timeout)
	defer cancel()
	// The namespace's settings name its recipe when the request names none,
	// and hold its decay parameters: read once for both.
	var settings kgmem.NamespaceSettings
	haveSettings := req.Recipe == "" || e.modelsFromSettings
	inline := e.busy()
	var ahead *vectorAhead
	if haveSettings {
		// Meanwhile, vector recall as the namespace most likely asks it.
		ahead = e.searchVectorsAhead(ctx, req, inline)
		defer ahead.stop()
		var err error
		if settings, err = e.graph.Settings(ctx, req.Namespace); err != nil {
			return SearchResult{}, fmt.Errorf("settings of %q: %w", req.Namespace, err)
		}
	}
	recipe, err := e.searchRecipe(req, settings)
	if err != nil {
		return SearchResult{}, err
	}
	if len(req.Include) == 0 {
		req.Include = recipe.kinds()
	}
	st := &searchState{req: req, opts: recipe.apply(e.search), query: parseQuery(req.Query), lists: map[string][]kgmem.Hit{}, inline: inline, ahead: ahead}
	plan := e.plan(req, st.opts, st.query)
	order := plan.fusionOrder()

	// First phase, all at once: its retrievers, entity linking of the query
	// (the graph retriever's seeds), the namespace's decay model and the
	// priors (the time prior may read the namespace's timeline); none needs
	// another's answer.
	first := st.fanOut()
	var (
		phaseErr          error
		modelErr, prioErr error
	)
	first.Go(func() error {
		phaseErr = e.runPhase(ctx, st, plan.phases[0], true)
		return nil
	})
	if len(plan.phases) > 1 && slices.ContainsFunc(plan.phases[1], func(r retriever) bool { return r.Name() == RetrieverGraph }) {
		first.Go(func() error {
			st.linked, st.linkErr = withDeadline(ctx, st.opts.RetrieverTimeout, func(ctx context.Context) ([]string, error) {
				return e.linkEntities(ctx, req.Namespace, req.Query)
			})
			return nil
		})
	}
	first.Go(func() error {
		if haveSettings && e.modelsFromSettings {
			st.model, modelErr = decay.NamespaceModel(req.Namespace, settings)
		} else {
			st.model, modelErr = e.models(ctx, req.Namespace)
		}
		return nil
	})
	first.Go(func() error {
		prioErr = e.buildPriors(ctx, st, plan.priors)
		return nil
	})
	_ = first.Wait() // each part reports through its own error
	switch {
	case phaseErr != nil:
		return SearchResult{}, phaseErr
	case modelErr != nil:
		return SearchResult{}, fmt.Errorf("decay parameters of %q: %w", req.Namespace, modelErr)
	}
	if prioErr != nil { // a time prior that could not date its span: rank without it
		st.res.Warnings = append(st.res.Warnings, e.degraded(ctx, req.Namespace, "time prior", prioErr))
	}
	sc, _ := e.fusing.Get().(*fuseScratch)
	if sc == nil {
		sc = &fuseScratch{}
	}
	defer e.fusing.Put(sc)
	st.cands = fuse(st.opts, order, st.lists, sc)
	if len(plan.phases) > 1 {
		// Meanwhile, the kinds the later phases do not rank are hydrated
		// from the first fusion (settledKinds).
		first := st.cands
		meanwhile := st.fanOut()
		if len(plan.settled) > 0 {
			meanwhile.Go(func() error { return e.hydrate(ctx, st, first, plan.settled) })
		}
		var laterErr error
		for _, phase := range plan.phases[1:] {
			if laterErr = e.runPhase(ctx, st, phase, false); laterErr != nil {
				break
			}
			st.cands = fuse(st.opts, order, st.lists, sc)
		}
		if err := cmp.Or(meanwhile.Wait(), laterErr); err != nil {
			return SearchResult{}, err
		}
	}
	if err := e.hydrate(ctx, st, st.cands, plan.rest); err != nil {
		return SearchResult{}, err
	}
	e.rerank(ctx, req, &st.res)
	if err := e.finish(ctx, st); err != nil {
		return SearchResult{}, err
	}
	// Kinds not asked for are empty lists, never null.
	res := &st.res
	res.Facts, res.Episodes, res.Entities, res.Items = nonNil(res.Facts), nonNil(res.Episodes), nonNil(res.Entities), nonNil(res.Items)
	res.Warnings = nonNil(res.Warnings)
	return st.res, nil
}
