package memory

import (
	"context"
	"fmt"
	"slices"
	"time"
	"unicode/utf8"

	"github.com/kgmem/kgmem"
	"github.com/samber/lo"
	"golang.org/x/sync/errgroup"
)

// SearchOptions tune retrieval. Zero fields take DefaultSearchOptions.
type SearchOptions struct {
	// RRFK is the k of reciprocal rank fusion: score = Σ weight / (k + rank).
	RRFK float64
	// Candidates is how many hits each retriever contributes per requested result.
	Candidates int
	// VectorWeight and TextWeight weigh the retrievers in the fusion.
	VectorWeight, TextWeight float64
	// Timeout bounds one search end to end.
	Timeout time.Duration
	// MaxQueryBytes bounds the query text.
	MaxQueryBytes int
	// MaxLimit bounds the results per kind a client may ask for.
	MaxLimit int
}

// DefaultSearchOptions are the settings used when none are given.
func DefaultSearchOptions() SearchOptions {
	return SearchOptions{RRFK: 60, Candidates: 4, VectorWeight: 1, TextWeight: 1, Timeout: 5 * time.Second, MaxQueryBytes: 4096, MaxLimit: 100}
}

func (o SearchOptions) withDefaults() SearchOptions {
	d := DefaultSearchOptions()
	if o.RRFK <= 0 {
		o.RRFK = d.RRFK
	}
	if o.Candidates <= 0 {
		o.Candidates = d.Candidates
	}
	if o.VectorWeight <= 0 && o.TextWeight <= 0 {
		o.VectorWeight, o.TextWeight = d.VectorWeight, d.TextWeight
	}
	if o.Timeout <= 0 {
		o.Timeout = d.Timeout
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
}

// SearchResult holds the ranked results per kind and a prompt-ready context.
type SearchResult struct {
	Facts    []FactResult    `json:"facts"`
	Episodes []EpisodeResult `json:"episodes"`
	Entities []EntityResult  `json:"entities"`
	// Context is the results rendered for an LLM prompt, with dates.
	Context string `json:"context"`
	// Warnings report degraded retrieval (a retriever failed; the others answered).
	Warnings []string `json:"warnings,omitempty"`
}

// FactResult is a ranked fact.
type FactResult struct {
	FactView
	Score Score `json:"score"`
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
	// Final orders the results.
	Final float64 `json:"final"`
	// Relevance is the fused reciprocal-rank score before any weighting.
	Relevance float64 `json:"relevance"`
	// Sources lists each retriever that found the result.
	Sources []SourceScore `json:"sources"`
}

// SourceScore is one retriever's opinion of a result.
type SourceScore struct {
	// Retriever is "vector" or "bm25".
	Retriever string `json:"retriever"`
	// Rank is 1-based within that retriever's list for the result's kind.
	Rank int `json:"rank"`
	// Score is the retriever's raw score (cosine similarity, BM25).
	Score float64 `json:"score"`
}

// Retriever names.
const (
	RetrieverVector = "vector"
	RetrieverBM25   = "bm25"
)

// ValidateSearch checks a request and fills in defaults.
func (e *Engine) ValidateSearch(req *SearchRequest) error {
	switch {
	case kgmem.NormalizeName(req.Query) == "":
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
// fuses them by reciprocal rank and returns the top results per kind.
func (e *Engine) Search(ctx context.Context, req SearchRequest) (SearchResult, error) {
	if err := e.ValidateSearch(&req); err != nil {
		return SearchResult{}, err
	}
	ctx, cancel := context.WithTimeout(ctx, e.search.Timeout)
	defer cancel()

	candidates := req.Limit * e.search.Candidates
	var vectorHits, textHits []kgmem.Hit
	var vectorErr, textErr error
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() error {
		vecs, err := e.embedder.Embed(gctx, []string{req.Query})
		if err != nil {
			vectorErr = fmt.Errorf("embed query: %w", err)
			return nil
		}
		vectorHits, vectorErr = e.vectors.Search(gctx, kgmem.VectorQuery{Namespace: req.Namespace, Vector: vecs[0], Kinds: req.Include, K: candidates * len(req.Include)})
		return nil
	})
	g.Go(func() error {
		textHits, textErr = e.graph.SearchText(gctx, req.Namespace, kgmem.TextQuery{Text: req.Query, Kinds: req.Include, IncludeExpired: req.IncludeHistory, Limit: candidates * len(req.Include)})
		return nil
	})
	_ = g.Wait() // the goroutines report through vectorErr and textErr
	var res SearchResult
	if vectorErr != nil && textErr != nil {
		return SearchResult{}, fmt.Errorf("search: vector recall: %v; full-text: %w", vectorErr, textErr)
	}
	if vectorErr != nil {
		e.log.WarnContext(ctx, "vector recall failed; answering from full-text only", "namespace", req.Namespace, "error", vectorErr)
		res.Warnings = append(res.Warnings, "vector recall unavailable, results from full-text search only: "+vectorErr.Error())
	}
	if textErr != nil {
		e.log.WarnContext(ctx, "full-text search failed; answering from vector recall only", "namespace", req.Namespace, "error", textErr)
		res.Warnings = append(res.Warnings, "full-text search unavailable, results from vector recall only: "+textErr.Error())
	}

	fused := e.fuse(map[string][]kgmem.Hit{RetrieverVector: vectorHits, RetrieverBM25: textHits})
	if err := e.hydrate(ctx, req, fused, &res); err != nil {
		return SearchResult{}, err
	}
	res.Context = RenderContext(res)
	return res, nil
}

// fused is one candidate with its accumulated score.
type fused struct {
	kind  kgmem.Kind
	id    string
	score Score
}

// fuse combines the retrievers' lists by weighted reciprocal rank, per kind,
// best first. Ranks are counted within each kind so that one kind's many hits
// cannot push another's down.
func (e *Engine) fuse(lists map[string][]kgmem.Hit) map[kgmem.Kind][]*fused {
	weights := map[string]float64{RetrieverVector: e.search.VectorWeight, RetrieverBM25: e.search.TextWeight}
	byKey := map[string]*fused{}
	out := map[kgmem.Kind][]*fused{}
	for _, name := range []string{RetrieverVector, RetrieverBM25} {
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
			f.score.Relevance += weights[name] / (e.search.RRFK + float64(rank))
			f.score.Sources = append(f.score.Sources, SourceScore{Retriever: name, Rank: rank, Score: h.Score})
		}
	}
	for k := range out {
		for _, f := range out[k] {
			f.score.Final = f.score.Relevance
		}
		slices.SortStableFunc(out[k], func(a, b *fused) int {
			switch {
			case a.score.Final > b.score.Final:
				return -1
			case a.score.Final < b.score.Final:
				return 1
			}
			return 0
		})
	}
	return out
}

// hydrate loads the records behind the fused candidates, drops what the request
// excludes (history, records deleted since indexing) and keeps the top Limit.
func (e *Engine) hydrate(ctx context.Context, req SearchRequest, cands map[kgmem.Kind][]*fused, res *SearchResult) error {
	ns := req.Namespace
	var err error
	res.Facts, err = pick(cands[kgmem.KindFact], req.Limit,
		func(ids []string) ([]kgmem.Fact, error) { return e.graph.Facts(ctx, ns, ids) },
		func(f kgmem.Fact) string { return f.ID },
		func(f kgmem.Fact) bool { return req.IncludeHistory || f.ExpiredAt.IsZero() },
		func(f kgmem.Fact, s Score) FactResult { return FactResult{FactView: NewFactView(f), Score: s} })
	if err != nil {
		return fmt.Errorf("load facts: %w", err)
	}
	res.Episodes, err = pick(cands[kgmem.KindEpisode], req.Limit,
		func(ids []string) ([]kgmem.Episode, error) { return e.graph.Episodes(ctx, ns, ids) },
		func(ep kgmem.Episode) string { return ep.ID },
		func(kgmem.Episode) bool { return true },
		func(ep kgmem.Episode, s Score) EpisodeResult { return EpisodeResult{Episode: ep, Score: s} })
	if err != nil {
		return fmt.Errorf("load episodes: %w", err)
	}
	res.Entities, err = pick(cands[kgmem.KindEntity], req.Limit,
		func(ids []string) ([]kgmem.Entity, error) { return e.graph.Entities(ctx, ns, ids) },
		func(ent kgmem.Entity) string { return ent.ID },
		func(kgmem.Entity) bool { return true },
		func(ent kgmem.Entity, s Score) EntityResult { return EntityResult{Entity: ent, Score: s} })
	if err != nil {
		return fmt.Errorf("load entities: %w", err)
	}
	return nil
}

// pick loads the records of cands in one call, keeps those that pass keep, in
// fused order, and wraps at most limit of them as results.
func pick[T, R any](cands []*fused, limit int, load func([]string) ([]T, error), id func(T) string, keep func(T) bool, wrap func(T, Score) R) ([]R, error) {
	out := []R{}
	if len(cands) == 0 {
		return out, nil
	}
	records, err := load(lo.Map(cands, func(f *fused, _ int) string { return f.id }))
	if err != nil {
		return nil, err
	}
	byID := lo.KeyBy(records, id)
	for _, c := range cands {
		if rec, ok := byID[c.id]; ok && keep(rec) {
			out = append(out, wrap(rec, c.score))
			if len(out) == limit {
				break
			}
		}
	}
	return out, nil
}
