package lexical

import (
	"testing"
	"unicode/utf8"
)

// FuzzQueryTerms checks that any input tokenises without panicking into at
// most MaxQueryTerms distinct, valid UTF-8, non-empty terms, each of which is
// also what Tokens makes of it (so queries meet the index's terms).
func FuzzQueryTerms(f *testing.F) {
	for _, s := range []string{"Bob leads the ML team.", "Caf\u00e9 na\u00efve", "\xf6\u03d4", "aaaaaaaaaaaaaaaaaaaaaaaaeed", "ies sses"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		terms := QueryTerms(text)
		if len(terms) > MaxQueryTerms {
			t.Fatalf("%d terms, more than %d", len(terms), MaxQueryTerms)
		}
		seen := map[string]bool{}
		for _, term := range terms {
			if term == "" || !utf8.ValidString(term) || seen[term] {
				t.Fatalf("bad or repeated term %q in %q", term, terms)
			}
			seen[term] = true
		}
		tokens := map[string]bool{}
		for _, tok := range Tokens(text) {
			tokens[tok] = true
		}
		for _, term := range terms {
			if !tokens[term] {
				t.Fatalf("query term %q is not among the index tokens %q", term, Tokens(text))
			}
		}
	})
}
