package sqlite

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"math"
	"slices"
	"sync"
)

// pruneBudget is how many matching rows a search may score with bm25()
// before it tries to skip its most common terms (see rank). Scoring costs
// about 2µs a row, so below this budget pruning would not pay for itself.
const pruneBudget = 2000

// BM25 parameters of FTS5's bm25().
const (
	bm25K1 = 1.2
)

// rankedRow is one FTS match: the record's rid and its BM25 score (higher
// is better).
type rankedRow struct {
	rid   int64
	score float64
}

// ftsQuery is one kind's full-text search in one namespace.
type ftsQuery struct {
	src    ftsSource
	always string // token every row of the namespace carries in the ns column
	prefix string // wordPrefix of the namespace
	terms  []string
	limit  int
	// version is the namespace's graph version when the search began,
	// which keys the document frequencies cached in dfCache.
	version int64
}

// rank returns the best q.limit rows for q, scored exactly as one bm25()
// query over all terms would, and whether pruning (below) produced them.
//
// A query with a very common term would score most of the namespace. So, when
// the terms match more than budget rows in all, rank first searches only the
// rows holding its rarer ("essential") terms, still scoring the common ones,
// in the manner of MaxScore: a row holding only common terms can score at most
// the sum of their upper bounds, idf·(k1+1) each, with idf taken at its
// largest (the table's row count bounded by the largest rid). When the worst
// of the rows found beats that bound, no skipped row could have ranked, and
// the result is exact; otherwise rank runs the full query.
func (s *Store) rank(ctx context.Context, q ftsQuery, budget int) ([]rankedRow, bool, error) {
	full := matchExpr(q.prefix, q.terms)
	fullRank := func() ([]rankedRow, bool, error) {
		rows, err := s.rankMatch(ctx, q.src, full, q.limit)
		return rows, false, err
	}
	if budget <= 0 || len(q.terms) < 2 {
		return fullRank()
	}
	type termDF struct {
		term string
		df   int
	}
	dfs := make([]termDF, len(q.terms))
	total := 0
	for i, t := range q.terms {
		key := dfKey{fts: q.src.fts, prefix: q.prefix, version: q.version, term: t}
		n, ok := s.dfs.get(key)
		if !ok {
			var err error
			if n, err = s.count(ctx, q.src, phrase(q.prefix, t)); err != nil {
				return nil, false, err
			}
			s.dfs.put(key, n)
		}
		dfs[i] = termDF{t, n}
		total += n
	}
	if total <= budget {
		return fullRank()
	}
	slices.SortFunc(dfs, func(a, b termDF) int { return cmp.Compare(a.df, b.df) })
	var essential, others []string
	sum := 0
	for _, d := range dfs {
		if len(essential) == 0 || sum+d.df <= budget {
			essential, sum = append(essential, d.term), sum+d.df
		} else {
			others = append(others, d.term)
		}
	}
	if len(others) == 0 {
		return fullRank()
	}
	maxRID, err := s.integer(ctx, `SELECT coalesce(max(rid), 0) FROM `+q.src.records)
	if err != nil {
		return nil, false, fmt.Errorf("row count bound: %w", err)
	}
	bound := 0.0
	for _, d := range dfs[len(essential):] {
		bound += maxIDF(maxRID, d.df) * (bm25K1 + 1)
	}
	rows, err := s.rankMatch(ctx, q.src, prunedExpr(q.always, q.prefix, essential, others), q.limit)
	if err != nil {
		return nil, false, err
	}
	if len(rows) == q.limit && rows[len(rows)-1].score > bound {
		return rows, true, nil
	}
	return fullRank()
}

// maxIDF is FTS5's bm25() idf of a term in df rows of a table of at most
// rows rows: larger tables only raise it.
func maxIDF(rows int64, df int) float64 {
	idf := math.Log((float64(rows) - float64(df) + 0.5) / (float64(df) + 0.5))
	if idf <= 0 {
		idf = 1e-6
	}
	return idf
}

// count returns how many rows of src's FTS table match the expression.
func (s *Store) count(ctx context.Context, src ftsSource, match string) (int, error) {
	n, err := s.integer(ctx, `SELECT count(*) FROM `+src.fts+` WHERE `+src.fts+` MATCH ?`, match)
	if err != nil {
		return 0, fmt.Errorf("count matches: %w", err)
	}
	return int(n), nil
}

// integer runs a one-row, one-column integer query on the reader pool
// through the read statement cache.
func (s *Store) integer(ctx context.Context, query string, args ...any) (int64, error) {
	return integerOn(ctx, s.cached(s.r), query, args...)
}

// integerOn runs a one-row, one-column integer query on q.
func integerOn(ctx context.Context, q querier, query string, args ...any) (int64, error) {
	got, err := integers(ctx, q, query, args...)
	if err != nil {
		return 0, err
	}
	if len(got) != 1 {
		return 0, fmt.Errorf("%d rows, want 1", len(got))
	}
	return got[0], nil
}

// integers runs a one-column integer query on q.
func integers(ctx context.Context, q querier, query string, args ...any) ([]int64, error) {
	return collect(ctx, q, func(rows *sql.Rows) (int64, error) {
		var n int64
		return n, rows.Scan(&n)
	}, query, args...)
}

// rankMatch returns the best limit rows of src's FTS table for the MATCH
// expression, by bm25() with weight 0 on the ns column.
func (s *Store) rankMatch(ctx context.Context, src ftsSource, match string, limit int) ([]rankedRow, error) {
	return collect(ctx, s.cached(s.r), func(rows *sql.Rows) (rankedRow, error) {
		var r rankedRow
		return r, rows.Scan(&r.rid, &r.score)
	}, `SELECT rowid, -bm25(`+src.fts+`, 0.0, 1.0) AS score FROM `+src.fts+`
		WHERE `+src.fts+` MATCH ? ORDER BY score DESC, rowid `+limitParam, match, limit)
}

// maxCachedDFs bounds the document frequencies dfCache holds; past it the
// cache starts over.
const maxCachedDFs = 100_000

// dfCache remembers how many rows of a namespace's FTS table hold a term,
// per graph version (every write that changes the FTS tables raises it), so
// repeated query words cost a map lookup instead of a walk of their posting
// lists. The counts only steer pruning, which rank checks against a bound.
type dfCache struct {
	mu sync.Mutex
	m  map[dfKey]int
}

// dfKey names one term's count in one namespace at one version.
type dfKey struct {
	fts, prefix string
	version     int64
	term        string
}

// get returns the cached count of key.
func (c *dfCache) get(key dfKey) (int, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	n, ok := c.m[key]
	return n, ok
}

// put caches the count of key.
func (c *dfCache) put(key dfKey, n int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || len(c.m) >= maxCachedDFs {
		c.m = map[dfKey]int{}
	}
	c.m[key] = n
}
