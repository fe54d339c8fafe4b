package kgmem

import (
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// NormalizeName is the matching key of an entity name or alias: Unicode NFKC,
// case-folded, surrounding punctuation and quotes trimmed, inner whitespace
// collapsed to one space. "  Bob   SMITH. " and "bob smith" share the key
// "bob smith". Every store and resolver matches names through this function.
func NormalizeName(s string) string {
	s = norm.NFKC.String(s)
	s = strings.ToLower(s)
	s = strings.Join(strings.Fields(s), " ")
	return strings.TrimFunc(s, func(r rune) bool {
		return unicode.IsPunct(r) || unicode.IsSpace(r) || unicode.IsSymbol(r)
	})
}
