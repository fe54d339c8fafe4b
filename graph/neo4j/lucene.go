package neo4j

import (
	"strings"
	"unicode"

	"golang.org/x/text/runes"
	"golang.org/x/text/transform"
	"golang.org/x/text/unicode/norm"
)

// maxQueryTerms bounds the distinct words of one full-text query, far below
// Lucene's clause limit.
const maxQueryTerms = 64

// foldText lower-cases text and removes its diacritics ("Zürich" →
// "zurich"): what the full-text properties hold and queries are matched
// against, since the english analyzer does not fold.
func foldText(text string) string {
	t := transform.Chain(norm.NFD, runes.Remove(runes.In(unicode.Mn)), norm.NFC)
	out, _, err := transform.String(t, text)
	if err != nil { // only on invalid UTF-8 the transformers cannot repair
		out = text
	}
	return strings.ToLower(out)
}

// queryTerms splits free text into distinct lower-case words: runs of
// letters, digits and combining marks. Everything else (quotes, brackets,
// operators, emoji, control characters) separates words and is dropped, so no
// character of the text can ever act as Lucene query syntax. A word with
// diacritics is searched folded and as written, so entries stored before
// folding still match.
func queryTerms(text string) []string {
	words := strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !(unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r))
	})
	seen := make(map[string]bool, len(words))
	terms := make([]string, 0, len(words))
	for _, w := range words {
		if seen[w] {
			continue
		}
		seen[w] = true
		terms = append(terms, w)
		if f := foldText(w); f != w && !seen[f] && f != "" {
			seen[f] = true
			terms = append(terms, f)
		}
		if len(terms) >= maxQueryTerms {
			break
		}
	}
	return terms
}

// luceneSpecial lists the characters with a meaning in Lucene's classic query
// syntax.
const luceneSpecial = `+-&|!(){}[]^"~*?:\/`

// escapeLucene backslash-escapes every Lucene special character of s.
// queryTerms never yields one; this is the second line of defence.
func escapeLucene(s string) string {
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune(luceneSpecial, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// fulltextQuery builds the Lucene query that requires the scope token and
// matches any of the terms in the ft_en field, each term a quoted phrase (so a
// CJK word that the analyzer splits into characters matches as a sequence).
// It returns "" when there are no terms.
func fulltextQuery(scopeToken string, terms []string) string {
	if len(terms) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("+ft_scope:")
	b.WriteString(escapeLucene(scopeToken))
	b.WriteString(" +ft_en:(")
	for i, t := range terms {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteByte('"')
		b.WriteString(escapeLucene(t))
		b.WriteByte('"')
	}
	b.WriteByte(')')
	return b.String()
}
