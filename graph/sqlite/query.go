package sqlite

import (
	"strings"

	"github.com/kgmem/kgmem/lexical"
)

// queryTerms splits free text into FTS5 search terms: its words
// (lexical.Words) with stop words and repeats dropped, at most
// lexical.MaxQueryTerms. No character of the input survives as FTS5 syntax.
func queryTerms(text string) []string {
	seen := map[string]bool{}
	var terms []string
	for _, w := range lexical.Words(text) {
		if lexical.IsStopWord(w) || seen[w] {
			continue
		}
		seen[w] = true
		terms = append(terms, w)
		if len(terms) == lexical.MaxQueryTerms {
			break
		}
	}
	return terms
}

// indexText is what the FTS body column receives for text: every word glued
// to the namespace's word prefix (see wordPrefix), so each namespace has its
// own posting lists and BM25 statistics inside one FTS5 table.
func indexText(prefix, text string) string {
	ws := lexical.Words(text)
	n := 0
	for _, w := range ws {
		n += len(prefix) + len(w) + 1
	}
	var b strings.Builder
	b.Grow(n)
	for i, w := range ws {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(prefix)
		b.WriteString(w)
	}
	return b.String()
}

// matchExpr builds the FTS5 MATCH expression for terms glued to prefix:
// `"pt1" OR "pt2" …`. Terms hold only letters, digits and marks (see
// queryTerms) and are quoted besides, so the expression is always well
// formed. It returns "" when there are no terms.
func matchExpr(prefix string, terms []string) string {
	return anyOf(prefix, terms)
}

// prunedExpr is matchExpr restricted to rows holding one of the essential
// terms, while the other terms still score: their OR group also holds the
// token always, which every row of the namespace carries in the ns column, so
// it never filters but keeps FTS5 reporting those terms' hits to bm25().
func prunedExpr(always, prefix string, essential, others []string) string {
	return "(" + anyOf(prefix, essential) + ") AND (" + anyOf(prefix, others) + ` OR ns:"` + always + `")`
}

// anyOf returns the quoted, prefixed terms joined by OR.
func anyOf(prefix string, terms []string) string {
	quoted := make([]string, len(terms))
	for i, t := range terms {
		quoted[i] = phrase(prefix, t)
	}
	return strings.Join(quoted, " OR ")
}

// phrase returns one prefixed term as an FTS5 string.
func phrase(prefix, term string) string {
	return `"` + strings.ReplaceAll(prefix+term, `"`, `""`) + `"`
}
