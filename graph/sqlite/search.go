package sqlite

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"slices"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/lexical"
	"golang.org/x/sync/errgroup"
)

// Search limits: the number of hits when TextQuery.Limit is 0, and the most
// a search returns whatever its Limit.
const (
	defaultSearchLimit = 10
	maxSearchLimit     = 1000
)

// ftsSource says how to search one kind: its FTS table and record table.
type ftsSource struct {
	kind    kgmem.Kind
	fts     string
	records string
}

// ftsSources lists the searchable kinds in kgmem.AllKinds order.
func ftsSources() []ftsSource {
	return []ftsSource{
		{kgmem.KindFact, "fact_fts", "facts"},
		{kgmem.KindEntity, "entity_fts", "entities"},
		{kgmem.KindEpisode, "episode_fts", "episodes"},
		{kgmem.KindItem, "item_fts", "items"},
	}
}

// SearchText ranks the facts, entities, episodes and items of ns by BM25 against the
// words of q.Text, best first. Scores are positive and higher is better;
// they are comparable within one store, not across backends. Expired facts
// are left out unless q.IncludeExpired. Limit 0 means 10; at most 1,000 hits
// are returned (of each kind, with q.LimitEach).
//
// Each kind is ranked in memory by the namespace's BM25 index of that kind
// (package lexical; built on first use and again after each write, see
// lexical.go), whose statistics are the namespace's own. A namespace with
// too many records of a kind to index in memory is searched by one FTS5
// query over its own words instead (see wordPrefix), ranked by bm25() with
// common terms pruned when that is provably exact (see rank); only the top
// rows are then looked up in the record tables.
func (s *Store) SearchText(ctx context.Context, ns kgmem.Namespace, q kgmem.TextQuery) ([]kgmem.Hit, error) {
	if err := checkNamespace(ns); err != nil {
		return nil, err
	}
	limit, kinds, err := checkTextQuery(q)
	if err != nil {
		return nil, fmt.Errorf("sqlite: search: %w", err)
	}
	// The same words either way (stop words left out), so both are empty
	// together; the FTS form is made only for a namespace searched in FTS5.
	indexTerms := lexical.QueryTerms(q.Text)
	if len(indexTerms) == 0 {
		return nil, nil
	}
	v, err := s.versionsOf(ctx, ns)
	if err != nil {
		return nil, fmt.Errorf("sqlite: search: %w", err)
	}
	version := v.graph
	// The kinds are independent queries: run them on separate reader
	// connections at once.
	sources := ftsSources()
	perKind := make([][]kgmem.Hit, len(sources))
	g, gctx := errgroup.WithContext(ctx)
	asked := 0
	for _, src := range sources {
		if slices.Contains(kinds, src.kind) {
			asked++
		}
	}
	for i, src := range sources {
		if !slices.Contains(kinds, src.kind) {
			continue
		}
		currentOnly := src.kind == kgmem.KindFact && !q.IncludeExpired
		search := func() error {
			ix, ok, err := s.lexicalIndex(gctx, ns, src, version)
			if err != nil {
				return fmt.Errorf("sqlite: search %s: %w", src.kind, err)
			}
			if ok {
				found := ix.Search(indexTerms, limit, !currentOnly)
				perKind[i] = make([]kgmem.Hit, len(found))
				for j, h := range found {
					perKind[i][j] = kgmem.Hit{Kind: src.kind, ID: h.ID, Score: h.Score}
				}
				return nil
			}
			fq := ftsQuery{src: src, always: nsToken(ns), prefix: wordPrefix(ns), terms: queryTerms(q.Text), limit: limit, version: version}
			hits, err := s.searchKind(gctx, ns, fq, currentOnly)
			if err != nil {
				return fmt.Errorf("sqlite: search %s: %w", src.kind, err)
			}
			perKind[i] = hits
			return nil
		}
		if asked == 1 {
			// One kind (the engine asks for each at once on its own):
			// no goroutine of its own.
			if err := search(); err != nil {
				return nil, err
			}
			continue
		}
		g.Go(search)
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	hits := slices.Concat(perKind...)
	slices.SortFunc(hits, func(a, b kgmem.Hit) int {
		return cmp.Or(cmp.Compare(b.Score, a.Score), cmp.Compare(a.Kind, b.Kind), cmp.Compare(a.ID, b.ID))
	})
	if q.LimitEach {
		return hits, nil
	}
	return hits[:min(limit, len(hits))], nil
}

// searchKind returns the best q.limit hits of one kind. With currentOnly,
// expired facts are dropped after ranking: the search fetches some rows more
// than asked and, in the rare case that too many of them were expired,
// searches again for more. (A filter inside the MATCH would cost a walk of
// the whole namespace's posting list, because bm25() counts the documents of
// every phrase of the expression.)
func (s *Store) searchKind(ctx context.Context, ns kgmem.Namespace, q ftsQuery, currentOnly bool) ([]kgmem.Hit, error) {
	want := q.limit
	if currentOnly {
		q.limit += q.limit/2 + 4
	}
	for {
		top, _, err := s.rank(ctx, q, pruneBudget)
		if err != nil || len(top) == 0 {
			return nil, err
		}
		hits, err := s.hits(ctx, ns, q.src, top, currentOnly)
		if err != nil {
			return nil, err
		}
		if len(hits) >= want || len(top) < q.limit {
			return hits[:min(want, len(hits))], nil
		}
		q.limit *= 4
	}
}

// hits looks up the ids of ranked rows of src, in rank order, leaving out
// rows of another namespace (possible only if two namespaces' word prefixes
// collide) and, with currentOnly, expired facts.
func (s *Store) hits(ctx context.Context, ns kgmem.Namespace, src ftsSource, top []rankedRow, currentOnly bool) ([]kgmem.Hit, error) {
	cond := ""
	if currentOnly {
		cond = ` AND expired_at IS NULL`
	}
	type idOf struct {
		rid int64
		id  string
	}
	var ids []idOf
	for start := 0; start < len(top); start += idChunk {
		chunk := top[start:min(start+idChunk, len(top))]
		rids := make([]int64, len(chunk))
		for i, r := range chunk {
			rids[i] = r.rid
		}
		keys := padded(rids)
		got, err := collect(ctx, s.cached(s.r), func(rows *sql.Rows) (idOf, error) {
			var r idOf
			return r, rows.Scan(&r.rid, &r.id)
		}, `SELECT rid, id FROM `+src.records+` WHERE +namespace = ? AND rid IN (`+placeholders(len(keys))+`)`+cond, append([]any{ns}, keys...)...)
		if err != nil {
			return nil, err
		}
		ids = append(ids, got...)
	}
	byRID := make(map[int64]string, len(ids))
	for _, r := range ids {
		byRID[r.rid] = r.id
	}
	hits := make([]kgmem.Hit, 0, len(top))
	for _, r := range top {
		if id, ok := byRID[r.rid]; ok {
			hits = append(hits, kgmem.Hit{Kind: src.kind, ID: id, Score: r.score})
		}
	}
	return hits, nil
}

// checkTextQuery validates q and returns its effective limit and kinds.
func checkTextQuery(q kgmem.TextQuery) (int, []kgmem.Kind, error) {
	limit := q.Limit
	switch {
	case limit < 0:
		return 0, nil, kgmem.Invalidf("limit", "must not be negative, got %d", limit)
	case limit == 0:
		limit = defaultSearchLimit
	case limit > maxSearchLimit:
		limit = maxSearchLimit
	}
	kinds := q.Kinds
	if len(kinds) == 0 {
		kinds = kgmem.AllKinds()
	}
	for i, k := range kinds {
		if !k.Valid() {
			return 0, nil, kgmem.Invalidf(fmt.Sprintf("kinds[%d]", i), "unknown kind %q; want one of %v", k, kgmem.AllKinds())
		}
	}
	return limit, kinds, nil
}
