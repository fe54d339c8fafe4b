package memory

import (
	"cmp"
	"context"
	"slices"
)

// rerank reorders the returned facts and episodes by the configured
// reranker's scores, in one call for both kinds under RerankTimeout, and
// keeps the first req.Limit of each. A result's Relevance becomes the
// reranker's score (its fused score stays in the breakdown as the other
// sources) and Final is that times DecayWeight and the priors' factors. When the reranker fails or
// is late, the fused order stands and the response carries a warning.
func (e *Engine) rerank(ctx context.Context, req SearchRequest, res *SearchResult) {
	defer func() {
		res.Facts = res.Facts[:min(req.Limit, len(res.Facts))]
		res.Episodes = res.Episodes[:min(req.Limit, len(res.Episodes))]
		res.Entities = res.Entities[:min(req.Limit, len(res.Entities))]
	}()
	if e.reranker == nil || len(res.Facts)+len(res.Episodes) == 0 {
		return
	}
	docs := make([]string, 0, len(res.Facts)+len(res.Episodes))
	for _, f := range res.Facts {
		docs = append(docs, f.Text)
	}
	for _, ep := range res.Episodes {
		docs = append(docs, EpisodeText(ep.Episode))
	}
	scores, err := withDeadline(ctx, e.search.RerankTimeout, func(ctx context.Context) ([]float64, error) {
		return e.reranker.Rerank(ctx, req.Query, docs)
	})
	if err == nil && len(scores) != len(docs) {
		err = errRerankCount
	}
	if err != nil {
		res.Warnings = append(res.Warnings, e.degraded(ctx, req.Namespace, RetrieverRerank, err))
		return
	}
	apply := func(s *Score, raw float64) {
		s.Relevance = raw
		s.Final = raw * s.DecayWeight * s.priorFactor()
	}
	for i := range res.Facts {
		apply(&res.Facts[i].Score, scores[i])
	}
	for i := range res.Episodes {
		apply(&res.Episodes[i].Score, scores[len(res.Facts)+i])
	}
	slices.SortStableFunc(res.Facts, func(a, b FactResult) int { return cmp.Compare(b.Score.Final, a.Score.Final) })
	slices.SortStableFunc(res.Episodes, func(a, b EpisodeResult) int { return cmp.Compare(b.Score.Final, a.Score.Final) })
	for i := range res.Facts {
		s := &res.Facts[i].Score
		s.Sources = append(slices.Clip(s.Sources), SourceScore{Retriever: RetrieverRerank, Rank: i + 1, Score: s.Relevance})
	}
	for i := range res.Episodes {
		s := &res.Episodes[i].Score
		s.Sources = append(slices.Clip(s.Sources), SourceScore{Retriever: RetrieverRerank, Rank: i + 1, Score: s.Relevance})
	}
}
