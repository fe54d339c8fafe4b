package milvus

import (
	"strconv"
	"testing"

	"github.com/kgmem/kgmem"
)

func TestQuoteRoundTrips(t *testing.T) {
	tests := []string{
		"",
		"plain",
		`" or 1==1 or "`,
		`' or 1==1 or '`,
		`\" || id != "`,
		`back\slash\`,
		"new\nline\ttab\r",
		"nul\x00byte",
		`] || namespace in ["`,
		"unicode ✓ ünïcödé 日本",
		"\u2028line separator",
	}
	for _, s := range tests {
		q := quote(s)
		if len(q) < 2 || q[0] != '"' || q[len(q)-1] != '"' {
			t.Errorf("quote(%q) = %s, want a double-quoted literal", s, q)
			continue
		}
		// Milvus reads the literal back with strconv.Unquote.
		got, err := strconv.Unquote(q)
		if err != nil || got != s {
			t.Errorf("Unquote(quote(%q)) = %q, %v; want the input back", s, got, err)
		}
		// No unescaped double quote may end the literal early.
		for i := 1; i < len(q)-1; i++ {
			if q[i] == '\\' {
				i++
				continue
			}
			if q[i] == '"' {
				t.Errorf("quote(%q) = %s has a bare quote at %d", s, q, i)
			}
		}
	}
}

func TestExpressions(t *testing.T) {
	tests := []struct {
		name string
		got  string
		want string
	}{
		{"namespace only", namespaceExpr("acme/u1", nil), `namespace == "acme/u1"`},
		{"namespace and kinds", namespaceExpr("acme/u1", []kgmem.Kind{kgmem.KindFact, kgmem.KindEpisode}),
			`namespace == "acme/u1" && kind in ["fact", "episode"]`},
		{"ids", idsExpr("a", []string{"x", `" or 1==1 or "`}),
			`namespace == "a" && id in ["x", "\" or 1==1 or \""]`},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("%s: got %s, want %s", tt.name, tt.got, tt.want)
		}
	}
}

func TestDedupKinds(t *testing.T) {
	got := dedupKinds([]kgmem.Kind{kgmem.KindFact, kgmem.KindEntity, kgmem.KindFact})
	if len(got) != 2 || got[0] != kgmem.KindFact || got[1] != kgmem.KindEntity {
		t.Errorf("dedupKinds = %v, want [fact entity]", got)
	}
}

func TestLastPerID(t *testing.T) {
	recs := []kgmem.VectorRecord{{ID: "a", Kind: kgmem.KindFact}, {ID: "b"}, {ID: "a", Kind: kgmem.KindEntity}}
	got := lastPerID(recs)
	if len(got) != 2 || got[0].ID != "b" || got[1].ID != "a" || got[1].Kind != kgmem.KindEntity {
		t.Errorf("lastPerID = %+v, want b then the last a", got)
	}
}
