package neo4j

import (
	"cmp"
	"context"
	"fmt"
	"slices"

	"github.com/kgmem/kgmem"
	"golang.org/x/sync/errgroup"
)

// defaultSearchLimit is the number of hits when TextQuery.Limit is 0.
const defaultSearchLimit = 10

// qSearch runs one full-text index; the namespace is required inside the
// Lucene query (the scope token) and checked again on the node.
const qSearch = stablePlan + `CALL db.index.fulltext.queryNodes($index, $query, {limit: $limit})
	YIELD node, score
	WHERE node.namespace = $ns
	RETURN node.id AS id, score`

// SearchText runs BM25 full-text search over fact text, episode content
// (prefixed with the speaker's name), entity names and aliases and item
// text, best first,
// one full-text query per kind, run concurrently.
// The text is split into words in Go and every word is quoted and escaped, so
// no character of it ever acts as Lucene syntax; text without words finds
// nothing.
func (s *Store) SearchText(ctx context.Context, ns kgmem.Namespace, q kgmem.TextQuery) ([]kgmem.Hit, error) {
	if err := checkNamespace(ns); err != nil {
		return nil, fmt.Errorf("neo4j: search: %w", err)
	}
	limit, err := checkLimit("limit", q.Limit, defaultSearchLimit)
	if err != nil {
		return nil, fmt.Errorf("neo4j: search: %w", err)
	}
	kinds := q.Kinds
	if len(kinds) == 0 {
		kinds = kgmem.AllKinds()
	}
	for i, k := range kinds {
		if !k.Valid() {
			return nil, fmt.Errorf("neo4j: search: %w", kgmem.Invalidf(fmt.Sprintf("kinds[%d]", i), "unknown kind %q", k))
		}
	}
	terms := queryTerms(q.Text)
	if len(terms) == 0 {
		return nil, nil
	}
	key := s.key(ns)
	// The kinds are independent full-text queries: run them at once.
	kinds = slices.Compact(slices.Sorted(slices.Values(kinds)))
	perKind := make([][]kgmem.Hit, len(kinds))
	g, gctx := errgroup.WithContext(ctx)
	for i, k := range kinds {
		index, token := ftEntity, scopeToken(key)
		switch k {
		case kgmem.KindEpisode:
			index = ftEpisode
		case kgmem.KindItem:
			index = ftItem
		case kgmem.KindFact:
			index = ftFact
			if !q.IncludeExpired {
				token = currentToken(key)
			}
		}
		g.Go(func() error {
			recs, err := s.read(gctx, qSearch, map[string]any{
				"index": index, "query": fulltextQuery(token, terms), "limit": int64(limit), "ns": key,
			})
			if err != nil {
				return fmt.Errorf("neo4j: search %s in %s: %w", k, ns, err)
			}
			for _, rec := range recs {
				id, _ := rec.Values[0].(string)
				score, _ := rec.Values[1].(float64)
				if score > 0 {
					perKind[i] = append(perKind[i], kgmem.Hit{Kind: k, ID: id, Score: score})
				}
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	hits := slices.Concat(perKind...)
	slices.SortFunc(hits, func(a, b kgmem.Hit) int {
		return cmp.Or(cmp.Compare(b.Score, a.Score), cmp.Compare(a.Kind, b.Kind), cmp.Compare(a.ID, b.ID))
	})
	if len(hits) > limit {
		hits = hits[:limit]
	}
	return hits, nil
}
