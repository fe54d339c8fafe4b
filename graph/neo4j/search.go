package neo4j

import (
	"cmp"
	"context"
	"fmt"
	"slices"

	"github.com/kgmem/kgmem"
)

// defaultSearchLimit is the number of hits when TextQuery.Limit is 0.
const defaultSearchLimit = 10

// qSearch runs one full-text query per row of $searches (its index, its
// Lucene query and the kind it finds), all in one transaction; the
// namespace is required inside each Lucene query (the scope token) and
// checked again on the node.
const qSearch = stablePlan + `UNWIND $searches AS s
	CALL (s) {
		CALL db.index.fulltext.queryNodes(s.index, s.query, {limit: $limit})
		YIELD node, score
		WHERE node.namespace = $ns
		RETURN node.id AS id, score
	}
	RETURN s.kind AS kind, id, score`

// SearchText runs BM25 full-text search over fact text, episode content
// (prefixed with the speaker's name), entity names and aliases and item
// text, best first: one full-text query per kind, all in one query (one
// round trip). The text is split into words in Go and every word is quoted
// and escaped, so no character of it ever acts as Lucene syntax; text
// without words finds nothing. With q.LimitEach the best q.Limit of each
// kind are returned, otherwise the best q.Limit of all.
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
	kinds = slices.Compact(slices.Sorted(slices.Values(kinds)))
	searches := make([]any, len(kinds))
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
		searches[i] = map[string]any{"index": index, "query": fulltextQuery(token, terms), "kind": string(k)}
	}
	recs, err := s.read(ctx, qSearch, map[string]any{"searches": searches, "limit": int64(limit), "ns": key})
	if err != nil {
		return nil, fmt.Errorf("neo4j: search %v in %s: %w", kinds, ns, err)
	}
	hits := make([]kgmem.Hit, 0, len(recs))
	for _, rec := range recs {
		kind, _ := rec.Values[0].(string)
		id, _ := rec.Values[1].(string)
		score, _ := rec.Values[2].(float64)
		if score > 0 {
			hits = append(hits, kgmem.Hit{Kind: kgmem.Kind(kind), ID: id, Score: score})
		}
	}
	slices.SortFunc(hits, func(a, b kgmem.Hit) int {
		return cmp.Or(cmp.Compare(b.Score, a.Score), cmp.Compare(a.Kind, b.Kind), cmp.Compare(a.ID, b.ID))
	})
	if len(hits) > limit && !q.LimitEach {
		hits = hits[:limit]
	}
	return hits, nil
}
