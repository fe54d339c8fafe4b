package sqlite_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

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

// TestSearchSkipsManyExpiredFacts buries three current facts under fifty
// expired ones that match better, so the default search must look past a
// first batch of ranked rows to fill its page.
func TestSearchSkipsManyExpiredFacts(t *testing.T) {
	s, _ := openTemp(t)
	ns := kgmem.Namespace("fold/expired")
	e := graphtest.Entity(ns, "ent_ex", "E")
	cs := kgmem.ChangeSet{Namespace: ns, Entities: []kgmem.Entity{e}}
	for i := range 50 {
		f := graphtest.Fact(ns, fmt.Sprintf("fact_ex_old_%02d", i), e.ID, "said", e.ID, "alpha alpha alpha")
		f.InvalidAt, f.ExpiredAt = time.Unix(1, 0), time.Unix(2, 0)
		cs.Facts = append(cs.Facts, f)
	}
	for i := range 3 {
		cs.Facts = append(cs.Facts, graphtest.Fact(ns, fmt.Sprintf("fact_ex_cur_%d", i), e.ID, "says", e.ID, "alpha and a much longer sentence around it"))
	}
	if err := s.Apply(t.Context(), cs); err != nil {
		t.Fatal(err)
	}
	hits, err := s.SearchText(t.Context(), ns, kgmem.TextQuery{Text: "alpha", Kinds: []kgmem.Kind{kgmem.KindFact}, Limit: 2})
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) != 2 || !strings.HasPrefix(hits[0].ID, "fact_ex_cur_") || !strings.HasPrefix(hits[1].ID, "fact_ex_cur_") {
		t.Fatalf("hits = %v, want two current facts", hits)
	}
	hits, err = s.SearchText(t.Context(), ns, kgmem.TextQuery{Text: "alpha", Kinds: []kgmem.Kind{kgmem.KindFact}, Limit: 5, IncludeExpired: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) != 5 || !strings.HasPrefix(hits[0].ID, "fact_ex_old_") {
		t.Fatalf("with history: hits = %v, want five, expired first", hits)
	}
}
