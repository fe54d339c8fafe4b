package embed

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/kljensen/snowball/english"
	"golang.org/x/text/runes"
	"golang.org/x/text/transform"
	"golang.org/x/text/unicode/norm"
)

// words splits text into words (their folded surface forms): NFKC, lower
// case, diacritics removed, letters and digits kept, contractions and
// possessives reduced.
func words(text string) []string {
	folded := fold(text)
	fields := strings.FieldsFunc(folded, func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '\''
	})
	out := fields[:0]
	for _, f := range fields {
		if f = uncontract(strings.Trim(f, "'")); f != "" {
			out = append(out, f)
		}
	}
	return out
}

// fold normalises Unicode (NFKC), lower-cases and drops diacritics.
func fold(s string) string {
	if isASCII(s) { // nothing to normalise
		return strings.ToLower(s)
	}
	t := transform.Chain(norm.NFD, runes.Remove(runes.In(unicode.Mn)), norm.NFKC)
	out, _, err := transform.String(t, s)
	if err != nil { // only on invalid UTF-8 that the transformers cannot repair
		out = s
	}
	return strings.ToLower(out)
}

// uncontract reduces English contractions and possessives to the base word
// ("caroline's" → "caroline", "don't" → "do", "can't" → "can") and drops any
// other apostrophe.
func uncontract(w string) string {
	switch {
	case strings.HasSuffix(w, "n't"):
		switch base := strings.TrimSuffix(w, "n't"); base {
		case "ca":
			return "can"
		case "wo":
			return "will"
		case "sha":
			return "shall"
		default:
			w = base
		}
	case strings.HasSuffix(w, "'s"), strings.HasSuffix(w, "'m"), strings.HasSuffix(w, "'d"):
		w = w[:len(w)-2]
	case strings.HasSuffix(w, "'re"), strings.HasSuffix(w, "'ve"), strings.HasSuffix(w, "'ll"):
		w = w[:len(w)-3]
	}
	return strings.ReplaceAll(w, "'", "")
}

// isStopWord reports whether w (folded surface form) carries no topic: the
// Snowball English stop list plus common conversational filler.
func isStopWord(w string) bool {
	if english.IsStopWord(w) {
		return true
	}
	switch w {
	case "also", "would", "could", "may", "might", "must", "shall", "can", "will",
		"yes", "yeah", "yep", "oh", "ok", "okay", "hey", "hi", "hello", "um", "uh",
		"lol", "wow", "really", "just", "got", "get", "let", "us", "thing", "things",
		"much", "many", "well", "even", "still", "though", "ever", "anything", "something":
		return true
	}
	return false
}

// isASCII reports whether s is pure ASCII.
func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}
