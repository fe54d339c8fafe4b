package auth_test

import (
	"strings"
	"testing"

	"github.com/kgmem/kgmem/auth"
)

// FuzzParseKey checks that key parsing never panics, accepts only the
// documented shape, and never echoes the input in its error.
func FuzzParseKey(f *testing.F) {
	for _, s := range []string{"", "kgm_", "kgm_0123456789ab_", "kgm_0123456789ab_" + strings.Repeat("a", 52), "Bearer kgm_x", "kgm_0123456789AB_" + strings.Repeat("a", 52)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		id, err := auth.ParseKey(s)
		if err != nil {
			if len(s) > 8 && strings.Contains(err.Error(), s) {
				t.Fatalf("error %q echoes the key", err)
			}
			return
		}
		if !strings.HasPrefix(s, auth.KeyPrefix+id+"_") || !auth.ValidID(id) {
			t.Fatalf("ParseKey(%q) accepted id %q", s, id)
		}
		if len(s) != len(auth.KeyPrefix)+12+1+52 {
			t.Fatalf("ParseKey(%q) accepted length %d", s, len(s))
		}
	})
}
