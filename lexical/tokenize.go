package lexical

import (
	"strings"
	"unicode"

	porterstemmer "github.com/blevesearch/go-porterstemmer"
	"golang.org/x/text/unicode/norm"
)

// MaxQueryTerms caps the terms of one search; longer input keeps its first
// distinct terms. It bounds the work a pasted document can cause.
const MaxQueryTerms = 32

// IsStopWord reports English function words, which queries drop: they match
// nearly every record, add nothing to BM25 ranking, and would make every
// search walk the longest posting lists. The list is Lucene's English stop set.
func IsStopWord(w string) bool {
	switch w {
	case "a", "an", "and", "are", "as", "at", "be", "but", "by", "for", "if", "in", "into", "is", "it", "no", "not",
		"of", "on", "or", "such", "that", "the", "their", "then", "there", "these", "they", "this", "to", "was",
		"will", "with":
		return true
	}
	return false
}

// Words splits text into lower-cased maximal runs of letters, digits and
// combining marks that hold at least one letter or digit. Everything else
// (quotes, brackets, operators, emoji) separates words.
func Words(text string) []string {
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

// Tokens returns the index terms of text, one per word in order: each word
// of Words with its diacritics removed and, when it is then plain ASCII
// letters, Porter-stemmed ("Cafés" → "cafe", "running" → "run").
func Tokens(text string) []string {
	ws := Words(text)
	for i, w := range ws {
		ws[i] = Token(w)
	}
	return ws
}

// Token folds and stems one word of Words (see Tokens).
func Token(word string) string {
	w := foldDiacritics(word)
	if w == "" {
		return word // only marks: keep the word as it was
	}
	for i := 0; i < len(w); i++ {
		if c := w[i]; c < 'a' || c > 'z' {
			return w
		}
	}
	return string(porterstemmer.StemWithoutLowerCasing([]rune(w)))
}

// foldDiacritics removes combining marks after canonical decomposition
// ("é" → "e"), leaving other characters as they are.
func foldDiacritics(w string) string {
	ascii := true
	for i := 0; i < len(w); i++ {
		if w[i] >= 0x80 {
			ascii = false
			break
		}
	}
	if ascii {
		return w
	}
	return norm.NFC.String(strings.Map(func(r rune) rune {
		if unicode.Is(unicode.Mn, r) {
			return -1
		}
		return r
	}, norm.NFD.String(w)))
}

// QueryTerms returns the distinct index terms of a query's words, stop words
// left out, at most MaxQueryTerms, in order of first appearance.
func QueryTerms(text string) []string {
	seen := map[string]bool{}
	var terms []string
	for _, w := range Words(text) {
		if IsStopWord(w) {
			continue
		}
		t := Token(w)
		if seen[t] {
			continue
		}
		seen[t] = true
		terms = append(terms, t)
		if len(terms) == MaxQueryTerms {
			break
		}
	}
	return terms
}
