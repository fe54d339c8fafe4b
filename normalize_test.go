package kgmem_test

import (
	"testing"

	"github.com/kgmem/kgmem"
)

func TestNormalizeName(t *testing.T) {
	cases := []struct{ in, want string }{
		{"Bob", "bob"},
		{"  Bob   SMITH. ", "bob smith"},
		{`"Bob"`, "bob"},
		{"(Bob)", "bob"},
		{"«Émilie»", "émilie"},
		{"C++", "c++"},
		{"C#", "c#"},
		{"C", "c"},
		{"Node.js", "node.js"},
		{"Ｆｕｌｌｗｉｄｔｈ", "fullwidth"},
		{"Yahoo!", "yahoo"},
		{"...", ""},
		{"   ", ""},
		{"東京", "東京"},
	}
	for _, tc := range cases {
		if got := kgmem.NormalizeName(tc.in); got != tc.want {
			t.Errorf("NormalizeName(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
