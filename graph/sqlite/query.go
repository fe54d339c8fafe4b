package sqlite

import (
	"strings"
	"unicode"
)

// maxQueryTerms caps the terms of one search; longer input keeps its first
// distinct terms. It bounds the work a pasted document can cause.
const maxQueryTerms = 32

// isStopWord reports English function words, which queries drop: they match
// nearly every record, add nothing to BM25 ranking, and would make every search
// walk the longest posting lists. The list is Lucene's English stop set.
func isStopWord(w string) bool {
	switch w {
	case "a", "an", "and", "are", "as", "at", "be", "but", "by", "for", "if", "in", "into", "is", "it", "no", "not",
		"of", "on", "or", "such", "that", "the", "their", "then", "there", "these", "they", "this", "to", "was",
		"will", "with":
		return true
	}
	return false
}

// words splits text into lower-cased maximal runs of letters, digits and
// combining marks that hold at least one letter or digit. Everything else
// (quotes, brackets, operators, emoji) separates words.
func words(text string) []string {
	var out []string
	for _, w := range strings.FieldsFunc(text, func(r rune) bool {
		return !isWordRune(r) && !unicode.Is(unicode.Mn, r)
	}) {
		if strings.ContainsFunc(w, isWordRune) {
			out = append(out, strings.ToLower(w))
		}
	}
	return out
}

// isWordRune reports letters and digits.
func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

// queryTerms splits free text into search terms: its words (see words) with
// stop words and repeats dropped, at most maxQueryTerms. No character of the
// input survives as FTS5 syntax.
func queryTerms(text string) []string {
	seen := map[string]bool{}
	var terms []string
	for _, w := range words(text) {
		if isStopWord(w) || seen[w] {
			continue
		}
		seen[w] = true
		terms = append(terms, w)
		if len(terms) == maxQueryTerms {
			break
		}
	}
	return terms
}

// indexText is what the FTS body column receives for text: every word glued
// to the namespace's word prefix (see wordPrefix), so each namespace has its
// own posting lists and BM25 statistics inside one FTS5 table.
func indexText(prefix, text string) string {
	ws := words(text)
	for i, w := range ws {
		ws[i] = prefix + w
	}
	return strings.Join(ws, " ")
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
