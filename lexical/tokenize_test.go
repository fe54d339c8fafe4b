package lexical

import (
	"slices"
	"strings"
	"testing"
)

func TestTokens(t *testing.T) {
	tests := []struct {
		text string
		want []string
	}{
		{"Bob leads the ML team.", []string{"bob", "lead", "the", "ml", "team"}},
		{"running runs RUNNER", []string{"run", "run", "runner"}},
		{"Caf\u00e9 cafe\u0301 na\u00efve", []string{"cafe", "cafe", "naiv"}},
		{"organizations' \"quoted\" (brackets) a+b", []string{"organ", "quot", "bracket", "a", "b"}},
		{"2025 v2 x86_64", []string{"2025", "v2", "x86", "64"}},
		{"Москва 東京 São", []string{"москва", "東京", "sao"}},
		{"🙂 -- !!", nil},
	}
	for _, tt := range tests {
		if got := Tokens(tt.text); !slices.Equal(got, tt.want) {
			t.Errorf("Tokens(%q) = %q, want %q", tt.text, got, tt.want)
		}
	}
}

func TestQueryTerms(t *testing.T) {
	tests := []struct {
		text string
		want []string
	}{
		{"Who leads the team?", []string{"who", "lead", "team"}},
		{"run running runs", []string{"run"}},
		{"the and of", nil},
		{`"a" OR NEAR(b) AND c*`, []string{"near", "b", "c"}},
		{strings.Repeat("alpha beta ", 3) + strings.Join(manyWords(40), " "), append([]string{"alpha", "beta"}, stems(manyWords(30))...)},
	}
	for _, tt := range tests {
		if got := QueryTerms(tt.text); !slices.Equal(got, tt.want) {
			t.Errorf("QueryTerms(%q) = %q, want %q", tt.text, got, tt.want)
		}
	}
}

// manyWords returns n distinct words that stem to themselves.
func manyWords(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = "w" + strings.Repeat("x", i/26) + string(rune('a'+i%26)) + "q"
	}
	return out
}

func stems(ws []string) []string {
	out := make([]string, len(ws))
	for i, w := range ws {
		out[i] = Token(w)
	}
	return out
}
