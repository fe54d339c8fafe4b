package memory

import (
	"context"
	"fmt"
	"strings"

	"github.com/kgmem/kgmem"
	"github.com/samber/lo"
)

// A retriever is one source of candidates: it ranks records of the
// requested kinds for a search, best first. Retrievers of one phase of the
// pipeline run at once, each under the per-retriever deadline; those of the
// second phase read the candidates fused from the first (searchState.cands).
type retriever interface {
	// Name is the retriever's name in score breakdowns (RetrieverVector…).
	Name() string
	// Retrieve returns the retriever's ranked hits.
	Retrieve(ctx context.Context, st *searchState) ([]kgmem.Hit, error)
	// Ranks reports whether the retriever's hits can be records of kind k.
	Ranks(k kgmem.Kind) bool
}

// vectorRetriever is vector recall: the query's embedding against the
// namespace's vectors of each requested kind.
type vectorRetriever struct{ e *Engine }

// Name implements retriever.
func (vectorRetriever) Name() string { return RetrieverVector }

// Ranks implements retriever.
func (vectorRetriever) Ranks(kgmem.Kind) bool { return true }

// Retrieve embeds the query once and searches every requested kind at once,
// or takes the answer of the same search started before the namespace's
// settings were read (vectorAhead).
func (r vectorRetriever) Retrieve(ctx context.Context, st *searchState) ([]kgmem.Hit, error) {
	k := st.req.Limit * st.opts.Candidates
	if hits, ok, err := st.ahead.answer(ctx, st.req.Include, k); ok {
		return hits, err
	}
	return r.e.searchVectors(ctx, st.inline, st.req.Namespace, st.req.Query, st.req.Include, k)
}

// searchVectors embeds query and searches the k nearest vectors of each
// kind of include in ns (perKind). A query with nothing to embed
// (punctuation only) gives no hits and no error.
func (e *Engine) searchVectors(ctx context.Context, inline bool, ns kgmem.Namespace, query string, include []kgmem.Kind, k int) ([]kgmem.Hit, error) {
	vecs, err := e.embedder.Embed(ctx, []string{query})
	if err != nil {
		return nil, fmt.Errorf("embed query: %w", err)
	}
	if kgmem.IsZeroVector(vecs[0]) {
		return nil, nil
	}
	return e.perKind(inline, include, func(kinds []kgmem.Kind) ([]kgmem.Hit, error) {
		return e.vectors.Search(ctx, kgmem.VectorQuery{Namespace: ns, Vector: vecs[0], Kinds: kinds, K: k, KEach: true})
	})
}

// perKind gathers the hits of every kind of kinds from search: from a
// remote store in one call with them all (one round trip instead of one per
// kind), from stores in this process (InlineWhenBusy) with a call per kind
// through fanOut, at once on idle cores and one after another on busy ones.
func (e *Engine) perKind(inline bool, kinds []kgmem.Kind, search func([]kgmem.Kind) ([]kgmem.Hit, error)) ([]kgmem.Hit, error) {
	if !e.inlineWhenBusy {
		return search(kinds)
	}
	found := make([][]kgmem.Hit, len(kinds))
	g := &fanOut{inline: inline}
	for i, kind := range kinds {
		g.Go(func() error {
			hits, err := search([]kgmem.Kind{kind})
			found[i] = hits
			return err
		})
	}
	err := g.Wait()
	return lo.Flatten(found), err
}

// textRetriever is full-text search (BM25) over the query's keywords, per
// requested kind.
type textRetriever struct{ e *Engine }

// Name implements retriever.
func (textRetriever) Name() string { return RetrieverBM25 }

// Ranks implements retriever.
func (textRetriever) Ranks(kgmem.Kind) bool { return true }

// Retrieve searches the best candidates of every requested kind (perKind);
// with history or as_of asked for, invalidated facts are searched too (the
// view drops what does not belong to it later).
func (r textRetriever) Retrieve(ctx context.Context, st *searchState) ([]kgmem.Hit, error) {
	q := kgmem.TextQuery{Text: strings.Join(st.query.keywords, " "), LimitEach: true,
		IncludeExpired: st.req.IncludeHistory || !st.req.AsOf.IsZero() || st.query.time.expr != nil, Limit: st.req.Limit * st.opts.Candidates}
	return r.e.perKind(st.inline, st.req.Include, func(kinds []kgmem.Kind) ([]kgmem.Hit, error) {
		q := q
		q.Kinds = kinds
		return r.e.graph.SearchText(ctx, st.req.Namespace, q)
	})
}

// threadRetriever ranks the episodes next to the best fused episode
// candidates in their threads (neighbors.go).
type threadRetriever struct{ e *Engine }

// Name implements retriever.
func (threadRetriever) Name() string { return RetrieverThread }

// Ranks implements retriever.
func (threadRetriever) Ranks(k kgmem.Kind) bool { return k == kgmem.KindEpisode }

// Retrieve starts from the first Limit fused episode candidates.
func (r threadRetriever) Retrieve(ctx context.Context, st *searchState) ([]kgmem.Hit, error) {
	eps := st.cands[kgmem.KindEpisode]
	return r.e.threadHits(ctx, st.req.Namespace, st.opts, eps[:min(st.req.Limit, len(eps))])
}

// graphRetriever ranks the facts near the entities the query names or the
// search found (expand.go).
type graphRetriever struct{ e *Engine }

// Name implements retriever.
func (graphRetriever) Name() string { return RetrieverGraph }

// Ranks implements retriever.
func (graphRetriever) Ranks(k kgmem.Kind) bool { return k == kgmem.KindFact }

// Retrieve walks from the linked entities and the best entity candidates.
func (r graphRetriever) Retrieve(ctx context.Context, st *searchState) ([]kgmem.Hit, error) {
	if st.linkErr != nil {
		return nil, st.linkErr
	}
	return r.e.graphHits(ctx, st, st.linked, st.cands)
}
