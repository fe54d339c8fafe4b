package graphtest

import (
	"math"
	"testing"
	"time"

	"github.com/kgmem/kgmem"
)

// testApply covers writes: round trips of every field, episode
// insert-if-absent, fact upsert and invalidation, atomicity and validation.
func testApply(t *testing.T, open Opener) {
	t.Run("RoundTrip", func(t *testing.T) { testRoundTrip(t, open) })
	t.Run("EpisodeInsertIfAbsent", func(t *testing.T) { testEpisodeInsertIfAbsent(t, open) })
	t.Run("EntityUpsert", func(t *testing.T) { testEntityUpsert(t, open) })
	t.Run("FactUpsertAndInvalidation", func(t *testing.T) { testFactUpsert(t, open) })
	t.Run("Mentions", func(t *testing.T) { testMentions(t, open) })
	t.Run("Atomicity", func(t *testing.T) { testAtomicity(t, open) })
	t.Run("Validation", func(t *testing.T) { testApplyValidation(t, open) })
	t.Run("EmptyChangeSet", func(t *testing.T) {
		h := newH(t, open)
		h.apply(kgmem.ChangeSet{Namespace: "apply/empty"})
	})
}

func testRoundTrip(t *testing.T, open Opener) {
	h := newH(t, open)
	ns := kgmem.Namespace("apply/roundtrip")
	// A zone that is not UTC and sub-millisecond digits: stores return UTC at
	// (at least) millisecond precision.
	paris := time.FixedZone("CET", 3600)
	tm := func(hours int) time.Time { return at(hours).In(paris).Add(123 * time.Microsecond) }

	zurich := kgmem.Entity{
		ID: "ent_rt_zurich", Namespace: ns, Name: "Zürich", Aliases: []string{"Zuerich", "チューリッヒ"},
		Type: kgmem.TypePlace, Summary: "City in Switzerland 🇨🇭",
		Attributes: map[string]any{
			"population": 421878.0, "capital": false, "canton": "ZH",
			"tags":  []any{"lake", "banks", 3.5},
			"geo":   map[string]any{"lat": 47.3769, "lon": 8.5417, "alt": map[string]any{"m": 408.0}},
			"empty": map[string]any{},
		},
		CreatedAt: tm(0), UpdatedAt: tm(1),
		Decay: kgmem.DecayState{Stability: 12.5, LastReinforcedAt: tm(2), Reinforcements: 3, Pinned: true},
	}
	bob := kgmem.Entity{
		ID: "ent_rt_bob", Namespace: ns, Name: "Bob Smith", Aliases: []string{"Bob"}, Type: kgmem.TypePerson,
		CreatedAt: tm(0), UpdatedAt: tm(0),
		Decay: kgmem.DecayState{ForgottenAt: tm(5)},
	}
	noAttrs := kgmem.Entity{ID: "ent_rt_plain", Namespace: ns, Name: "Plain", Type: "UserDefinedType", CreatedAt: tm(0), UpdatedAt: tm(0)}
	ep := kgmem.Episode{
		ID: "ep_rt_1", Namespace: ns, ThreadID: "t-1", MessageID: "m-1", Role: "user", Name: "Bob",
		Content:   "I moved to Zürich 🏔️ last spring. \"Quotes\" and 'apostrophes'\nnew line",
		Timestamp: tm(-3), CreatedAt: tm(0),
		Metadata: map[string]any{"client": "ios", "nested": map[string]any{"k": []any{1.0, "two"}}},
		Decay:    kgmem.DecayState{Stability: 1.25, Reinforcements: 1, LastReinforcedAt: tm(1)},
	}
	bareEp := kgmem.Episode{ID: "ep_rt_2", Namespace: ns, MessageID: "m-2", Content: "bare", Timestamp: tm(-2)}
	lives := kgmem.Fact{
		ID: "fact_rt_lives", Namespace: ns, SubjectID: bob.ID, Predicate: "lives_in", ObjectID: zurich.ID,
		SubjectName: "ignored on write", ObjectName: "ignored too",
		Text: "Bob lives in Zürich.", Confidence: 0.75, Importance: 7,
		Episodes:   []string{ep.ID, bareEp.ID},
		Attributes: map[string]any{"source": "chat", "score": 0.5, "list": []any{"a", map[string]any{"b": true}}},
		ValidAt:    tm(-8760), InvalidAt: tm(100), CreatedAt: tm(0), ExpiredAt: tm(101),
		Decay: kgmem.DecayState{Stability: 30, LastReinforcedAt: tm(3), Reinforcements: 9, Pinned: true, ForgottenAt: tm(4)},
	}
	bare := kgmem.Fact{ID: "fact_rt_bare", Namespace: ns, SubjectID: zurich.ID, Predicate: "is_a", ObjectID: noAttrs.ID}

	h.apply(kgmem.ChangeSet{
		Namespace: ns,
		Episodes:  []kgmem.Episode{ep, bareEp},
		Entities:  []kgmem.Entity{zurich, bob, noAttrs},
		Facts:     []kgmem.Fact{lives, bare},
		Mentions:  []kgmem.Mention{{EpisodeID: ep.ID, EntityID: bob.ID}, {EpisodeID: ep.ID, EntityID: zurich.ID}},
	})

	t.Run("Entity", func(t *testing.T) {
		for _, want := range []kgmem.Entity{zurich, bob, noAttrs} {
			checkEntity(t, h.entity(ns, want.ID), want)
		}
	})
	t.Run("EntitiesInOrderOfIDs", func(t *testing.T) {
		es, err := h.s.Entities(h.ctx, ns, []string{noAttrs.ID, "ent_rt_missing", zurich.ID, bob.ID})
		if err != nil {
			t.Fatal(err)
		}
		sameIDs(t, "Entities", entityIDs(es), []string{noAttrs.ID, zurich.ID, bob.ID})
		checkEntity(t, es[1], zurich)
		if es, err := h.s.Entities(h.ctx, ns, nil); err != nil || len(es) != 0 {
			t.Fatalf("Entities(nil) = %v, %v; want none, no error", es, err)
		}
	})
	t.Run("Fact", func(t *testing.T) {
		checkFact(t, h.fact(ns, lives.ID), lives, bob.Name, zurich.Name)
		checkFact(t, h.fact(ns, bare.ID), bare, zurich.Name, noAttrs.Name)
	})
	t.Run("FactsInOrderOfIDs", func(t *testing.T) {
		fs, err := h.s.Facts(h.ctx, ns, []string{bare.ID, "fact_rt_missing", lives.ID})
		if err != nil {
			t.Fatal(err)
		}
		sameIDs(t, "Facts", factIDs(fs), []string{bare.ID, lives.ID})
		checkFact(t, fs[1], lives, bob.Name, zurich.Name)
	})
	t.Run("Episodes", func(t *testing.T) {
		eps := h.episodes(ns, bareEp.ID, "ep_rt_missing", ep.ID)
		sameIDs(t, "Episodes", episodeIDs(eps), []string{bareEp.ID, ep.ID})
		checkEpisode(t, eps[0], bareEp)
		checkEpisode(t, eps[1], ep)
	})
	t.Run("ListEpisodes", func(t *testing.T) {
		eps, err := h.s.ListEpisodes(h.ctx, ns, kgmem.Page{})
		if err != nil {
			t.Fatal(err)
		}
		sameIDs(t, "ListEpisodes", episodeIDs(eps), []string{ep.ID, bareEp.ID})
		checkEpisode(t, eps[0], ep)
	})
	t.Run("NamesFollowRenames", func(t *testing.T) {
		renamed := bob
		renamed.Name = "Robert Smith"
		h.apply(kgmem.ChangeSet{Namespace: ns, Entities: []kgmem.Entity{renamed}})
		if got := h.fact(ns, lives.ID).SubjectName; got != renamed.Name {
			t.Fatalf("SubjectName after rename = %q, want %q", got, renamed.Name)
		}
	})
}

