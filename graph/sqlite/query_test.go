package sqlite

import (
	"slices"
	"strings"
	"testing"

	"github.com/kgmem/kgmem/lexical"
)

func TestQueryTerms(t *testing.T) {
	tests := []struct {
		text string
		want []string
	}{
		{"Who leads the ML team?", []string{"who", "leads", "ml", "team"}},
		{`"unterminated`, []string{"unterminated"}},
		{`bob AND alice OR NOT carol`, []string{"bob", "alice", "carol"}},
		{`') MATCH (n) DETACH DELETE n //`, []string{"match", "n", "detach", "delete"}},
		{`col:value* ^x NEAR(a b)`, []string{"col", "value", "x", "near", "b"}},
		{`Zürich ZÜRICH zürich`, []string{"zürich"}},
		{"Zu\u0308rich", []string{"zu\u0308rich"}}, // decomposed: the mark stays in the word
		{`東京 チューリッヒ`, []string{"東京", "チューリッヒ"}},
		{`🎉 party 🔥`, []string{"party"}},
		{`the of and a`, nil},
		{`!!! ??? ...`, nil},
		{"\u0301\u0301", nil}, // marks only: no word
		{"", nil},
	}
	for _, tc := range tests {
		t.Run(tc.text, func(t *testing.T) {
			if got := queryTerms(tc.text); !slices.Equal(got, tc.want) {
				t.Fatalf("queryTerms(%q) = %q, want %q", tc.text, got, tc.want)
			}
		})
	}
}

func TestQueryTermsCapped(t *testing.T) {
	var text string
	for i := range 100 {
		text += string(rune('a'+i%26)) + string(rune('a'+i/26)) + "x "
	}
	if got := queryTerms(text); len(got) != lexical.MaxQueryTerms {
		t.Fatalf("got %d terms, want the cap %d", len(got), lexical.MaxQueryTerms)
	}
}

func TestMatchExpr(t *testing.T) {
	tests := []struct {
		terms []string
		want  string
	}{
		{nil, ""},
		{[]string{"bob"}, `"pbob"`},
		{[]string{"bob", "team"}, `"pbob" OR "pteam"`},
	}
	for _, tc := range tests {
		if got := matchExpr("p", tc.terms); got != tc.want {
			t.Errorf("matchExpr(%q) = %q, want %q", tc.terms, got, tc.want)
		}
	}
	if got, want := prunedExpr("ns1", "p", []string{"a", "b"}, []string{"c"}), `("pa" OR "pb") AND ("pc" OR ns:"ns1")`; got != want {
		t.Errorf("prunedExpr = %q, want %q", got, want)
	}
}

func TestIndexText(t *testing.T) {
	tests := []struct{ text, want string }{
		{"Bob leads the ML-team.", "pbob pleads pthe pml pteam"},
		{`"Zürich" 🎉 2020`, "pzürich p2020"},
		{"!!!", ""},
	}
	for _, tc := range tests {
		if got := indexText("p", tc.text); got != tc.want {
			t.Errorf("indexText(%q) = %q, want %q", tc.text, got, tc.want)
		}
	}
}

func TestWordPrefixIsConsonants(t *testing.T) {
	a, b := wordPrefix("acme/users/u42"), wordPrefix("acme/users/u43")
	if a == b || a != wordPrefix("acme/users/u42") || len(a) != 12 {
		t.Fatalf("prefixes %q and %q: want distinct, stable, 12 long", a, b)
	}
	if strings.ContainsAny(a, "aeiouy") {
		t.Fatalf("prefix %q holds a vowel", a)
	}
}

func TestNSTokenIsOneStableWord(t *testing.T) {
	a, b := nsToken("acme/users/u42"), nsToken("acme/users/u43")
	if a == b || a != nsToken("acme/users/u42") {
		t.Fatalf("tokens %q and %q: want distinct and stable", a, b)
	}
	if terms := queryTerms(a); len(terms) != 1 || terms[0] != a {
		t.Fatalf("token %q is not a single word: %q", a, terms)
	}
}
