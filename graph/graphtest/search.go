package graphtest

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/kgmem/kgmem"
)

// testSearch covers SearchText: ranking of clearly better matches, kinds,
// expired facts, limits, and hostile query text. It never asserts score values,
// which differ between BM25 implementations.
func testSearch(t *testing.T, open Opener) {
	h := newH(t, open)
	ns := kgmem.Namespace("search/main")
	bob, acme, alice := Entity(ns, "ent_se_bob", "Bob Marley"), Entity(ns, "ent_se_acme", "Acme Robotics", "Acme"), Entity(ns, "ent_se_alice", "Alice")
	acme.Type = kgmem.TypeOrganization
	club := Entity(ns, "ent_se_club", "Sourdough Starter Club")
	club.Type = kgmem.TypeOrganization
	leads := Fact(ns, "fact_se_leads", bob.ID, "leads", acme.ID, "Bob leads the machine learning team at Acme Robotics.")
	team := Fact(ns, "fact_se_team", alice.ID, "joined", acme.ID, "Alice joined a team.")
	bakes := Fact(ns, "fact_se_bakes", alice.ID, "bakes", club.ID, "Alice bakes sourdough bread every Sunday with the club.")
	violin := Fact(ns, "fact_se_violin", bob.ID, "plays", bob.ID, "Bob plays the violin in an orchestra.")
	moved := Fact(ns, "fact_se_moved", bob.ID, "lives_in", acme.ID, "Bob lived in the lighthouse of Acme.")
	moved.InvalidAt, moved.ExpiredAt = at(1), at(2)
	hike := Episode(ns, "ep_se_hike", "Dave", "I went hiking in the Alps with my dog Rex.")
	chat := Episode(ns, "ep_se_chat", "Alice", "Sourdough needs a lot of patience, honestly.")
	h.apply(kgmem.ChangeSet{
		Namespace: ns,
		Episodes:  []kgmem.Episode{hike, chat},
		Entities:  []kgmem.Entity{bob, acme, alice, club},
		Facts:     []kgmem.Fact{leads, team, bakes, violin, moved},
	})
	fact, entity, episode := []kgmem.Kind{kgmem.KindFact}, []kgmem.Kind{kgmem.KindEntity}, []kgmem.Kind{kgmem.KindEpisode}

	tests := []struct {
		name      string
		q         kgmem.TextQuery
		wantFirst string
		want      []string // must be among the hits
		wantNot   []string // must not be among the hits
		kinds     []kgmem.Kind
	}{
		{name: "AllTermsBeatOne", q: kgmem.TextQuery{Text: "machine learning team", Kinds: fact}, wantFirst: leads.ID, want: []string{team.ID}},
		{name: "FactByRareTerm", q: kgmem.TextQuery{Text: "violin"}, wantFirst: violin.ID},
		{name: "CaseInsensitive", q: kgmem.TextQuery{Text: "VIOLIN Orchestra"}, wantFirst: violin.ID},
		{name: "FactKind", q: kgmem.TextQuery{Text: "sourdough bread", Kinds: fact}, wantFirst: bakes.ID, wantNot: []string{club.ID, chat.ID}, kinds: fact},
		{name: "EntityKind", q: kgmem.TextQuery{Text: "sourdough club", Kinds: entity}, wantFirst: club.ID, wantNot: []string{bakes.ID, chat.ID}, kinds: entity},
		{name: "EntityAlias", q: kgmem.TextQuery{Text: "acme", Kinds: entity}, wantFirst: acme.ID, kinds: entity},
		{name: "EpisodeKind", q: kgmem.TextQuery{Text: "sourdough patience", Kinds: episode}, wantFirst: chat.ID, kinds: episode},
		{name: "EpisodeBySpeaker", q: kgmem.TextQuery{Text: "dave", Kinds: episode}, wantFirst: hike.ID, kinds: episode},
		{name: "TwoKinds", q: kgmem.TextQuery{Text: "sourdough", Kinds: []kgmem.Kind{kgmem.KindFact, kgmem.KindEpisode}},
			want: []string{bakes.ID, chat.ID}, wantNot: []string{club.ID}, kinds: []kgmem.Kind{kgmem.KindFact, kgmem.KindEpisode}},
		{name: "AllKinds", q: kgmem.TextQuery{Text: "sourdough"}, want: []string{bakes.ID, chat.ID, club.ID}},
		{name: "ExpiredHidden", q: kgmem.TextQuery{Text: "lighthouse"}, wantNot: []string{moved.ID}},
		{name: "ExpiredIncluded", q: kgmem.TextQuery{Text: "lighthouse", IncludeExpired: true}, wantFirst: moved.ID},
		{name: "NoMatch", q: kgmem.TextQuery{Text: "zeppelin"}, wantNot: []string{leads.ID, bob.ID, hike.ID}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			hits := h.search(ns, tc.q)
			checkHits(t, hits)
			ids := hitIDs(hits)
			if tc.wantFirst != "" && (len(ids) == 0 || ids[0] != tc.wantFirst) {
				t.Fatalf("hits %v: want %s first", hits, tc.wantFirst)
			}
			for _, id := range tc.want {
				if !slices.Contains(ids, id) {
					t.Errorf("hits %v: want %s among them", hits, id)
				}
			}
			for _, id := range tc.wantNot {
				if slices.Contains(ids, id) {
					t.Errorf("hits %v: want no %s", hits, id)
				}
			}
			for _, hit := range hits {
				if tc.kinds != nil && !slices.Contains(tc.kinds, hit.Kind) {
					t.Errorf("hit %+v: kind not in %v", hit, tc.kinds)
				}
			}
		})
	}
	t.Run("KindsMatchIDs", func(t *testing.T) {
		want := map[string]kgmem.Kind{bakes.ID: kgmem.KindFact, chat.ID: kgmem.KindEpisode, club.ID: kgmem.KindEntity}
		for _, hit := range h.search(ns, kgmem.TextQuery{Text: "sourdough"}) {
			if k, ok := want[hit.ID]; ok && k != hit.Kind {
				t.Errorf("hit %+v: want kind %s", hit, k)
			}
		}
	})
	t.Run("Limit", func(t *testing.T) {
		all := h.search(ns, kgmem.TextQuery{Text: "bob alice acme sourdough team"})
		if len(all) < 4 {
			t.Fatalf("want at least 4 hits, got %v", all)
		}
		if got := h.search(ns, kgmem.TextQuery{Text: "bob alice acme sourdough team", Limit: 2}); len(got) != 2 {
			t.Fatalf("Limit 2: got %d hits %v", len(got), got)
		}
	})
	t.Run("LimitEach", func(t *testing.T) {
		// "sourdough" finds one fact, one episode and one entity: with Limit
		// 1 each kind keeps its best, as a search of that kind alone would.
		q := kgmem.TextQuery{Text: "sourdough", Limit: 1, LimitEach: true}
		each := h.search(ns, q)
		checkHits(t, each)
		if ids := hitIDs(each); len(ids) != 3 || !slices.Contains(ids, bakes.ID) || !slices.Contains(ids, chat.ID) || !slices.Contains(ids, club.ID) {
			t.Fatalf("Limit 1 of each kind: %v, want %s, %s and %s", each, bakes.ID, chat.ID, club.ID)
		}
		for _, k := range []kgmem.Kind{kgmem.KindFact, kgmem.KindEpisode, kgmem.KindEntity} {
			alone := h.search(ns, kgmem.TextQuery{Text: "sourdough", Limit: 1, Kinds: []kgmem.Kind{k}})
			if len(alone) != 1 || !slices.ContainsFunc(each, func(hit kgmem.Hit) bool { return hit.Kind == k && hit.ID == alone[0].ID }) {
				t.Errorf("kind %s alone found %v; with the others %v", k, alone, each)
			}
		}
		q.Kinds = []kgmem.Kind{kgmem.KindEpisode, kgmem.KindFact}
		if ids := hitIDs(h.search(ns, q)); len(ids) != 2 || !slices.Contains(ids, bakes.ID) || !slices.Contains(ids, chat.ID) {
			t.Errorf("Limit 1 of facts and episodes: %v, want %s and %s", ids, bakes.ID, chat.ID)
		}
		q.LimitEach = false
		if got := h.search(ns, q); len(got) != 1 {
			t.Errorf("Limit 1 of all: %v, want one hit", got)
		}
	})
	t.Run("DefaultLimit", func(t *testing.T) {
		h := newH(t, open)
		ns := kgmem.Namespace("search/limit")
		e := Entity(ns, "ent_sl", "Quokka")
		cs := kgmem.ChangeSet{Namespace: ns, Entities: []kgmem.Entity{e}}
		for i := range 15 {
			cs.Facts = append(cs.Facts, Fact(ns, fmt.Sprintf("fact_sl_%02d", i), e.ID, "is", e.ID, fmt.Sprintf("The quokka smiles %d times.", i)))
		}
		h.apply(cs)
		if n := len(h.search(ns, kgmem.TextQuery{Text: "smiles", Kinds: []kgmem.Kind{kgmem.KindFact}})); n != 10 {
			t.Fatalf("Limit 0: got %d hits, want the default 10", n)
		}
	})
	t.Run("HostileText", func(t *testing.T) { testHostileSearch(t, h, ns) })
}