func testEpisodeInsertIfAbsent(t *testing.T, open Opener) {
	h := newH(t, open)
	ns := kgmem.Namespace("apply/episodes")
	first := Episode(ns, "ep_iia_1", "Ann", "the first version")
	first.Metadata = map[string]any{"v": 1.0}
	h.apply(kgmem.ChangeSet{Namespace: ns, Episodes: []kgmem.Episode{first}})

	second := first
	second.Content = "a rewritten version"
	second.Name = "Mallory"
	second.Metadata = map[string]any{"v": 2.0}
	second.Timestamp = at(9)
	other := Episode(ns, "ep_iia_2", "Ann", "a new one")
	h.apply(kgmem.ChangeSet{Namespace: ns, Episodes: []kgmem.Episode{second, other}})

	eps := h.episodes(ns, first.ID, other.ID)
	sameIDs(t, "Episodes", episodeIDs(eps), []string{first.ID, other.ID})
	checkEpisode(t, eps[0], first)
	checkEpisode(t, eps[1], other)

	// The untouched episode stays out of search for the rewritten text.
	for _, hit := range h.search(ns, kgmem.TextQuery{Text: "rewritten", Kinds: []kgmem.Kind{kgmem.KindEpisode}}) {
		t.Fatalf("search for the rejected rewrite found %+v", hit)
	}
}

