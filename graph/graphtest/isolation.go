package graphtest

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/kgmem/kgmem"
)

// testIsolation writes the same names and texts into several namespaces (ids
// differ: in practice they are global) and checks that no read, write or
// delete in one namespace ever sees or touches another; it also stores strings
// crafted as SQL and Cypher injection and reads them back verbatim.
func testIsolation(t *testing.T, open Opener) {
	t.Run("Namespaces", func(t *testing.T) { testNamespaceIsolation(t, open) })
	t.Run("InjectionStrings", func(t *testing.T) { testInjectionStrings(t, open) })
}

// twin is one namespace's copy of the shared fixture.
type twin struct {
	ns             kgmem.Namespace
	ep             kgmem.Episode
	bob, carol     kgmem.Entity
	fact, expired  kgmem.Fact
	entIDs, factID []string
}

// writeTwin writes the fixture into ns with ids prefixed by p.
func writeTwin(h *h, ns kgmem.Namespace, p string) twin {
	h.t.Helper()
	w := twin{ns: ns}
	w.ep = Episode(ns, "ep_"+p, "Ann", "Ann says Bob Marley knows Carol from the violin orchestra.")
	w.bob = Entity(ns, "ent_"+p+"_bob", "Bob Marley", "Bob")
	w.carol = Entity(ns, "ent_"+p+"_carol", "Carol")
	w.fact = Fact(ns, "fact_"+p+"_knows", w.bob.ID, "knows", w.carol.ID, "Bob Marley knows Carol from the violin orchestra.")
	w.expired = Fact(ns, "fact_"+p+"_old", w.carol.ID, "knew", w.bob.ID, "Carol knew Bob from the violin orchestra.")
	w.expired.InvalidAt, w.expired.ExpiredAt = at(1), at(2)
	w.entIDs = []string{w.bob.ID, w.carol.ID}
	w.factID = []string{w.fact.ID, w.expired.ID}
	h.apply(kgmem.ChangeSet{
		Namespace: ns, Episodes: []kgmem.Episode{w.ep}, Entities: []kgmem.Entity{w.bob, w.carol},
		Facts: []kgmem.Fact{w.fact, w.expired}, Mentions: []kgmem.Mention{{EpisodeID: w.ep.ID, EntityID: w.bob.ID}},
	})
	return w
}

func testNamespaceIsolation(t *testing.T, open Opener) {
	h := newH(t, open)
	// B is A's child and C shares A's prefix: neither is A's scope.
	a := writeTwin(h, "iso/a", "ia")
	b := writeTwin(h, "iso/a/b", "ib")
	c := writeTwin(h, "iso/ab", "ic")
	if err := h.s.PutSettings(h.ctx, a.ns, kgmem.NamespaceSettings{Writes: kgmem.WritePolicy{DisableInserts: true}}); err != nil {
		t.Fatal(err)
	}

	for _, w := range []twin{b, c} {
		others := []twin{a, b, c}
		t.Run(string(w.ns), func(t *testing.T) {
			for _, o := range others {
				if o.ns == w.ns {
					continue
				}
				checkInvisible(t, h, w, o)
			}
			checkOwnReads(t, h, w)
		})
	}
	t.Run("WritesAcrossNamespacesRefused", func(t *testing.T) {
		// A fact in B pointing at A's entities is refused.
		err := h.s.Apply(h.ctx, kgmem.ChangeSet{Namespace: b.ns, Facts: []kgmem.Fact{Fact(b.ns, "fact_ib_cross", b.bob.ID, "knows", a.carol.ID, "cross")}})
		wantErr(t, "Apply cross fact", err, kgmem.ErrInvalid)
		// A mention in B of A's episode is refused.
		err = h.s.Apply(h.ctx, kgmem.ChangeSet{Namespace: b.ns, Mentions: []kgmem.Mention{{EpisodeID: a.ep.ID, EntityID: b.bob.ID}}})
		wantErr(t, "Apply cross mention", err, kgmem.ErrInvalid)
		// Decay and deletes addressed to B leave A's records alone.
		err = h.s.SetDecay(h.ctx, b.ns, []kgmem.DecayUpdate{{Kind: kgmem.KindFact, ID: a.fact.ID, State: kgmem.DecayState{Pinned: true}}})
		wantErr(t, "SetDecay cross", err, kgmem.ErrNotFound)
		wantErr(t, "DeleteFact cross", h.s.DeleteFact(h.ctx, b.ns, a.fact.ID), kgmem.ErrNotFound)
		checkFact(t, h.fact(a.ns, a.fact.ID), a.fact, a.bob.Name, a.carol.Name)
	})
	t.Run("SettingsIsolated", func(t *testing.T) {
		for _, w := range []twin{b, c} {
			s, err := h.s.Settings(h.ctx, w.ns)
			if err != nil || !reflect.DeepEqual(s, kgmem.NamespaceSettings{}) {
				t.Errorf("Settings(%s) = %+v, %v; want the zero value", w.ns, s, err)
			}
		}
	})
	t.Run("PurgeIsolated", func(t *testing.T) {
		stats, err := h.s.PurgeNamespace(h.ctx, b.ns)
		if err != nil {
			t.Fatal(err)
		}
		if want := (kgmem.PurgeStats{Episodes: 1, Entities: 2, Facts: 2}); stats != want {
			t.Errorf("PurgeStats = %+v, want %+v", stats, want)
		}
		checkOwnReads(t, h, a)
		checkOwnReads(t, h, c)
		sameIDs(t, "namespaces", stringsOf(h.namespaces()), []string{"iso/a", "iso/ab"})
	})
}

// checkInvisible fails the test if any read of w's namespace returns records of o.
func checkInvisible(t *testing.T, h *h, w, o twin) {
	t.Helper()
	ns := w.ns
	if _, err := h.s.Entity(h.ctx, ns, o.bob.ID); err == nil {
		t.Errorf("Entity(%s) returned %s's entity", ns, o.ns)
	}
	if _, err := h.s.Fact(h.ctx, ns, o.fact.ID); err == nil {
		t.Errorf("Fact(%s) returned %s's fact", ns, o.ns)
	}
	if es, err := h.s.Entities(h.ctx, ns, o.entIDs); err != nil || len(es) != 0 {
		t.Errorf("Entities(%s, %s's ids) = %v, %v", ns, o.ns, entityIDs(es), err)
	}
	if fs, err := h.s.Facts(h.ctx, ns, o.factID); err != nil || len(fs) != 0 {
		t.Errorf("Facts(%s, %s's ids) = %v, %v", ns, o.ns, factIDs(fs), err)
	}
	if eps := h.episodes(ns, o.ep.ID); len(eps) != 0 {
		t.Errorf("Episodes(%s, %s's id) = %v", ns, o.ns, episodeIDs(eps))
	}
	sameIDs(t, "ListFacts by other's entity", h.listFacts(ns, kgmem.FactFilter{EntityID: o.bob.ID, IncludeExpired: true}), nil)
	g := h.neighborhood(ns, kgmem.NeighborhoodQuery{Seeds: []string{o.bob.ID}, Depth: 2, FanOut: 10, IncludeExpired: true})
	if len(g.Entities) != 0 || len(g.Facts) != 0 || len(g.Distance) != 0 {
		t.Errorf("Neighborhood(%s) from %s's seed = %+v", ns, o.ns, g)
	}
}

// checkOwnReads checks every read of w's namespace returns exactly w's records.
func checkOwnReads(t *testing.T, h *h, w twin) {
	t.Helper()
	ns := w.ns
	checkEntity(t, h.entity(ns, w.bob.ID), w.bob)
	checkFact(t, h.fact(ns, w.fact.ID), w.fact, w.bob.Name, w.carol.Name)
	eps, err := h.s.ListEpisodes(h.ctx, ns, kgmem.Page{})
	if err != nil {
		t.Fatal(err)
	}
	sameIDs(t, "ListEpisodes", episodeIDs(eps), []string{w.ep.ID})
	sameIDs(t, "FindEntities all", h.findEntities(ns, kgmem.EntityFilter{}), sorted(w.entIDs))
	sameIDs(t, "FindEntities by name", h.findEntities(ns, kgmem.EntityFilter{Names: []string{"bob"}}), []string{w.bob.ID})
	sameIDs(t, "FindEntities by query", h.findEntities(ns, kgmem.EntityFilter{Query: "marley"}), []string{w.bob.ID})
	sameIDs(t, "FindEntities by type", h.findEntities(ns, kgmem.EntityFilter{Type: kgmem.TypePerson}), sorted(w.entIDs))
	sameIDs(t, "ListFacts", h.listFacts(ns, kgmem.FactFilter{IncludeExpired: true}), sorted(w.factID))
	sameIDs(t, "ListFacts by predicate", h.listFacts(ns, kgmem.FactFilter{Predicate: "knows"}), []string{w.fact.ID})
	hits := h.search(ns, kgmem.TextQuery{Text: "bob carol violin orchestra ann", IncludeExpired: true})
	want := []string{w.ep.ID, w.bob.ID, w.carol.ID, w.fact.ID, w.expired.ID}
	sameSet(t, fmt.Sprintf("SearchText(%s)", ns), hitIDs(hits), want)
	g := h.neighborhood(ns, kgmem.NeighborhoodQuery{Seeds: []string{w.bob.ID}, Depth: 2, FanOut: 10, IncludeExpired: true})
	sameSet(t, "Neighborhood entities", entityIDs(g.Entities), w.entIDs)
	sameSet(t, "Neighborhood facts", factIDs(g.Facts), w.factID)
}

func testInjectionStrings(t *testing.T, open Opener) {
	h := newH(t, open)
	ns := kgmem.Namespace("iso/inject")
	evil := []string{
		`Robert'); DROP TABLE entities;--`,
		`x" OR 1=1 --`,
		`') MATCH (n) DETACH DELETE n //`,
		`"}) MATCH (n) DETACH DELETE n RETURN n //`,
		"`backtick` $param {map: 1} \\\\ \\' \\\"",
		`50%_off [x]^*?`,
		"NUL\x00inside and \u2028 line separator",
		`<script>alert(1)</script>`,
	}
	cs := kgmem.ChangeSet{Namespace: ns}
	for i, s := range evil {
		e := Entity(ns, fmt.Sprintf("ent_inj_%d_%s", i, s), s, s+" alias")
		e.Type = "Type" + s
		e.Summary = s
		e.Attributes = map[string]any{s: s}
		ep := Episode(ns, fmt.Sprintf("ep_inj_%d_%s", i, s), s, s)
		ep.ThreadID, ep.MessageID, ep.Role = s, s, s
		ep.Metadata = map[string]any{s: []any{s}}
		f := Fact(ns, fmt.Sprintf("fact_inj_%d_%s", i, s), e.ID, "pred_"+s, e.ID, s)
		f.Episodes = []string{ep.ID}
		f.Attributes = map[string]any{"k": s}
		cs.Entities = append(cs.Entities, e)
		cs.Episodes = append(cs.Episodes, ep)
		cs.Facts = append(cs.Facts, f)
		cs.Mentions = append(cs.Mentions, kgmem.Mention{EpisodeID: ep.ID, EntityID: e.ID})
	}
	h.apply(cs)
	for i, s := range evil {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			checkEntity(t, h.entity(ns, cs.Entities[i].ID), cs.Entities[i])
			checkFact(t, h.fact(ns, cs.Facts[i].ID), cs.Facts[i], s, s)
			eps := h.episodes(ns, cs.Episodes[i].ID)
			if len(eps) != 1 {
				t.Fatalf("episode %q not found", cs.Episodes[i].ID)
			}
			checkEpisode(t, eps[0], cs.Episodes[i])
			sameIDs(t, "FindEntities by name", h.findEntities(ns, kgmem.EntityFilter{Names: []string{s}}), []string{cs.Entities[i].ID})
			sameIDs(t, "FindEntities by type", h.findEntities(ns, kgmem.EntityFilter{Type: "Type" + s}), []string{cs.Entities[i].ID})
			sameIDs(t, "ListFacts by predicate", h.listFacts(ns, kgmem.FactFilter{Predicate: "pred_" + s}), []string{cs.Facts[i].ID})
			if _, err := h.s.SearchText(h.ctx, ns, kgmem.TextQuery{Text: s}); err != nil {
				t.Errorf("SearchText(%q): %v", s, err)
			}
		})
	}
	sameIDs(t, "all entities survive", h.findEntities(ns, kgmem.EntityFilter{}), sorted(entityIDs(cs.Entities)))
}
