package neo4j

import (
	"strings"
	"unicode"
)

// maxQueryTerms bounds the distinct words of one full-text query, far below
// Lucene's clause limit.
const maxQueryTerms = 64

// queryTerms splits free text into distinct lower-case words: runs of
// letters, digits and combining marks. Everything else (quotes, brackets,
// operators, emoji, control characters) separates words and is dropped, so no
// character of the text can ever act as Lucene query syntax.
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
		if len(terms) == maxQueryTerms {
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
// matches any of the terms in the text field, each term a quoted phrase (so a
// CJK word that the analyzer splits into characters matches as a sequence).
// It returns "" when there are no terms.
func fulltextQuery(scopeToken string, terms []string) string {
	if len(terms) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("+ft_scope:")
	b.WriteString(escapeLucene(scopeToken))
	b.WriteString(" +ft_text:(")
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
