package triples

import (
	"errors"
	"strings"
	"testing"

	"github.com/kgmem/kgmem"
)

func TestNormalizePredicate(t *testing.T) {
	tests := []struct {
		in, want string
	}{
		{"leads", "leads"},
		{"Leads", "leads"},
		{"  is manager of ", "manages"},
		{"IS_MANAGER_OF", "manages"},
		{"worksAt", "works_at"},
		{"works for", "works_at"},
		{"is employed by", "works_at"},
		{"now leads", "leads"},
		{"heads", "leads"},
		{"loves", "likes"},
		{"enjoys", "likes"},
		{"is fond of", "likes"},
		{"hates", "dislikes"},
		{"doesn't like", "not_likes"},
		{"does not like any more", "not_likes"},
		{"no longer likes", "not_likes"},
		{"not_likes", "not_likes"},
		{"don’t enjoy", "not_likes"},
		{"!!!works---at???", "works_at"},
		{"lives-in", "lives_in"},
		{"Café_Owner_Of", "cafe_owner_of"},
		{"größer als", "grosser_als"},
		{"好き", "好き"},
		{"знает", "знает"},
		{"has 3D printer", "has_3d_printer"},
		{"a.b/c\\d", "a_b_c_d"},
		{"<script>alert(1)</script>", "script_alert_1_script"},
		{"MERGE (n) DETACH DELETE n //", "merge_n_detach_delete_n"},
		{strings.Repeat("abcdefghij", 6) + "abcd", strings.Repeat("abcdefghij", 6) + "abcd"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := NormalizePredicate(tt.in)
			if err != nil {
				t.Fatalf("NormalizePredicate(%q): %v", tt.in, err)
			}
			if got != tt.want {
				t.Errorf("NormalizePredicate(%q) = %q, want %q", tt.in, got, tt.want)
			}
			if len(got) > MaxPredicateLen {
				t.Errorf("%q is longer than %d bytes", got, MaxPredicateLen)
			}
			again, err := NormalizePredicate(got)
			if err != nil || again != got {
				t.Errorf("not idempotent: %q → %q (%v)", got, again, err)
			}
		})
	}
}

// TestNormalizePredicateTooLong: past MaxPredicateLen a predicate is
// rejected, never cut, so two long predicates never merge into one.
func TestNormalizePredicateTooLong(t *testing.T) {
	for _, in := range []string{
		strings.Repeat("very_", 20) + "long",
		strings.Repeat("abcdefghij", 6) + "abcde",
		"x_" + strings.Repeat("y", 70),
		"doesn't " + strings.Repeat("a", 61), // 65 bytes once negated
	} {
		got, err := NormalizePredicate(in)
		var fe *kgmem.FieldError
		if !errors.Is(err, kgmem.ErrInvalid) || !errors.As(err, &fe) || fe.Field != "predicate" {
			t.Errorf("NormalizePredicate(%q) = %q, %v; want a predicate FieldError", in, got, err)
		}
	}
}

func TestNormalizePredicateInvalid(t *testing.T) {
	for _, in := range []string{"", "   ", "!!!", "—", "💥💥"} {
		if got, err := NormalizePredicate(in); !errors.Is(err, kgmem.ErrInvalid) {
			t.Errorf("NormalizePredicate(%q) = %q, %v; want ErrInvalid", in, got, err)
		}
	}
}

func TestPredicateNormalizerSynonymsAndInverse(t *testing.T) {
	n := NewPredicateNormalizer(map[string]string{"Is Boss Of": "manages", "adores": "loves_deeply"})
	tests := []struct {
		in, want string
		swap     bool
	}{
		{"is boss of", "manages", false},
		{"adores", "loves_deeply", false},
		{"likes", "likes", false},
		{"is managed by", "manages", true},
		{"is led by", "leads", true},
		{"employs", "works_at", true},
	}
	for _, tt := range tests {
		got, swap, err := n.normalize(tt.in)
		if err != nil || got != tt.want || swap != tt.swap {
			t.Errorf("normalize(%q) = %q, %v, %v; want %q, %v", tt.in, got, swap, err, tt.want, tt.swap)
		}
	}
}

func TestOpposite(t *testing.T) {
	tests := []struct {
		a, b string
		want bool
	}{
		{"likes", "not_likes", true},
		{"not_likes", "likes", true},
		{"likes", "dislikes", true},
		{"dislikes", "likes", true},
		{"not_likes", "not_dislikes", false},
		{"likes", "likes", false},
		{"works_at", "not_works_at", true},
		{"leads", "manages", false},
	}
	for _, tt := range tests {
		if got := opposite(tt.a, tt.b); got != tt.want {
			t.Errorf("opposite(%q, %q) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
	}
}
