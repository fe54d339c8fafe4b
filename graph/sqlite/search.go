package sqlite

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"slices"

	"github.com/kgmem/kgmem"
	"golang.org/x/sync/errgroup"
)

// defaultSearchLimit is the number of hits when TextQuery.Limit is 0.
const defaultSearchLimit = 10

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
	}
}

// SearchText ranks the facts, entities and episodes of ns by BM25 against the
// words of q.Text, best first. Scores are the negated FTS5 bm25(), so positive
// and higher is better; they are comparable within one store, not across
// backends. Expired facts are left out unless q.IncludeExpired.
//
// Each kind is one FTS5 query over the namespace's own words (see
// wordPrefix), so both matching and BM25's document frequencies stay within
// the namespace; facts not expired are picked by their scope token. Ranking
// uses bm25() with weight 0 on the scope column, inside FTS5, and only the top
// hits are looked up in the record tables: the cost grows with the matches in
// the namespace, not with the size of the store.
func (s *Store) SearchText(ctx context.Context, ns kgmem.Namespace, q kgmem.TextQuery) ([]kgmem.Hit, error) {
	if err := checkNamespace(ns); err != nil {
		return nil, err
	}
	limit, kinds, err := checkTextQuery(q)
	if err != nil {
		return nil, fmt.Errorf("sqlite: search: %w", err)
	}
	terms := queryTerms(q.Text)
	if len(terms) == 0 {
		return nil, nil
	}
	// The kinds are independent queries: run them on separate reader
	// connections at once.
	sources := ftsSources()
	perKind := make([][]kgmem.Hit, len(sources))
	g, gctx := errgroup.WithContext(ctx)
	for i, src := range sources {
		if !slices.Contains(kinds, src.kind) {
			continue
		}
		scope := ""
		if src.kind == kgmem.KindFact && !q.IncludeExpired {
			scope = currentToken(ns)
		}
		g.Go(func() error {
			always := scope
			if always == "" {
				always = nsToken(ns)
			}
			hits, err := s.searchKind(gctx, ns, ftsQuery{src: src, scope: scope, always: always, prefix: wordPrefix(ns), terms: terms, limit: limit})
			if err != nil {
				return fmt.Errorf("sqlite: search %s: %w", src.kind, err)
			}
			perKind[i] = hits
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
	return hits[:min(limit, len(hits))], nil
}

// searchKind returns the best hits of one kind.
func (s *Store) searchKind(ctx context.Context, ns kgmem.Namespace, q ftsQuery) ([]kgmem.Hit, error) {
	top, _, err := s.rank(ctx, q, pruneBudget)
	if err != nil || len(top) == 0 {
		return nil, err
	}
	args := []any{ns}
	for _, r := range top {
		args = append(args, r.rid)
	}
	type idOf struct {
		rid int64
		id  string
	}
	ids, err := collect(ctx, s.r, func(rows *sql.Rows) (idOf, error) {
		var r idOf
		return r, rows.Scan(&r.rid, &r.id)
	}, `SELECT rid, id FROM `+q.src.records+` WHERE +namespace = ? AND rid IN (`+placeholders(len(top))+`)`, args...)
	if err != nil {
		return nil, err
	}
	byRID := make(map[int64]string, len(ids))
	for _, r := range ids {
		byRID[r.rid] = r.id
	}
	hits := make([]kgmem.Hit, 0, len(top))
	for _, r := range top {
		if id, ok := byRID[r.rid]; ok { // another namespace's record only on a token collision
			hits = append(hits, kgmem.Hit{Kind: q.src.kind, ID: id, Score: r.score})
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
