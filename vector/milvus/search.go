package milvus

import (
	"context"
	"fmt"
	"slices"

	"github.com/milvus-io/milvus-sdk-go/v2/client"
	"github.com/milvus-io/milvus-sdk-go/v2/entity"
	"golang.org/x/sync/errgroup"

	"github.com/kgmem/kgmem"
)

// countField is Milvus's aggregate output field for a count query.
const countField = "count(*)"

// Search returns the q.K records of q.Namespace (and q.Kinds, when given)
// nearest to q.Vector, best first, scored by cosine similarity; with
// q.KEach, the q.K nearest of each kind. A small enough set is read in one
// query and ranked here (exactSearch), whatever the kinds; a larger one is
// searched by Milvus, one search per kind with q.KEach.
func (ix *Index) Search(ctx context.Context, q kgmem.VectorQuery) ([]kgmem.Hit, error) {
	if err := kgmem.CheckVectorQuery(q, ix.cfg.Dim, maxTopK); err != nil {
		return nil, fmt.Errorf("milvus search: %w", err)
	}
	kinds := dedupKinds(q.Kinds)
	expr := namespaceExpr(q.Namespace, kinds)
	if ix.cfg.ExactBelow > 0 {
		hits, ok, err := ix.exactSearch(ctx, expr, kinds, q)
		if err != nil || ok {
			return hits, err
		}
	}
	if q.KEach && len(kinds) != 1 {
		return ix.searchEach(ctx, q, kinds)
	}
	level, recent, k := ix.annReadOptions(q.Namespace, kinds, q.K)
	sp := ix.search
	if k > ix.cfg.Ef {
		// HNSW needs ef >= k to return k results.
		p, err := entity.NewIndexHNSWSearchParam(k)
		if err != nil {
			return nil, fmt.Errorf("milvus search: %w", kgmem.Invalidf("k", "%v", err))
		}
		sp = p
	}
	res, err := ix.cl.Search(ctx, ix.cfg.Collection, nil, expr,
		[]string{fieldKind}, []entity.Vector{entity.FloatVector(q.Vector)}, fieldVector,
		entity.COSINE, k, sp, level...)
	if err != nil {
		return nil, wrap("search", err)
	}
	var found []kgmem.Hit
	if len(res) > 0 {
		if found, err = hits(res[0]); err != nil {
			return nil, err
		}
	}
	return layOver(found, recent, q.Vector, q.K, false), nil
}

// maxOverlaid bounds the recent writes a search that Milvus ranks lays over
// its answer; with more, it reads with its session timestamp instead.
const maxOverlaid = 1024

// annReadOptions are the consistency options of a search Milvus ranks, the
// recent writes to lay over its answer and how many hits to ask for: as
// rankedReadOptions, asking for k more than q.K for each recent write,
// since each may replace one of the hits (the hit's stored vector is older
// than its write).
func (ix *Index) annReadOptions(ns kgmem.Namespace, kinds []kgmem.Kind, k int) ([]client.SearchQueryOptionFunc, map[string]recentRecord, int) {
	level, recent := ix.rankedReadOptions(ns, kinds)
	if len(recent) > maxOverlaid || k+len(recent) > maxTopK {
		return ix.readOptions(ns), nil, k
	}
	return level, recent, k + len(recent)
}

// layOver returns the k best of found (with each, of each kind), hits
// ranked from what Milvus returned, with recent laid over them: a hit of a
// recent write is scored again from the vector written, and every recent
// write is scored against query.
func layOver(found []kgmem.Hit, recent map[string]recentRecord, query []float32, k int, each bool) []kgmem.Hit {
	out := make([]kgmem.Hit, 0, len(found)+len(recent))
	for _, h := range found {
		if _, rewritten := recent[h.ID]; !rewritten {
			out = append(out, h)
		}
	}
	qn := norm(query)
	for id, rec := range recent {
		if score, ok := cosine(query, qn, rec.vector); ok {
			out = append(out, kgmem.Hit{Kind: rec.kind, ID: id, Score: score})
		}
	}
	slices.SortFunc(out, bestFirst)
	return topK(out, k, each)
}