func testEntityUpsert(t *testing.T, open Opener) {
	h := newH(t, open)
	ns := kgmem.Namespace("apply/entities")
	e := Entity(ns, "ent_up_1", "Alice Old", "Ally")
	e.Attributes = map[string]any{"old": true}
	h.apply(kgmem.ChangeSet{Namespace: ns, Entities: []kgmem.Entity{e}})

	e2 := kgmem.Entity{
		ID: e.ID, Namespace: ns, Name: "Alice New", Aliases: []string{"Al"}, Type: kgmem.TypeOrganization,
		Summary: "renamed", Attributes: map[string]any{"new": "yes"}, CreatedAt: e.CreatedAt, UpdatedAt: at(5),
	}
	h.apply(kgmem.ChangeSet{Namespace: ns, Entities: []kgmem.Entity{e2}})
	checkEntity(t, h.entity(ns, e.ID), e2)

	// Old names and aliases no longer match; new ones do.
	sameIDs(t, "find old alias", h.findEntities(ns, kgmem.EntityFilter{Names: []string{"Ally"}}), nil)
	sameIDs(t, "find old name", h.findEntities(ns, kgmem.EntityFilter{Names: []string{"alice old"}}), nil)
	sameIDs(t, "find new alias", h.findEntities(ns, kgmem.EntityFilter{Names: []string{"AL"}}), []string{e.ID})
	sameIDs(t, "search old name", hitIDs(h.search(ns, kgmem.TextQuery{Text: "Ally", Kinds: []kgmem.Kind{kgmem.KindEntity}})), nil)
	sameIDs(t, "search new name", hitIDs(h.search(ns, kgmem.TextQuery{Text: "alice", Kinds: []kgmem.Kind{kgmem.KindEntity}})), []string{e.ID})
}

func testFactUpsert(t *testing.T, open Opener) {
	h := newH(t, open)
	ns := kgmem.Namespace("apply/facts")
	bob, ml, web := Entity(ns, "ent_fu_bob", "Bob"), Entity(ns, "ent_fu_ml", "ML team"), Entity(ns, "ent_fu_web", "Web team")
	f := Fact(ns, "fact_fu_1", bob.ID, "leads", ml.ID, "Bob leads the ML team.")
	f.Episodes = []string{"ep_a"}
	f.Attributes = map[string]any{"a": 1.0}
	h.apply(kgmem.ChangeSet{Namespace: ns, Entities: []kgmem.Entity{bob, ml, web}, Facts: []kgmem.Fact{f}})

	t.Run("ReplacesAllFields", func(t *testing.T) {
		g := f
		g.ObjectID, g.Predicate, g.Text = web.ID, "manages", "Bob manages the web team."
		g.Confidence, g.Importance = 0.3, 2
		g.Episodes = []string{"ep_b", "ep_c"}
		g.Attributes = nil
		g.ValidAt = at(1)
		h.apply(kgmem.ChangeSet{Namespace: ns, Facts: []kgmem.Fact{g}})
		checkFact(t, h.fact(ns, f.ID), g, bob.Name, web.Name)
		sameIDs(t, "search old text", hitIDs(h.search(ns, kgmem.TextQuery{Text: "leads ML", Kinds: []kgmem.Kind{kgmem.KindFact}})), nil)
		sameIDs(t, "search new text", hitIDs(h.search(ns, kgmem.TextQuery{Text: "manages", Kinds: []kgmem.Kind{kgmem.KindFact}})), []string{f.ID})
		sameIDs(t, "by old predicate", h.listFacts(ns, kgmem.FactFilter{Predicate: "leads"}), nil)
		sameIDs(t, "by old object", h.listFacts(ns, kgmem.FactFilter{EntityID: ml.ID}), nil)
		sameIDs(t, "by new object", h.listFacts(ns, kgmem.FactFilter{EntityID: web.ID}), []string{f.ID})
	})
	t.Run("Invalidation", func(t *testing.T) {
		cur := h.fact(ns, f.ID)
		inv := cur
		inv.InvalidAt, inv.ExpiredAt = at(10), at(11)
		h.apply(kgmem.ChangeSet{Namespace: ns, Facts: []kgmem.Fact{inv}})
		checkFact(t, h.fact(ns, f.ID), inv, bob.Name, web.Name)
		sameIDs(t, "current facts", h.listFacts(ns, kgmem.FactFilter{EntityID: bob.ID}), nil)
		sameIDs(t, "with history", h.listFacts(ns, kgmem.FactFilter{EntityID: bob.ID, IncludeExpired: true}), []string{f.ID})
	})
}

