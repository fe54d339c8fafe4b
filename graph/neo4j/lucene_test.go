package neo4j

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

func TestQueryTerms(t *testing.T) {
	tests := []struct {
		text string
		want []string
	}{
		{"Bob leads ML", []string{"bob", "leads", "ml"}},
		{"bob BOB Bob", []string{"bob"}},
		{`"violin)`, []string{"violin"}},
		{"text:violin AND NOT x", []string{"text", "violin", "and", "not", "x"}},
		{"bob* ~2 ^3 +a -b", []string{"bob", "2", "3", "a", "b"}},
		{`') MATCH (n) DETACH DELETE n //`, []string{"match", "n", "detach", "delete"}},
		{"ünïcödé 東京", []string{"ünïcödé", "unicode", "東京"}}, // as written and folded
		{"Zürich zurich", []string{"zürich", "zurich"}},
		{"🎉🔥 !!! ??? ... \x00", nil},
		{"", nil},
	}
	for _, tc := range tests {
		t.Run(tc.text, func(t *testing.T) {
			if got := queryTerms(tc.text); !slices.Equal(got, tc.want) && (len(got) != 0 || len(tc.want) != 0) {
				t.Errorf("queryTerms(%q) = %q, want %q", tc.text, got, tc.want)
			}
		})
	}
	var many []string
	for i := range 200 {
		many = append(many, fmt.Sprintf("w%03d", i))
	}
	if got := queryTerms(strings.Join(many, " ")); !slices.Equal(got, many[:maxQueryTerms]) {
		t.Errorf("queryTerms of 200 distinct words kept %d, want the first %d", len(got), maxQueryTerms)
	}
}

func TestEscapeLucene(t *testing.T) {
	tests := []struct{ in, want string }{
		{"plain", "plain"},
		{`a+b`, `a\+b`},
		{`(x)`, `\(x\)`},
		{`"q"`, `\"q\"`},
		{`back\slash`, `back\\slash`},
		{`a/b:c*d?e~f^g!h&i|j{k}l[m]n-o`, `a\/b\:c\*d\?e\~f\^g\!h\&i\|j\{k\}l\[m\]n\-o`},
	}
	for _, tc := range tests {
		if got := escapeLucene(tc.in); got != tc.want {
			t.Errorf("escapeLucene(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestFoldText(t *testing.T) {
	for in, want := range map[string]string{"Zürich": "zurich", "Crème Brûlée": "creme brulee", "東京": "東京", "ÀÉÎ": "aei", "plain": "plain"} {
		if got := foldText(in); got != want {
			t.Errorf("foldText(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestFulltextQuery(t *testing.T) {
	tests := []struct {
		name  string
		token string
		terms []string
		want  string
	}{
		{"NoTerms", "nsabc", nil, ""},
		{"OneTerm", "nsabc", []string{"bob"}, `+ft_scope:nsabc +ft_en:("bob")`},
		{"Several", "cur1", []string{"bob", "東京"}, `+ft_scope:cur1 +ft_en:("bob" "東京")`},
		{"EscapedDefensively", "ns1", []string{`a"b`}, `+ft_scope:ns1 +ft_en:("a\"b")`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := fulltextQuery(tc.token, tc.terms); got != tc.want {
				t.Errorf("fulltextQuery = %q, want %q", got, tc.want)
			}
		})
	}
}