// searchEach answers a KEach query of several kinds that is too large to
// rank here: one Milvus search per kind, at once.
func (ix *Index) searchEach(ctx context.Context, q kgmem.VectorQuery, kinds []kgmem.Kind) ([]kgmem.Hit, error) {
	if len(kinds) == 0 {
		kinds = kgmem.AllKinds()
	}
	perKind := make([][]kgmem.Hit, len(kinds))
	g, gctx := errgroup.WithContext(ctx)
	for i, k := range kinds {
		g.Go(func() error {
			one := q
			one.Kinds, one.KEach = []kgmem.Kind{k}, false
			hits, err := ix.Search(gctx, one)
			perKind[i] = hits
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	hits := slices.Concat(perKind...)
	slices.SortFunc(hits, bestFirst)
	return hits, nil
}

// dedupKinds returns kinds without repeats, in their first order.
func dedupKinds(kinds []kgmem.Kind) []kgmem.Kind {
	seen := map[kgmem.Kind]bool{}
	out := kinds[:0:0]
	for _, k := range kinds {
		if !seen[k] {
			seen[k] = true
			out = append(out, k)
		}
	}
	return out
}

// hits converts one search result into kgmem hits.
func hits(r client.SearchResult) ([]kgmem.Hit, error) {
	if r.Err != nil {
		return nil, wrap("search", r.Err)
	}
	ids, ok := r.IDs.(*entity.ColumnVarChar)
	if !ok && r.ResultCount > 0 {
		return nil, fmt.Errorf("milvus search: id column is %T, want VarChar", r.IDs)
	}
	kinds, ok := r.Fields.GetColumn(fieldKind).(*entity.ColumnVarChar)
	if !ok && r.ResultCount > 0 {
		return nil, fmt.Errorf("milvus search: kind column missing from result")
	}
	out := make([]kgmem.Hit, 0, r.ResultCount)
	for i := 0; i < r.ResultCount; i++ {
		id, err := ids.ValueByIdx(i)
		if err != nil {
			return nil, fmt.Errorf("milvus search: result %d id: %w", i, err)
		}
		kind, err := kinds.ValueByIdx(i)
		if err != nil {
			return nil, fmt.Errorf("milvus search: result %d kind: %w", i, err)
		}
		out = append(out, kgmem.Hit{Kind: kgmem.Kind(kind), ID: id, Score: float64(r.Scores[i])})
	}
	return out, nil
}

// Count returns how many records ns holds, of kind k (empty: all kinds).
func (ix *Index) Count(ctx context.Context, ns kgmem.Namespace, k kgmem.Kind) (int, error) {
	if err := checkNamespace("namespace", ns); err != nil {
		return 0, fmt.Errorf("milvus count: %w", err)
	}
	var kinds []kgmem.Kind
	if k != "" {
		if err := checkKind("kind", k); err != nil {
			return 0, fmt.Errorf("milvus count: %w", err)
		}
		kinds = []kgmem.Kind{k}
	}
	n, err := ix.count(ctx, namespaceExpr(ns, kinds), ix.readOptions(ns))
	if err != nil {
		return 0, err
	}
	return n, nil
}

// count returns how many records match expr, read with the consistency options level.
func (ix *Index) count(ctx context.Context, expr string, level []client.SearchQueryOptionFunc) (int, error) {
	rs, err := ix.cl.Query(ctx, ix.cfg.Collection, nil, expr, []string{countField}, level...)
	if err != nil {
		return 0, wrap("count", err)
	}
	col, ok := rs.GetColumn(countField).(*entity.ColumnInt64)
	if !ok || col.Len() != 1 {
		return 0, fmt.Errorf("milvus count: unexpected %s result %v", countField, rs.GetColumn(countField))
	}
	n, err := col.ValueByIdx(0)
	if err != nil {
		return 0, fmt.Errorf("milvus count: %w", err)
	}
	return int(n), nil
}
