package kgmem_test

import (
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/kgmem/kgmem"
)

// FuzzParseNamespace: never panics; an accepted namespace obeys every
// documented rule and parses to itself; a refusal is a FieldError on
// "namespace".
func FuzzParseNamespace(f *testing.F) {
	for _, s := range []string{"acme/users/u42", "", "/", "a//b", "..", "a/./b", strings.Repeat("a/", 8) + "a", strings.Repeat("x", 65), "ünï", "a b", "a\x00b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		ns, err := kgmem.ParseNamespace(s)
		if err != nil {
			var fe *kgmem.FieldError
			if !errors.As(err, &fe) || fe.Field != "namespace" || !errors.Is(err, kgmem.ErrInvalid) {
				t.Fatalf("ParseNamespace(%q) error %v is not a FieldError on namespace", s, err)
			}
			return
		}
		if string(ns) != s || !utf8.ValidString(s) {
			t.Fatalf("ParseNamespace(%q) = %q", s, ns)
		}
		segs := strings.Split(s, "/")
		if len(segs) < 1 || len(segs) > kgmem.MaxNamespaceDepth {
			t.Fatalf("%q has %d segments", s, len(segs))
		}
		for _, seg := range segs {
			if seg == "" || seg == "." || seg == ".." || len(seg) > kgmem.MaxNamespaceSegment {
				t.Fatalf("%q accepted with segment %q", s, seg)
			}
			if strings.Trim(seg, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-") != "" {
				t.Fatalf("%q accepted with segment %q", s, seg)
			}
		}
		if again, err := kgmem.ParseNamespace(string(ns)); err != nil || again != ns {
			t.Fatalf("re-parse of %q: %q, %v", ns, again, err)
		}
	})
}

// FuzzNormalizeName: never panics, is idempotent, and its key has no
// upper-case letters, no surrounding or doubled spaces.
func FuzzNormalizeName(f *testing.F) {
	for _, s := range []string{"  Bob   SMITH. ", "C++", "C#", "\"Alice\"", "(ML team)", "Ｆｕｌｌ", "ﬁ", "İstanbul", "..", "", "\u00a0x\u2003y"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		k := kgmem.NormalizeName(s)
		if again := kgmem.NormalizeName(k); again != k {
			t.Fatalf("NormalizeName not idempotent: %q -> %q -> %q", s, k, again)
		}
		if k != strings.TrimSpace(k) || strings.Contains(k, "  ") {
			t.Fatalf("NormalizeName(%q) = %q has stray spaces", s, k)
		}
	})
}

// FuzzNamespaceLabels: any labels either encode to a valid namespace whose
// Labels are exactly them, or are refused with ErrInvalid; and any
// namespace that has Labels is the encoding of those labels.
func FuzzNamespaceLabels(f *testing.F) {
	for _, s := range []string{"memories\x1fuser 42", "a/b", ".", "ü\x1f🦜", "", "a.2Fb", "\x00", strings.Repeat("é", 21)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, joined string) {
		labels := strings.Split(joined, "\x1f")
		ns, err := kgmem.NamespaceFromLabels(labels...)
		if err != nil {
			if !errors.Is(err, kgmem.ErrInvalid) {
				t.Fatalf("NamespaceFromLabels(%q): %v is not ErrInvalid", labels, err)
			}
		} else {
			if _, perr := kgmem.ParseNamespace(string(ns)); perr != nil {
				t.Fatalf("NamespaceFromLabels(%q) = %q, not a valid namespace: %v", labels, ns, perr)
			}
			back, lerr := ns.Labels()
			if lerr != nil || strings.Join(back, "\x1f") != joined {
				t.Fatalf("round trip of %q via %q gave %q, %v", labels, ns, back, lerr)
			}
		}
		// The other way: a namespace with labels is their one spelling.
		if got, lerr := kgmem.Namespace(joined).Labels(); lerr == nil {
			if again, err := kgmem.NamespaceFromLabels(got...); err != nil || string(again) != joined {
				t.Fatalf("%q has labels %q, which encode to %q, %v", joined, got, again, err)
			}
		}
	})
}
