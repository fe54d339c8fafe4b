package sqlite

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"slices"

	"github.com/kgmem/kgmem"
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
func (s *Store) SearchText(ctx context.Context, ns kgmem.Namespace, q kgmem.TextQuery) ([]kgmem.Hit, error) {
	if err := checkNamespace(ns); err != nil {
		return nil, err
	}
	limit, kinds, err := checkTextQuery(q)
	if err != nil {
		return nil, fmt.Errorf("sqlite: search: %w", err)
	}
	match := matchExpr(nsToken(ns), queryTerms(q.Text))
	if match == "" {
		return nil, nil
	}
	var hits []kgmem.Hit
	for _, src := range ftsSources() {
		if !slices.Contains(kinds, src.kind) {
			continue
		}
		expired := ""
		if src.kind == kgmem.KindFact && !q.IncludeExpired {
			expired = ` AND r.expired_at IS NULL`
		}
		// Weight 0 for the ns column: the namespace token only filters.
		query := `SELECT r.id, -bm25(` + src.fts + `, 0.0, 1.0) AS score
			FROM ` + src.fts + ` JOIN ` + src.records + ` r ON r.rid = ` + src.fts + `.rowid
			WHERE ` + src.fts + ` MATCH ? AND r.namespace = ?` + expired + `
			ORDER BY score DESC, r.id LIMIT ?`
		kindHits, err := collect(ctx, s.r, func(rows *sql.Rows) (kgmem.Hit, error) {
			h := kgmem.Hit{Kind: src.kind}
			return h, rows.Scan(&h.ID, &h.Score)
		}, query, match, ns, limit)
		if err != nil {
			return nil, fmt.Errorf("sqlite: search %s: %w", src.kind, err)
		}
		hits = append(hits, kindHits...)
	}
	slices.SortFunc(hits, func(a, b kgmem.Hit) int {
		return cmp.Or(cmp.Compare(b.Score, a.Score), cmp.Compare(a.Kind, b.Kind), cmp.Compare(a.ID, b.ID))
	})
	return hits[:min(limit, len(hits))], nil
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
