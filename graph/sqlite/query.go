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

// queryTerms splits free text into search terms: maximal runs of letters,
// digits and combining marks, lower-cased, stop words and repeats dropped.
// Everything else (quotes, brackets, operators, emoji) separates terms, so no
// character of the input survives as FTS5 syntax.
func queryTerms(text string) []string {
	seen := map[string]bool{}
	var terms []string
	for _, w := range strings.FieldsFunc(text, func(r rune) bool {
		return !isWordRune(r) && !unicode.Is(unicode.Mn, r)
	}) {
		w = strings.ToLower(w)
		if isStopWord(w) || seen[w] || !strings.ContainsFunc(w, isWordRune) {
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

// matchExpr builds the FTS5 MATCH expression for terms in the namespace with
// token tok: `ns:"tok" AND ("t1" OR "t2" …)`. Terms hold only letters, digits
// and marks (see queryTerms), and are quoted besides, so the expression is
// always well formed. It returns "" when there is nothing to search for.
func matchExpr(tok string, terms []string) string {
	if len(terms) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString(`ns:"` + tok + `" AND (`)
	for i, t := range terms {
		if i > 0 {
			b.WriteString(" OR ")
		}
		b.WriteString(`"` + strings.ReplaceAll(t, `"`, `""`) + `"`)
	}
	b.WriteString(")")
	return b.String()
}

// isWordRune reports letters and digits.
func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }
