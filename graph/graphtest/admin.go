package graphtest

import (
	"encoding/json"
	"math"
	"reflect"
	"testing"

	"github.com/kgmem/kgmem"
)

// testAdmin covers decay updates, fact deletion, purges, the namespace list and
// per-namespace settings.
func testAdmin(t *testing.T, open Opener) {
	t.Run("SetDecay", func(t *testing.T) { testSetDecay(t, open) })
	t.Run("DeleteFact", func(t *testing.T) { testDeleteFact(t, open) })
	t.Run("Purge", func(t *testing.T) { testPurge(t, open) })
	t.Run("Namespaces", func(t *testing.T) { testNamespaces(t, open) })
	t.Run("Settings", func(t *testing.T) { testSettings(t, open) })
	t.Run("Ping", func(t *testing.T) {
		h := newH(t, open)
		if err := h.s.Ping(h.ctx); err != nil {
			t.Fatalf("Ping: %v", err)
		}
	})
}

// seed writes one episode, two entities and a fact into ns, ids prefixed by p.
func seed(h *h, ns kgmem.Namespace, p string) (kgmem.Episode, kgmem.Entity, kgmem.Entity, kgmem.Fact) {
	h.t.Helper()
	ep := Episode(ns, "ep_"+p, "Ann", "Ann says Bob knows Carol.")
	bob, carol := Entity(ns, "ent_"+p+"_bob", "Bob"), Entity(ns, "ent_"+p+"_carol", "Carol")
	f := Fact(ns, "fact_"+p, bob.ID, "knows", carol.ID, "Bob knows Carol.")
	f.Episodes = []string{ep.ID}
	h.apply(kgmem.ChangeSet{
		Namespace: ns, Episodes: []kgmem.Episode{ep}, Entities: []kgmem.Entity{bob, carol}, Facts: []kgmem.Fact{f},
		Mentions: []kgmem.Mention{{EpisodeID: ep.ID, EntityID: bob.ID}, {EpisodeID: ep.ID, EntityID: carol.ID}},
	})
	return ep, bob, carol, f
}