// checkHits fails the test unless every hit has a positive score and a valid
// kind, and the hits are sorted best first without duplicates.
func checkHits(t *testing.T, hits []kgmem.Hit) {
	t.Helper()
	seen := map[string]bool{}
	for i, hit := range hits {
		if !(hit.Score > 0) {
			t.Errorf("hit %d %+v: score must be positive", i, hit)
		}
		if !hit.Kind.Valid() {
			t.Errorf("hit %d %+v: invalid kind", i, hit)
		}
		if i > 0 && hit.Score > hits[i-1].Score {
			t.Errorf("hits not sorted best first: %v", hits)
		}
		if seen[string(hit.Kind)+hit.ID] {
			t.Errorf("hit %+v returned twice", hit)
		}
		seen[string(hit.Kind)+hit.ID] = true
	}
}

// hostileQueries is query text that must never be a syntax error or touch data.
var hostileQueries = []string{
	`"`, `""`, `"unterminated`, `'`, `''`, `\`, `\"`,
	`(`, `)`, `())(`, `AND`, `OR`, `NOT`, `AND OR NOT`, `bob AND`, `OR bob`, `NOT bob`, `bob NOT`,
	`NEAR(bob alice)`, `NEAR`, `*`, `bob*`, `*bob`, `^bob`, `+bob -alice`, `bob~2`, `bob^3`,
	`:`, `text:bob`, `{text}: bob`, `fact:`, `col : "x"`, `[a TO z]`, `/regex.*/`, `?`, `!`, `&&`, `||`,
	`') MATCH (n) DETACH DELETE n //`, `"}) MATCH (n) DETACH DELETE n RETURN 1 //`,
	`'; DROP TABLE facts; --`, `1' OR '1'='1`, `%`, `_`, `$param`, "`backtick`",
	`🎉🔥`, `bob 🎉 violin`, "\x00", "tab\tnew\nline", `the of and a`, `   `, ``,
	`ünïcödé ÄÖÜ`, `東京 チューリッヒ`, `مرحبا`, "a\U0010FFFF", strings.Repeat("bob ", 500),
}

