package kgmem

import (
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// NormalizeName is the matching key of an entity name or alias: Unicode NFKC,
// format characters removed (zero-width spaces and joiners, bidi controls,
// soft hyphens, byte-order marks: Unicode category Cf), lower-cased, inner whitespace collapsed to one space, surrounding quotes and
// brackets trimmed, and trailing sentence punctuation dropped. "  Bob   SMITH. "
// and "bob smith" share the key "bob smith"; "C++", "C#" and "C" stay three
// names. Every store and resolver matches names through this function.
func NormalizeName(s string) string {
	// Lower-casing can undo NFKC composition ("T" + U+0308 composes to "T̈"
	// only as "ẗ"), so normalise again after it: the key must be a fixed point.
	// Invalid bytes become U+FFFD first: lower-casing would replace them
	// anyway, and a replacement char beside a combining mark composes
	// differently from the raw byte, so the key would not be a fixed point.
	s = strings.ToValidUTF8(s, "\uFFFD")
	s = RemoveFormatChars(s)
	s = norm.NFKC.String(strings.ToLower(norm.NFKC.String(s)))
	s = strings.Join(strings.Fields(s), " ")
	for {
		trimmed := strings.TrimFunc(s, isEnclosing)
		trimmed = strings.TrimRightFunc(trimmed, isSentenceEnd)
		trimmed = strings.TrimSpace(trimmed)
		if trimmed == s {
			return s
		}
		s = trimmed
	}
}

// isEnclosing reports quotes and brackets that wrap a name.
func isEnclosing(r rune) bool {
	return unicode.Is(unicode.Quotation_Mark, r) || unicode.In(r, unicode.Ps, unicode.Pe, unicode.Pi, unicode.Pf) || r == '`'
}

// isSentenceEnd reports punctuation that ends a sentence rather than a name.
func isSentenceEnd(r rune) bool {
	return strings.ContainsRune(".,;:!?…。、，", r)
}

// RemoveFormatChars drops the invisible format characters of s (Unicode
// category Cf: zero-width space, joiners, bidi embeddings, overrides and
// isolates, soft hyphen, byte-order mark, tag characters). They change how a
// name looks or sorts without changing what it names, and bidi overrides can
// make one name display as another.
func RemoveFormatChars(s string) string {
	if !strings.ContainsFunc(s, isFormat) {
		return s
	}
	return strings.Map(func(r rune) rune {
		if isFormat(r) {
			return -1
		}
		return r
	}, s)
}

func isFormat(r rune) bool { return unicode.Is(unicode.Cf, r) }