func testMentions(t *testing.T, open Opener) {
	h := newH(t, open)
	ns := kgmem.Namespace("apply/mentions")
	ep, e := Episode(ns, "ep_me_1", "Ann", "Ann met Bob"), Entity(ns, "ent_me_bob", "Bob")
	m := kgmem.Mention{EpisodeID: ep.ID, EntityID: e.ID}
	h.apply(kgmem.ChangeSet{Namespace: ns, Episodes: []kgmem.Episode{ep}, Entities: []kgmem.Entity{e}, Mentions: []kgmem.Mention{m, m}})
	// A duplicate of a stored mention is ignored, not an error.
	h.apply(kgmem.ChangeSet{Namespace: ns, Mentions: []kgmem.Mention{m}})

	tests := []struct {
		name string
		m    kgmem.Mention
	}{
		{"MissingEpisode", kgmem.Mention{EpisodeID: "ep_me_missing", EntityID: e.ID}},
		{"MissingEntity", kgmem.Mention{EpisodeID: ep.ID, EntityID: "ent_me_missing"}},
		{"EmptyIDs", kgmem.Mention{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := h.s.Apply(h.ctx, kgmem.ChangeSet{Namespace: ns, Mentions: []kgmem.Mention{tc.m}})
			wantErr(t, "Apply", err, kgmem.ErrInvalid)
		})
	}
}

func testAtomicity(t *testing.T, open Opener) {
	h := newH(t, open)
	ns := kgmem.Namespace("apply/atomic")
	kept := Entity(ns, "ent_at_kept", "Kept")
	h.apply(kgmem.ChangeSet{Namespace: ns, Entities: []kgmem.Entity{kept}})
	keptFact := Fact(ns, "fact_at_kept", kept.ID, "knows", kept.ID, "Kept knows itself.")
	h.apply(kgmem.ChangeSet{Namespace: ns, Facts: []kgmem.Fact{keptFact}})

	changedKept := kept
	changedKept.Name = "Changed"
	changedFact := keptFact
	changedFact.Text = "Changed text."
	tests := []struct {
		name string
		cs   kgmem.ChangeSet
	}{
		{"MissingObject", kgmem.ChangeSet{
			Namespace: ns,
			Episodes:  []kgmem.Episode{Episode(ns, "ep_at_1", "Ann", "atomic episode")},
			Entities:  []kgmem.Entity{Entity(ns, "ent_at_new", "Newcomer"), changedKept},
			Facts: []kgmem.Fact{
				changedFact,
				Fact(ns, "fact_at_ok", "ent_at_new", "knows", kept.ID, "Newcomer knows Kept."),
				Fact(ns, "fact_at_bad", "ent_at_new", "knows", "ent_at_missing", "Newcomer knows a ghost."),
			},
			Mentions: []kgmem.Mention{{EpisodeID: "ep_at_1", EntityID: "ent_at_new"}},
		}},
		{"MissingSubject", kgmem.ChangeSet{
			Namespace: ns,
			Entities:  []kgmem.Entity{Entity(ns, "ent_at_new", "Newcomer")},
			Facts:     []kgmem.Fact{Fact(ns, "fact_at_bad", "ent_at_missing", "knows", "ent_at_new", "A ghost knows Newcomer.")},
		}},
		{"MentionLast", kgmem.ChangeSet{
			Namespace: ns,
			Episodes:  []kgmem.Episode{Episode(ns, "ep_at_1", "Ann", "atomic episode")},
			Entities:  []kgmem.Entity{changedKept},
			Mentions:  []kgmem.Mention{{EpisodeID: "ep_at_1", EntityID: "ent_at_missing"}},
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := h.s.Apply(h.ctx, tc.cs)
			wantErr(t, "Apply", err, kgmem.ErrInvalid)
			if eps := h.episodes(ns, "ep_at_1"); len(eps) != 0 {
				t.Errorf("episode of the failed change set was written: %+v", eps)
			}
			_, err = h.s.Entity(h.ctx, ns, "ent_at_new")
			wantErr(t, "Entity(new)", err, kgmem.ErrNotFound)
			_, err = h.s.Fact(h.ctx, ns, "fact_at_ok")
			wantErr(t, "Fact(ok)", err, kgmem.ErrNotFound)
			checkEntity(t, h.entity(ns, kept.ID), kept)
			checkFact(t, h.fact(ns, keptFact.ID), keptFact, kept.Name, kept.Name)
			sameIDs(t, "search", hitIDs(h.search(ns, kgmem.TextQuery{Text: "newcomer ghost atomic changed"})), nil)
		})
	}
}