func testSetDecay(t *testing.T, open Opener) {
	h := newH(t, open)
	ns := kgmem.Namespace("admin/decay")
	ep, bob, carol, f := seed(h, ns, "dc")
	states := []kgmem.DecayState{
		{Stability: 3.75, LastReinforcedAt: at(5), Reinforcements: 4},
		{Stability: 100, LastReinforcedAt: at(6), Reinforcements: 1, Pinned: true},
		{Stability: 0.5, LastReinforcedAt: at(7), ForgottenAt: at(8)},
	}
	h.apply(kgmem.ChangeSet{Namespace: ns}) // no-op
	if err := h.s.SetDecay(h.ctx, ns, []kgmem.DecayUpdate{
		{Kind: kgmem.KindFact, ID: f.ID, State: states[0]},
		{Kind: kgmem.KindEntity, ID: bob.ID, State: states[1]},
		{Kind: kgmem.KindEpisode, ID: ep.ID, State: states[2]},
	}); err != nil {
		t.Fatalf("SetDecay: %v", err)
	}
	gotFact := h.fact(ns, f.ID)
	checkDecay(t, "fact", gotFact.Decay, states[0])
	checkDecay(t, "entity", h.entity(ns, bob.ID).Decay, states[1])
	checkDecay(t, "episode", h.episodes(ns, ep.ID)[0].Decay, states[2])
	// Only the decay state changed.
	want := f
	want.Decay = states[0]
	checkFact(t, gotFact, want, bob.Name, carol.Name)
	checkDecay(t, "untouched entity", h.entity(ns, carol.ID).Decay, kgmem.DecayState{})

	t.Run("ResetToZero", func(t *testing.T) {
		if err := h.s.SetDecay(h.ctx, ns, []kgmem.DecayUpdate{{Kind: kgmem.KindEntity, ID: bob.ID}}); err != nil {
			t.Fatal(err)
		}
		checkDecay(t, "entity", h.entity(ns, bob.ID).Decay, kgmem.DecayState{})
	})
	t.Run("RepeatedRecordKeepsLast", func(t *testing.T) {
		// Updates apply in order: a record named twice ends in its last state.
		if err := h.s.SetDecay(h.ctx, ns, []kgmem.DecayUpdate{
			{Kind: kgmem.KindEntity, ID: carol.ID, State: states[0]},
			{Kind: kgmem.KindEntity, ID: carol.ID, State: states[1]},
		}); err != nil {
			t.Fatal(err)
		}
		checkDecay(t, "entity updated twice", h.entity(ns, carol.ID).Decay, states[1])
		if err := h.s.SetDecay(h.ctx, ns, []kgmem.DecayUpdate{{Kind: kgmem.KindEntity, ID: carol.ID}}); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("ExactValues", func(t *testing.T) {
		// Stabilities without a short decimal form, on every kind at once.
		exact := []kgmem.DecayState{
			{Stability: 1.0 / 3, LastReinforcedAt: at(9), Reinforcements: 7},
			{Stability: math.Pi * 1e-9, LastReinforcedAt: at(10), Pinned: true},
			{Stability: 123456.78901234567, ForgottenAt: at(11)},
			{Stability: math.Nextafter(2, 3), Reinforcements: 1 << 40},
		}
		if err := h.s.SetDecay(h.ctx, ns, []kgmem.DecayUpdate{
			{Kind: kgmem.KindFact, ID: f.ID, State: exact[0]},
			{Kind: kgmem.KindEntity, ID: bob.ID, State: exact[1]},
			{Kind: kgmem.KindEpisode, ID: ep.ID, State: exact[2]},
			{Kind: kgmem.KindEntity, ID: carol.ID, State: exact[3]},
		}); err != nil {
			t.Fatal(err)
		}
		checkDecay(t, "fact", h.fact(ns, f.ID).Decay, exact[0])
		checkDecay(t, "entity", h.entity(ns, bob.ID).Decay, exact[1])
		checkDecay(t, "episode", h.episodes(ns, ep.ID)[0].Decay, exact[2])
		checkDecay(t, "second entity", h.entity(ns, carol.ID).Decay, exact[3])
		if err := h.s.SetDecay(h.ctx, ns, []kgmem.DecayUpdate{
			{Kind: kgmem.KindFact, ID: f.ID, State: states[0]},
			{Kind: kgmem.KindEntity, ID: bob.ID, State: states[1]},
			{Kind: kgmem.KindEpisode, ID: ep.ID, State: states[2]},
			{Kind: kgmem.KindEntity, ID: carol.ID},
		}); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("Empty", func(t *testing.T) {
		if err := h.s.SetDecay(h.ctx, ns, nil); err != nil {
			t.Fatalf("SetDecay(nil): %v", err)
		}
	})
	t.Run("MissingIsNotFoundAndAtomic", func(t *testing.T) {
		tests := []kgmem.DecayUpdate{
			{Kind: kgmem.KindFact, ID: "fact_dc_missing"},
			{Kind: kgmem.KindEntity, ID: f.ID}, // a fact id is no entity
			{Kind: kgmem.KindEpisode, ID: "ep_dc_missing"},
		}
		for _, missing := range tests {
			err := h.s.SetDecay(h.ctx, ns, []kgmem.DecayUpdate{
				{Kind: kgmem.KindFact, ID: f.ID, State: kgmem.DecayState{Stability: 999}},
				missing,
			})
			wantErr(t, "SetDecay", err, kgmem.ErrNotFound)
			checkDecay(t, "fact after failed SetDecay", h.fact(ns, f.ID).Decay, states[0])
		}
	})
}

func testDeleteFact(t *testing.T, open Opener) {
	h := newH(t, open)
	ns := kgmem.Namespace("admin/delete")
	_, bob, _, f := seed(h, ns, "df")
	other := Fact(ns, "fact_df_other", bob.ID, "likes", bob.ID, "Bob likes tea.")
	h.apply(kgmem.ChangeSet{Namespace: ns, Facts: []kgmem.Fact{other}})

	if err := h.s.DeleteFact(h.ctx, ns, f.ID); err != nil {
		t.Fatalf("DeleteFact: %v", err)
	}
	_, err := h.s.Fact(h.ctx, ns, f.ID)
	wantErr(t, "Fact after delete", err, kgmem.ErrNotFound)
	wantErr(t, "second DeleteFact", h.s.DeleteFact(h.ctx, ns, f.ID), kgmem.ErrNotFound)
	wantErr(t, "DeleteFact of an entity id", h.s.DeleteFact(h.ctx, ns, bob.ID), kgmem.ErrNotFound)
	sameIDs(t, "ListFacts", h.listFacts(ns, kgmem.FactFilter{IncludeExpired: true}), []string{other.ID})
	sameIDs(t, "search", hitIDs(h.search(ns, kgmem.TextQuery{Text: "carol", Kinds: []kgmem.Kind{kgmem.KindFact}, IncludeExpired: true})), nil)
	g := h.neighborhood(ns, kgmem.NeighborhoodQuery{Seeds: []string{bob.ID}, Depth: 1, FanOut: 10})
	sameIDs(t, "Neighborhood", factIDs(g.Facts), []string{other.ID})
	// The entities stay.
	h.entity(ns, bob.ID)
	// The id can be written again.
	h.apply(kgmem.ChangeSet{Namespace: ns, Facts: []kgmem.Fact{f}})
	h.fact(ns, f.ID)
}

func testPurge(t *testing.T, open Opener) {
	h := newH(t, open)
	a, b := kgmem.Namespace("admin/purge"), kgmem.Namespace("admin/purge/child")
	epA, bobA, _, fA := seed(h, a, "pa")
	extra := Fact(a, "fact_pa_extra", bobA.ID, "likes", bobA.ID, "Bob likes tea.")
	h.apply(kgmem.ChangeSet{Namespace: a, Facts: []kgmem.Fact{extra}, Episodes: []kgmem.Episode{Episode(a, "ep_pa_2", "Ann", "more")}})
	if err := h.s.PutSettings(h.ctx, a, kgmem.NamespaceSettings{Writes: kgmem.WritePolicy{DisableInserts: true}}); err != nil {
		t.Fatal(err)
	}
	epB, bobB, _, fB := seed(h, b, "pb")
	// Searched before the purge, so that what a store derives from the
	// namespace for its searches is held when it goes.
	if hits := h.search(a, kgmem.TextQuery{Text: "bob carol ann tea", IncludeExpired: true}); len(hits) == 0 {
		t.Error("search before the purge finds nothing")
	}

	stats, err := h.s.PurgeNamespace(h.ctx, a)
	if err != nil {
		t.Fatalf("PurgeNamespace: %v", err)
	}
	if want := (kgmem.PurgeStats{Episodes: 2, Entities: 2, Facts: 2}); stats != want {
		t.Errorf("PurgeStats = %+v, want %+v", stats, want)
	}
	_, err = h.s.Entity(h.ctx, a, bobA.ID)
	wantErr(t, "Entity after purge", err, kgmem.ErrNotFound)
	_, err = h.s.Fact(h.ctx, a, fA.ID)
	wantErr(t, "Fact after purge", err, kgmem.ErrNotFound)
	if eps := h.episodes(a, epA.ID); len(eps) != 0 {
		t.Errorf("episode survived the purge: %v", eps)
	}
	if hits := h.search(a, kgmem.TextQuery{Text: "bob carol ann tea", IncludeExpired: true}); len(hits) != 0 {
		t.Errorf("search after purge: %v", hits)
	}
	if s, err := h.s.Settings(h.ctx, a); err != nil || !reflect.DeepEqual(s, kgmem.NamespaceSettings{}) {
		t.Errorf("Settings after purge = %+v, %v; want the zero value", s, err)
	}
	sameIDs(t, "namespaces", stringsOf(h.namespaces()), []string{string(b)})

	// The child namespace is a different scope and is intact.
	checkEntity(t, h.entity(b, bobB.ID), Entity(b, bobB.ID, "Bob"))
	h.fact(b, fB.ID)
	sameIDs(t, "child episodes", episodeIDs(h.episodes(b, epB.ID)), []string{epB.ID})
	if hits := h.search(b, kgmem.TextQuery{Text: "carol"}); len(hits) == 0 {
		t.Error("search in the child namespace finds nothing after the parent's purge")
	}

	t.Run("Again", func(t *testing.T) {
		stats, err := h.s.PurgeNamespace(h.ctx, a)
		if err != nil || stats != (kgmem.PurgeStats{}) {
			t.Errorf("second purge = %+v, %v; want zero stats, no error", stats, err)
		}
	})
	t.Run("Rewrite", func(t *testing.T) {
		seed(h, a, "pa")
		h.fact(a, fA.ID)
	})
}

func testNamespaces(t *testing.T, open Opener) {
	h := newH(t, open)
	if nss := h.namespaces(); len(nss) != 0 {
		t.Fatalf("fresh store lists namespaces %v", nss)
	}
	seed(h, "zeta", "nz")
	h.apply(kgmem.ChangeSet{Namespace: "alpha/beta", Episodes: []kgmem.Episode{Episode("alpha/beta", "ep_nab", "Ann", "only an episode")}})
	h.apply(kgmem.ChangeSet{Namespace: "Alpha", Entities: []kgmem.Entity{Entity("Alpha", "ent_nA", "Only an entity")}})
	if err := h.s.PutSettings(h.ctx, "mid", kgmem.NamespaceSettings{Writes: kgmem.WritePolicy{DisableUpdates: true}}); err != nil {
		t.Fatal(err)
	}
	h.apply(kgmem.ChangeSet{Namespace: "empty"}) // an empty change set creates nothing
	sameIDs(t, "Namespaces", stringsOf(h.namespaces()), []string{"Alpha", "alpha/beta", "mid", "zeta"})
}

func testSettings(t *testing.T, open Opener) {
	h := newH(t, open)
	ns := kgmem.Namespace("admin/settings")
	got, err := h.s.Settings(h.ctx, ns)
	if err != nil || !reflect.DeepEqual(got, kgmem.NamespaceSettings{}) {
		t.Fatalf("Settings of a new namespace = %+v, %v; want the zero value", got, err)
	}
	full := kgmem.NamespaceSettings{
		Schema: &kgmem.Schema{
			EntityTypes: []kgmem.TypeDef{{Name: "Dog", Description: "a dog", Attributes: map[string]any{
				"type": "object", "properties": map[string]any{"breed": map[string]any{"type": "string"}},
			}}},
			RelationTypes: []kgmem.TypeDef{{Name: "owns"}},
		},
		Writes: kgmem.WritePolicy{DisableInserts: true, DisableInvalidations: true},
		Decay:  json.RawMessage(`{"half_life_days":30,"floor":0.1}`),
	}
	tests := []struct {
		name string
		s    kgmem.NamespaceSettings
	}{
		{"Full", full},
		{"ReplacedNotMerged", kgmem.NamespaceSettings{Writes: kgmem.WritePolicy{DisableUpdates: true}}},
		{"Zero", kgmem.NamespaceSettings{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if err := h.s.PutSettings(h.ctx, ns, tc.s); err != nil {
				t.Fatalf("PutSettings: %v", err)
			}
			got, err := h.s.Settings(h.ctx, ns)
			if err != nil {
				t.Fatal(err)
			}
			// Compare as JSON: Decay is raw JSON whose whitespace a store may normalise.
			gj, _ := json.Marshal(got)
			wj, _ := json.Marshal(tc.s)
			var g, w any
			_ = json.Unmarshal(gj, &g)
			_ = json.Unmarshal(wj, &w)
			if !reflect.DeepEqual(g, w) {
				t.Fatalf("Settings = %s, want %s", gj, wj)
			}
		})
	}
	t.Run("OtherNamespaceUnaffected", func(t *testing.T) {
		if err := h.s.PutSettings(h.ctx, ns, full); err != nil {
			t.Fatal(err)
		}
		got, err := h.s.Settings(h.ctx, "admin/settings2")
		if err != nil || !reflect.DeepEqual(got, kgmem.NamespaceSettings{}) {
			t.Fatalf("Settings of another namespace = %+v, %v; want the zero value", got, err)
		}
	})
	t.Run("InvalidDecayJSON", func(t *testing.T) {
		err := h.s.PutSettings(h.ctx, ns, kgmem.NamespaceSettings{Decay: json.RawMessage(`{not json`)})
		wantErr(t, "PutSettings", err, kgmem.ErrInvalid)
	})
}