func testHostileSearch(t *testing.T, h *h, ns kgmem.Namespace) {
	for _, q := range hostileQueries {
		hits, err := h.s.SearchText(h.ctx, ns, kgmem.TextQuery{Text: q, IncludeExpired: true})
		if err != nil {
			t.Errorf("SearchText(%q): %v", q, err)
			continue
		}
		checkHits(t, hits)
	}
	t.Run("NoTermsNoHits", func(t *testing.T) {
		for _, q := range []string{"", "   ", `"`, `()`, `*`, `:`, `🎉🔥`, `!!! ??? ...`} {
			if hits := h.search(ns, kgmem.TextQuery{Text: q}); len(hits) != 0 {
				t.Errorf("SearchText(%q) = %v, want no hits", q, hits)
			}
		}
	})
	t.Run("TermsStillMatch", func(t *testing.T) {
		for _, q := range []string{`"violin`, `violin)`, `violin AND`, `NOT violin`, `violin*`, `text:violin`, `violin 🎉`, `'violin'`} {
			hits := h.search(ns, kgmem.TextQuery{Text: q})
			if len(hits) == 0 || hits[0].ID != "fact_se_violin" {
				t.Errorf("SearchText(%q) = %v, want fact_se_violin first", q, hits)
			}
		}
	})
	t.Run("DataIntact", func(t *testing.T) {
		sameIDs(t, "entities", h.findEntities(ns, kgmem.EntityFilter{}), []string{"ent_se_acme", "ent_se_alice", "ent_se_bob", "ent_se_club"})
		if n := len(h.listFacts(ns, kgmem.FactFilter{IncludeExpired: true})); n != 5 {
			t.Errorf("facts after hostile queries: %d, want 5", n)
		}
	})
}