func testApplyValidation(t *testing.T, open Opener) {
	h := newH(t, open)
	ns, other := kgmem.Namespace("apply/valid"), kgmem.Namespace("apply/other")
	a := Entity(ns, "ent_va_a", "A")
	h.apply(kgmem.ChangeSet{Namespace: ns, Entities: []kgmem.Entity{a}})
	h.apply(kgmem.ChangeSet{Namespace: other, Entities: []kgmem.Entity{Entity(other, "ent_va_other", "Other")}})

	nanFact := Fact(ns, "fact_va_nan", a.ID, "is", a.ID, "NaN confidence.")
	nanFact.Confidence = math.NaN()
	tests := []struct {
		name string
		cs   kgmem.ChangeSet
	}{
		{"BadNamespace", kgmem.ChangeSet{Namespace: "bad//ns", Entities: []kgmem.Entity{Entity("bad//ns", "ent_va_x", "X")}}},
		{"EmptyNamespace", kgmem.ChangeSet{Entities: []kgmem.Entity{Entity("", "ent_va_x", "X")}}},
		{"EntityOfOtherNamespace", kgmem.ChangeSet{Namespace: ns, Entities: []kgmem.Entity{Entity(other, "ent_va_x", "X")}}},
		{"EpisodeOfOtherNamespace", kgmem.ChangeSet{Namespace: ns, Episodes: []kgmem.Episode{Episode(other, "ep_va_x", "X", "x")}}},
		{"FactOfOtherNamespace", kgmem.ChangeSet{Namespace: ns, Facts: []kgmem.Fact{Fact(other, "fact_va_x", a.ID, "is", a.ID, "x")}}},
		{"FactToEntityOfOtherNamespace", kgmem.ChangeSet{Namespace: ns, Facts: []kgmem.Fact{Fact(ns, "fact_va_x", a.ID, "knows", "ent_va_other", "x")}}},
		{"EntityWithoutID", kgmem.ChangeSet{Namespace: ns, Entities: []kgmem.Entity{Entity(ns, "", "X")}}},
		{"EntityWithoutName", kgmem.ChangeSet{Namespace: ns, Entities: []kgmem.Entity{Entity(ns, "ent_va_x", "  ")}}},
		{"EpisodeWithoutID", kgmem.ChangeSet{Namespace: ns, Episodes: []kgmem.Episode{Episode(ns, "", "X", "x")}}},
		{"FactWithoutID", kgmem.ChangeSet{Namespace: ns, Facts: []kgmem.Fact{Fact(ns, "", a.ID, "is", a.ID, "x")}}},
		{"FactWithoutPredicate", kgmem.ChangeSet{Namespace: ns, Facts: []kgmem.Fact{Fact(ns, "fact_va_x", a.ID, "", a.ID, "x")}}},
		{"FactWithNaNConfidence", kgmem.ChangeSet{Namespace: ns, Facts: []kgmem.Fact{nanFact}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := h.s.Apply(h.ctx, tc.cs)
			wantErr(t, "Apply", err, kgmem.ErrInvalid)
			if _, err := h.s.Entity(h.ctx, ns, "ent_va_x"); err == nil {
				t.Error("the rejected entity was written")
			}
			if _, err := h.s.Fact(h.ctx, ns, "fact_va_x"); err == nil {
				t.Error("the rejected fact was written")
			}
		})
	}
	sameIDs(t, "namespaces", stringsOf(h.namespaces()), []string{string(other), string(ns)})
}

// stringsOf converts namespaces to strings.
func stringsOf(nss []kgmem.Namespace) []string {
	out := make([]string, len(nss))
	for i, ns := range nss {
		out[i] = string(ns)
	}
	return out
}
