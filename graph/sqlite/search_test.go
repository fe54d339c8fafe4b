package sqlite_test

import (
	"testing"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/graph/graphtest"
)

// TestSearchFolding checks what the tokenizer adds on top of the contract:
// diacritics and case folding and Porter stemming, through the namespace word
// prefix.
func TestSearchFolding(t *testing.T) {
	s, _ := openTemp(t)
	ns := kgmem.Namespace("fold/a")
	e := graphtest.Entity(ns, "ent_fo_bob", "Bob")
	facts := []kgmem.Fact{
		graphtest.Fact(ns, "fact_fo_1", e.ID, "leads", e.ID, "Bob leads the engineering teams in Zürich."),
		graphtest.Fact(ns, "fact_fo_2", e.ID, "likes", e.ID, "Bob likes yellow umbrellas."),
	}
	if err := s.Apply(t.Context(), kgmem.ChangeSet{Namespace: ns, Entities: []kgmem.Entity{e}, Facts: facts}); err != nil {
		t.Fatal(err)
	}
	tests := []struct{ query, want string }{
		{"leading", "fact_fo_1"},
		{"lead", "fact_fo_1"},
		{"team", "fact_fo_1"},
		{"engineer", "fact_fo_1"},
		{"ZURICH", "fact_fo_1"},
		{"zürich", "fact_fo_1"},
		{"Zu\u0308rich", "fact_fo_1"}, // decomposed
		{"umbrella", "fact_fo_2"},
		{"yellows", "fact_fo_2"},
		{"liking", "fact_fo_2"},
	}
	for _, tc := range tests {
		hits, err := s.SearchText(t.Context(), ns, kgmem.TextQuery{Text: tc.query, Kinds: []kgmem.Kind{kgmem.KindFact}})
		if err != nil {
			t.Fatal(err)
		}
		if len(hits) != 1 || hits[0].ID != tc.want {
			t.Errorf("SearchText(%q) = %v, want only %s", tc.query, hits, tc.want)
		}
	}
}
