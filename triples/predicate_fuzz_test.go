package triples_test

import (
	"errors"
	"testing"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/triples"
)

// FuzzNormalizePredicate: never panics; an accepted predicate is canonical
// (normalising it again changes nothing), bounded, and free of spaces and
// upper case; a refusal wraps ErrInvalid.
func FuzzNormalizePredicate(f *testing.F) {
	for _, s := range []string{"is manager of", "worksAt", "doesn't like any more", "café", "LEADS", "!!!", "", "is managed by", "não gosta de", "__a__", "a\x00b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p, err := triples.NormalizePredicate(s)
		if err != nil {
			if !errors.Is(err, kgmem.ErrInvalid) {
				t.Fatalf("NormalizePredicate(%q) error %v does not wrap ErrInvalid", s, err)
			}
			return
		}
		if p == "" || len(p) > triples.MaxPredicateLen {
			t.Fatalf("NormalizePredicate(%q) = %q (%d bytes)", s, p, len(p))
		}
		for _, r := range p {
			if r == ' ' || r >= 'A' && r <= 'Z' {
				t.Fatalf("NormalizePredicate(%q) = %q is not lower_snake", s, p)
			}
		}
		again, err := triples.NormalizePredicate(p)
		if err != nil || again != p {
			t.Fatalf("NormalizePredicate not idempotent: %q -> %q -> %q (%v)", s, p, again, err)
		}
	})
}
