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
		{"ünïcödé 東京", []string{"ünïcödé", "東京"}},
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

func TestFulltextQuery(t *testing.T) {
	tests := []struct {
		name  string
		token string
		terms []string
		want  string
	}{
		{"NoTerms", "nsabc", nil, ""},
		{"OneTerm", "nsabc", []string{"bob"}, `+ft_scope:nsabc +ft_text:("bob")`},
		{"Several", "cur1", []string{"bob", "東京"}, `+ft_scope:cur1 +ft_text:("bob" "東京")`},
		{"EscapedDefensively", "ns1", []string{`a"b`}, `+ft_scope:ns1 +ft_text:("a\"b")`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := fulltextQuery(tc.token, tc.terms); got != tc.want {
				t.Errorf("fulltextQuery = %q, want %q", got, tc.want)
			}
		})
	}
}
