package triples

import (
	"testing"

	"github.com/kgmem/kgmem"
)

// TestCardinalityTableIsConsistent: every spelling in the table means one
// relation, in one voice, and never shadows a canonical predicate.
func TestCardinalityTableIsConsistent(t *testing.T) {
	active, passive := tableSynonyms()
	for k, v := range defaultSynonyms {
		if w, ok := active[k]; ok && w != v {
			t.Errorf("%q: default synonym of %q, table synonym of %q", k, v, w)
		}
		if _, ok := passive[k]; ok {
			t.Errorf("%q is both an active default synonym and a table passive", k)
		}
	}
	for k := range active {
		if _, ok := passive[k]; ok {
			t.Errorf("%q is both active and passive", k)
		}
		if _, ok := relationsByCanon[k]; ok {
			t.Errorf("synonym %q is also a canonical predicate", k)
		}
	}
	for _, r := range cardinalityTable {
		if !r.card.Valid() || r.card == kgmem.CardinalityMany {
			t.Errorf("%s: cardinality %q", r.canon, r.card)
		}
		if got, err := NormalizePredicate(r.canon); err != nil || got != r.canon {
			t.Errorf("canonical %q normalises to %q (%v)", r.canon, got, err)
		}
	}
}

func TestBuiltinCardinality(t *testing.T) {
	tests := []struct {
		pred string
		want kgmem.Cardinality
	}{
		{"lives in", kgmem.CardinalityOneObject},
		{"Resides In", kgmem.CardinalityOneObject},
		{"is employed by", kgmem.CardinalityOneObject},
		{"employs", kgmem.CardinalityOneObject}, // passive: Acme employs Ann = Ann works at Acme
		{"is the CEO of", kgmem.CardinalityOneSubject},
		{"has CEO", kgmem.CardinalityOneSubject},
		{"is led by", kgmem.CardinalityOneSubject},
		{"is married to", kgmem.CardinalityOneEach},
		{"is the wife of", kgmem.CardinalityOneEach},
		{"has favourite colour", kgmem.CardinalityOneObject},
		{"age is", kgmem.CardinalityOneObject},
		{"likes", kgmem.CardinalityMany},
		{"doesn't live in", kgmem.CardinalityMany},
		{"visited", kgmem.CardinalityMany},
		{"!!!", kgmem.CardinalityMany},
	}
	for _, tt := range tests {
		if got := BuiltinCardinality(tt.pred); got != tt.want {
			t.Errorf("BuiltinCardinality(%q) = %q, want %q", tt.pred, got, tt.want)
		}
	}
}

func TestPassiveSpellingsSwap(t *testing.T) {
	n := NewPredicateNormalizer(nil)
	for _, tt := range []struct{ in, want string }{
		{"is led by", "leads"}, {"is run by", "leads"}, {"has CEO", "is_ceo_of"}, {"is chaired by", "chairs"},
		{"is owned by", "owns"}, {"employs", "works_at"}, {"is home to", "lives_in"}, {"is captained by", "is_captain_of"},
	} {
		got, swap, err := n.normalize(tt.in)
		if err != nil || got != tt.want || !swap {
			t.Errorf("%q → %q swap %v (%v), want %q swapped", tt.in, got, swap, err, tt.want)
		}
	}
}

func TestSpecificName(t *testing.T) {
	for name, want := range map[string]bool{"Villa Rosa": true, "Tesla Model 3": true, "12 Elm Street": true,
		"a bike": false, "My car": false, "bike": false, "An Old House": false} {
		if got := specificName(name); got != want {
			t.Errorf("specificName(%q) = %v, want %v", name, got, want)
		}
	}
}

func TestCleanEntityNameRemovesFormatCharacters(t *testing.T) {
	for in, want := range map[string]string{
		"Alice\u200b": "Alice", "\u202eBob\u202c": "Bob", "\ufeffDa\u00adna": "Dana", "Ｃａｒｌ": "Carl",
		"علی\u200cرضا": "علی\u200cرضا", "Ann\u200d": "Ann", "\u2066Eve\u2069": "Eve",
	} {
		if got := CleanEntityName(in); got != want {
			t.Errorf("CleanEntityName(%q) = %q, want %q", in, got, want)
		}
		if kgmem.NormalizeName(in) != kgmem.NormalizeName(want) {
			t.Errorf("%q and %q do not match", in, want)
		}
	}
}
