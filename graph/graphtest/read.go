package graphtest

import (
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/kgmem/kgmem"
)

// testRead covers the lookups and listings: not found, FindEntities by names,
// query and type, ListFacts filters, and paging.
func testRead(t *testing.T, open Opener) {
	t.Run("NotFound", func(t *testing.T) { testNotFound(t, open) })
	t.Run("FindEntities", func(t *testing.T) { testFindEntities(t, open) })
	t.Run("ListFacts", func(t *testing.T) { testListFacts(t, open) })
	t.Run("Paging", func(t *testing.T) { testPaging(t, open) })
	t.Run("BadArguments", func(t *testing.T) { testBadArguments(t, open) })
	t.Run("LatestTime", func(t *testing.T) { testLatestTime(t, open) })
	t.Run("EpisodeSpeakers", func(t *testing.T) { testEpisodeSpeakers(t, open) })
	t.Run("FactEnds", func(t *testing.T) { testFactEnds(t, open) })
}

// testFactEnds checks that every read of whole facts fills both ends' names
// and types, the current ones: Fact, Facts, ListFacts (an entity's, a
// pair's, one predicate's, all) and Neighborhood, before and after an
// entity is renamed and retyped.
func testFactEnds(t *testing.T, open Opener) {
	h := newH(t, open)
	ns := kgmem.Namespace("read/fact-ends")
	ann, acme := Entity(ns, "ent_fe_ann", "Ann"), Entity(ns, "ent_fe_acme", "Acme")
	acme.Type = kgmem.TypeOrganization
	works := Fact(ns, "fact_fe_works", ann.ID, "works_at", acme.ID, "Ann works at Acme.")
	h.apply(kgmem.ChangeSet{Namespace: ns, Entities: []kgmem.Entity{ann, acme}, Facts: []kgmem.Fact{works}})
	reads := map[string]func() []kgmem.Fact{
		"Fact": func() []kgmem.Fact { return []kgmem.Fact{h.fact(ns, works.ID)} },
		"Facts": func() []kgmem.Fact {
			fs, err := h.s.Facts(h.ctx, ns, []string{works.ID})
			if err != nil {
				t.Fatal(err)
			}
			return fs
		},
		"ListFacts":        func() []kgmem.Fact { return h.listFactRecords(ns, kgmem.FactFilter{}) },
		"ListFacts entity": func() []kgmem.Fact { return h.listFactRecords(ns, kgmem.FactFilter{EntityID: acme.ID}) },
		"ListFacts pair": func() []kgmem.Fact {
			return h.listFactRecords(ns, kgmem.FactFilter{EntityID: ann.ID, OtherID: acme.ID})
		},
		"ListFacts predicate": func() []kgmem.Fact {
			return h.listFactRecords(ns, kgmem.FactFilter{EntityID: ann.ID, Predicate: "works_at"})
		},
		"Neighborhood": func() []kgmem.Fact {
			return h.neighborhood(ns, kgmem.NeighborhoodQuery{Seeds: []string{ann.ID}, Depth: 1, FanOut: 10}).Facts
		},
	}
	check := func(subject, object kgmem.Entity) {
		t.Helper()
		for name, read := range reads {
			fs := read()
			if len(fs) != 1 {
				t.Fatalf("%s: %d facts, want 1", name, len(fs))
			}
			f := fs[0]
			got := [4]string{f.SubjectName, f.SubjectType, f.ObjectName, f.ObjectType}
			if want := [4]string{subject.Name, subject.Type, object.Name, object.Type}; got != want {
				t.Errorf("%s: ends (name, type) %q, want %q", name, got, want)
			}
		}
	}
	check(ann, acme)
	acme.Name, acme.Type = "Acme Corp", kgmem.TypeTeam
	h.apply(kgmem.ChangeSet{Namespace: ns, Entities: []kgmem.Entity{acme}})
	check(ann, acme)
}

// testLatestTime follows a namespace's latest instant through writes that
// raise it, lower it (a rewritten fact, a deleted fact) and clear it (a
// purge), with expired facts counted and other namespaces ignored.
func testLatestTime(t *testing.T, open Opener) {
	h := newH(t, open)
	ns, other, old := kgmem.Namespace("read/latest"), kgmem.Namespace("read/latest-other"), kgmem.Namespace("read/latest-1960")
	a, b := Entity(ns, "ent_lt_a", "Ann"), Entity(ns, "ent_lt_b", "Ben")
	early := Episode(ns, "ep_lt_early", "Ann", "hello")
	early.Timestamp = at(-5)
	late := Episode(ns, "ep_lt_late", "Ann", "hi again")
	late.Timestamp = at(1)
	valid := Fact(ns, "fact_lt_valid", a.ID, "knows", b.ID, "Ann knows Ben")
	valid.ValidAt = at(3)
	ended := Fact(ns, "fact_lt_ended", a.ID, "likes", b.ID, "Ann liked Ben")
	ended.ValidAt, ended.InvalidAt, ended.ExpiredAt = at(2), at(7), at(8)
	lowered := ended
	lowered.InvalidAt = at(2)
	farOther := Episode(other, "ep_lt_other", "Zed", "far later")
	farOther.Timestamp = at(1000)
	sixties := Episode(old, "ep_lt_1960", "Old", "long ago")
	sixties.Timestamp = time.Date(1960, 5, 1, 12, 0, 0, 0, time.UTC)

	steps := []struct {
		name  string
		write func()
		ns    kgmem.Namespace
		want  time.Time
	}{
		{"empty", func() {}, ns, time.Time{}},
		{"another namespace's records", func() { h.apply(kgmem.ChangeSet{Namespace: other, Episodes: []kgmem.Episode{farOther}}) }, ns, time.Time{}},
		{"an episode", func() { h.apply(kgmem.ChangeSet{Namespace: ns, Episodes: []kgmem.Episode{late}}) }, ns, at(1)},
		{"an earlier episode", func() { h.apply(kgmem.ChangeSet{Namespace: ns, Episodes: []kgmem.Episode{early}}) }, ns, at(1)},
		{"a fact valid later", func() {
			h.apply(kgmem.ChangeSet{Namespace: ns, Entities: []kgmem.Entity{a, b}, Facts: []kgmem.Fact{valid}})
		}, ns, at(3)},
		{"an expired fact invalid later still", func() { h.apply(kgmem.ChangeSet{Namespace: ns, Facts: []kgmem.Fact{ended}}) }, ns, at(7)},
		{"that fact rewritten to end earlier", func() { h.apply(kgmem.ChangeSet{Namespace: ns, Facts: []kgmem.Fact{lowered}}) }, ns, at(3)},
		{"the latest fact deleted", func() {
			if err := h.s.DeleteFact(h.ctx, ns, valid.ID); err != nil {
				t.Fatal(err)
			}
		}, ns, at(2)},
		{"a time before 1970", func() { h.apply(kgmem.ChangeSet{Namespace: old, Episodes: []kgmem.Episode{sixties}}) }, old, sixties.Timestamp},
		{"the namespace purged", func() {
			if _, err := h.s.PurgeNamespace(h.ctx, ns); err != nil {
				t.Fatal(err)
			}
		}, ns, time.Time{}},
		{"the other namespace kept", func() {}, other, at(1000)},
	}
	for _, st := range steps {
		st.write()
		got, err := h.s.LatestTime(h.ctx, st.ns)
		if err != nil || !got.Equal(st.want) {
			t.Fatalf("after %s: LatestTime(%s) = %v, %v; want %v", st.name, st.ns, got, err, st.want)
		}
	}
	_, err := h.s.LatestTime(h.ctx, "bad namespace!")
	wantErr(t, "LatestTime of an invalid namespace", err, kgmem.ErrInvalid)
}

// testEpisodeSpeakers checks EpisodeSpeakers where a store answers it: each
// episode's speaker in the order asked, "" for an episode without one and
// for ids the namespace does not hold (another namespace's included), also
// after a write; and an invalid namespace refused. A store may answer known
// false at any point (Neo4j always does; the SQLite store once its index
// of episodes is built, by a search).
func testEpisodeSpeakers(t *testing.T, open Opener) {
	h := newH(t, open)
	ns, other := kgmem.Namespace("read/speakers"), kgmem.Namespace("read/speakers-other")
	caroline, melanie := Episode(ns, "ep_sp_1", "Caroline", "I went to a support group."), Episode(ns, "ep_sp_2", "Melanie", "I painted a lake.")
	nobody := Episode(ns, "ep_sp_3", "", "A note without a speaker.")
	elsewhere := Episode(other, "ep_sp_other", "Oscar", "Elsewhere.")
	h.apply(kgmem.ChangeSet{Namespace: ns, Episodes: []kgmem.Episode{caroline, melanie, nobody}})
	h.apply(kgmem.ChangeSet{Namespace: other, Episodes: []kgmem.Episode{elsewhere}})
	check := func(stage string, ids []string, want []string) {
		t.Helper()
		names, known, err := h.s.EpisodeSpeakers(h.ctx, ns, ids)
		if err != nil {
			t.Fatalf("%s: EpisodeSpeakers: %v", stage, err)
		}
		if known && !slices.Equal(names, want) {
			t.Errorf("%s: EpisodeSpeakers(%v) = %q, want %q", stage, ids, names, want)
		}
	}
	ids := []string{melanie.ID, "ep_sp_missing", nobody.ID, elsewhere.ID, caroline.ID}
	want := []string{"Melanie", "", "", "", "Caroline"}
	check("before a search", ids, want)
	h.search(ns, kgmem.TextQuery{Text: "lake", Kinds: []kgmem.Kind{kgmem.KindEpisode}})
	check("after a search", ids, want)
	later := Episode(ns, "ep_sp_4", "Caroline", "The parade was fun.")
	h.apply(kgmem.ChangeSet{Namespace: ns, Episodes: []kgmem.Episode{later}})
	check("after a write", append(ids, later.ID), append(want, "Caroline"))
	check("no ids", nil, []string{})
	_, _, err := h.s.EpisodeSpeakers(h.ctx, "bad namespace!", ids)
	wantErr(t, "EpisodeSpeakers of an invalid namespace", err, kgmem.ErrInvalid)
}

func testNotFound(t *testing.T, open Opener) {
	h := newH(t, open)
	ns := kgmem.Namespace("read/notfound")
	h.apply(kgmem.ChangeSet{Namespace: ns, Entities: []kgmem.Entity{Entity(ns, "ent_nf_a", "A")}})
	_, err := h.s.Entity(h.ctx, ns, "ent_nf_missing")
	wantErr(t, "Entity", err, kgmem.ErrNotFound)
	_, err = h.s.Fact(h.ctx, ns, "fact_nf_missing")
	wantErr(t, "Fact", err, kgmem.ErrNotFound)
	_, err = h.s.Entity(h.ctx, "read/never-written", "ent_nf_a")
	wantErr(t, "Entity in an empty namespace", err, kgmem.ErrNotFound)
	for name, call := range map[string]func() (int, error){
		"Entities": func() (int, error) { r, err := h.s.Entities(h.ctx, ns, []string{"x", "y"}); return len(r), err },
		"Facts":    func() (int, error) { r, err := h.s.Facts(h.ctx, ns, []string{"x"}); return len(r), err },
		"Episodes": func() (int, error) { r, err := h.s.Episodes(h.ctx, ns, []string{"x"}); return len(r), err },
	} {
		if n, err := call(); n != 0 || err != nil {
			t.Errorf("%s of missing ids = %d records, %v; want none, no error", name, n, err)
		}
	}
}

func testFindEntities(t *testing.T, open Opener) {
	h := newH(t, open)
	ns := kgmem.Namespace("read/find")
	bob := Entity(ns, "ent_fe_1", "Robert Smith", "Bob", "Bobby")
	zoe := Entity(ns, "ent_fe_2", "Zoë Ñúñez", "Zoe")
	acme := Entity(ns, "ent_fe_3", "ACME Corp.")
	acme.Type = kgmem.TypeOrganization
	bobOrg := Entity(ns, "ent_fe_4", "Bob's Burgers", "bob")
	bobOrg.Type = kgmem.TypeOrganization
	jp := Entity(ns, "ent_fe_5", "東京", "Tokyo")
	jp.Type = kgmem.TypePlace
	h.apply(kgmem.ChangeSet{Namespace: ns, Entities: []kgmem.Entity{bob, zoe, acme, bobOrg, jp}})

	tests := []struct {
		name   string
		filter kgmem.EntityFilter
		want   []string
	}{
		{"All", kgmem.EntityFilter{}, []string{bob.ID, zoe.ID, acme.ID, bobOrg.ID, jp.ID}},
		{"NameExact", kgmem.EntityFilter{Names: []string{"Robert Smith"}}, []string{bob.ID}},
		{"NameNormalised", kgmem.EntityFilter{Names: []string{"  ROBERT   smith. "}}, []string{bob.ID}},
		{"AliasNormalised", kgmem.EntityFilter{Names: []string{"  BOB "}}, []string{bob.ID, bobOrg.ID}},
		{"SeveralNames", kgmem.EntityFilter{Names: []string{"bobby", "acme corp", "nobody"}}, []string{bob.ID, acme.ID}},
		{"UnicodeName", kgmem.EntityFilter{Names: []string{"ZOË ÑÚÑEZ"}}, []string{zoe.ID}},
		{"CJKName", kgmem.EntityFilter{Names: []string{"東京"}}, []string{jp.ID}},
		{"NoPartialNameMatch", kgmem.EntityFilter{Names: []string{"Robert"}}, nil},
		{"QuerySubstring", kgmem.EntityFilter{Query: "smi"}, []string{bob.ID}},
		{"QueryCaseInsensitive", kgmem.EntityFilter{Query: "OB"}, []string{bob.ID, bobOrg.ID}},
		{"QueryMatchesAlias", kgmem.EntityFilter{Query: "toky"}, []string{jp.ID}},
		{"QueryUnicode", kgmem.EntityFilter{Query: "ñúñ"}, []string{zoe.ID}},
		{"QueryNoMatch", kgmem.EntityFilter{Query: "xyz"}, nil},
		{"QueryIsNotAPattern", kgmem.EntityFilter{Query: "%"}, nil},
		{"Type", kgmem.EntityFilter{Type: kgmem.TypeOrganization}, []string{acme.ID, bobOrg.ID}},
		{"TypeAndName", kgmem.EntityFilter{Type: kgmem.TypeOrganization, Names: []string{"bob"}}, []string{bobOrg.ID}},
		{"TypeAndQuery", kgmem.EntityFilter{Type: kgmem.TypePerson, Query: "bob"}, []string{bob.ID}},
		{"UnknownType", kgmem.EntityFilter{Type: "Spaceship"}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			// The contract promises id order; the fixture ids sort as listed.
			sameIDs(t, "FindEntities", h.findEntities(ns, tc.filter), sorted(tc.want))
		})
	}
}

func testListFacts(t *testing.T, open Opener) {
	h := newH(t, open)
	ns := kgmem.Namespace("read/facts")
	a, b, c := Entity(ns, "ent_lf_a", "A"), Entity(ns, "ent_lf_b", "B"), Entity(ns, "ent_lf_c", "C")
	ab := Fact(ns, "fact_lf_1", a.ID, "knows", b.ID, "A knows B.")
	bc := Fact(ns, "fact_lf_2", b.ID, "knows", c.ID, "B knows C.")
	ca := Fact(ns, "fact_lf_3", c.ID, "likes", a.ID, "C likes A.")
	old := Fact(ns, "fact_lf_4", a.ID, "likes", c.ID, "A liked C.")
	old.InvalidAt, old.ExpiredAt = at(1), at(2)
	ended := Fact(ns, "fact_lf_5", b.ID, "worked_at", a.ID, "B worked at A until last year.")
	ended.InvalidAt = at(-24) // ended in world time but still believed: not expired
	self := Fact(ns, "fact_lf_6", c.ID, "likes", c.ID, "C likes itself.")
	h.apply(kgmem.ChangeSet{Namespace: ns, Entities: []kgmem.Entity{a, b, c}, Facts: []kgmem.Fact{ab, bc, ca, old, ended, self}})

	tests := []struct {
		name   string
		filter kgmem.FactFilter
		want   []string
	}{
		{"All", kgmem.FactFilter{}, []string{ab.ID, bc.ID, ca.ID, ended.ID, self.ID}},
		{"AllWithHistory", kgmem.FactFilter{IncludeExpired: true}, []string{ab.ID, bc.ID, ca.ID, old.ID, ended.ID, self.ID}},
		{"SubjectOrObject", kgmem.FactFilter{EntityID: a.ID}, []string{ab.ID, ca.ID, ended.ID}},
		{"SubjectOrObjectWithHistory", kgmem.FactFilter{EntityID: a.ID, IncludeExpired: true}, []string{ab.ID, ca.ID, old.ID, ended.ID}},
		{"SelfLoopOnce", kgmem.FactFilter{EntityID: c.ID}, []string{bc.ID, ca.ID, self.ID}},
		{"Predicate", kgmem.FactFilter{Predicate: "likes"}, []string{ca.ID, self.ID}},
		{"PredicateWithHistory", kgmem.FactFilter{Predicate: "likes", IncludeExpired: true}, []string{ca.ID, old.ID, self.ID}},
		{"EntityAndPredicate", kgmem.FactFilter{EntityID: b.ID, Predicate: "knows"}, []string{ab.ID, bc.ID}},
		{"Between", kgmem.FactFilter{EntityID: a.ID, OtherID: c.ID}, []string{ca.ID}},
		{"BetweenEitherDirection", kgmem.FactFilter{EntityID: c.ID, OtherID: a.ID, IncludeExpired: true}, []string{ca.ID, old.ID}},
		{"BetweenAndPredicate", kgmem.FactFilter{EntityID: a.ID, OtherID: b.ID, Predicate: "worked_at"}, []string{ended.ID}},
		{"BetweenSelf", kgmem.FactFilter{EntityID: c.ID, OtherID: c.ID}, []string{self.ID}},
		{"BetweenSelfAndPredicate", kgmem.FactFilter{EntityID: c.ID, OtherID: c.ID, Predicate: "likes"}, []string{self.ID}},
		{"EntityAndPredicateSelfLoopOnce", kgmem.FactFilter{EntityID: c.ID, Predicate: "likes", IncludeExpired: true}, []string{ca.ID, old.ID, self.ID}},
		{"BetweenNone", kgmem.FactFilter{EntityID: b.ID, OtherID: "ent_lf_missing"}, nil},
		{"UnknownEntity", kgmem.FactFilter{EntityID: "ent_lf_missing"}, nil},
		{"UnknownPredicate", kgmem.FactFilter{Predicate: "hates"}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			sameIDs(t, "ListFacts", h.listFacts(ns, tc.filter), tc.want)
		})
	}
	t.Run("OtherWithoutEntity", func(t *testing.T) {
		_, err := h.s.ListFacts(h.ctx, ns, kgmem.FactFilter{OtherID: a.ID})
		if !errors.Is(err, kgmem.ErrInvalid) {
			t.Fatalf("ListFacts with OtherID only: err = %v, want ErrInvalid", err)
		}
	})
	t.Run("NamesFilled", func(t *testing.T) {
		fs, err := h.s.ListFacts(h.ctx, ns, kgmem.FactFilter{EntityID: a.ID, Predicate: "knows"})
		if err != nil {
			t.Fatal(err)
		}
		sameIDs(t, "ListFacts", factIDs(fs), []string{ab.ID})
		checkFact(t, fs[0], ab, a.Name, b.Name)
	})
}

func testPaging(t *testing.T, open Opener) {
	h := newH(t, open)
	ns := kgmem.Namespace("read/paging")
	const n = 105 // more than the default page of 100
	var cs = kgmem.ChangeSet{Namespace: ns}
	var entIDs, factIDs, epIDs []string
	for i := range n {
		e := Entity(ns, fmt.Sprintf("ent_pg_%03d", i), fmt.Sprintf("Member %03d", i), "member")
		cs.Entities = append(cs.Entities, e)
		entIDs = append(entIDs, e.ID)
		f := Fact(ns, fmt.Sprintf("fact_pg_%03d", i), e.ID, "member_of", "ent_pg_000", fmt.Sprintf("Member %03d is a member.", i))
		cs.Facts = append(cs.Facts, f)
		factIDs = append(factIDs, f.ID)
		ep := Episode(ns, fmt.Sprintf("ep_pg_%03d", i), "Ann", fmt.Sprintf("message %d", i))
		cs.Episodes = append(cs.Episodes, ep)
		epIDs = append(epIDs, ep.ID)
	}
	// Write in reverse so that insertion order differs from id order.
	for i, j := 0, n-1; i < j; i, j = i+1, j-1 {
		cs.Entities[i], cs.Entities[j] = cs.Entities[j], cs.Entities[i]
		cs.Facts[i], cs.Facts[j] = cs.Facts[j], cs.Facts[i]
		cs.Episodes[i], cs.Episodes[j] = cs.Episodes[j], cs.Episodes[i]
	}
	h.apply(cs)

	listEpisodes := func(p kgmem.Page) []string {
		eps, err := h.s.ListEpisodes(h.ctx, ns, p)
		if err != nil {
			t.Fatalf("ListEpisodes(%+v): %v", p, err)
		}
		return episodeIDs(eps)
	}
	lists := []struct {
		name string
		all  []string
		list func(p kgmem.Page) []string
	}{
		{"FindEntities", entIDs, func(p kgmem.Page) []string { return h.findEntities(ns, kgmem.EntityFilter{Page: p}) }},
		{"FindEntitiesByName", entIDs, func(p kgmem.Page) []string {
			return h.findEntities(ns, kgmem.EntityFilter{Names: []string{"MEMBER"}, Page: p})
		}},
		{"ListFacts", factIDs, func(p kgmem.Page) []string { return h.listFacts(ns, kgmem.FactFilter{Page: p}) }},
		{"ListFactsByEntity", factIDs, func(p kgmem.Page) []string {
			return h.listFacts(ns, kgmem.FactFilter{EntityID: "ent_pg_000", Page: p})
		}},
		{"ListFactsByEntityAndPredicate", factIDs, func(p kgmem.Page) []string {
			return h.listFacts(ns, kgmem.FactFilter{EntityID: "ent_pg_000", Predicate: "member_of", Page: p})
		}},
		{"ListEpisodes", epIDs, listEpisodes},
	}
	for _, l := range lists {
		t.Run(l.name, func(t *testing.T) {
			sameIDs(t, "default limit", l.list(kgmem.Page{}), l.all[:100])
			sameIDs(t, "first page", l.list(kgmem.Page{Limit: 40}), l.all[:40])
			sameIDs(t, "second page", l.list(kgmem.Page{After: l.all[39], Limit: 40}), l.all[40:80])
			sameIDs(t, "last page", l.list(kgmem.Page{After: l.all[79], Limit: 40}), l.all[80:])
			sameIDs(t, "after the end", l.list(kgmem.Page{After: l.all[n-1], Limit: 40}), nil)
			// After need not be an existing id: it is a lower bound.
			sameIDs(t, "after a gap", l.list(kgmem.Page{After: l.all[9] + "~", Limit: 3}), l.all[10:13])
		})
	}
}

func testBadArguments(t *testing.T, open Opener) {
	h := newH(t, open)
	ns := kgmem.Namespace("read/bad")
	h.apply(kgmem.ChangeSet{Namespace: ns, Entities: []kgmem.Entity{Entity(ns, "ent_ba_1", "A")}})
	bad := kgmem.Namespace("no//good")
	calls := map[string]func() error{
		"Entity":       func() error { _, err := h.s.Entity(h.ctx, bad, "ent_ba_1"); return err },
		"Entities":     func() error { _, err := h.s.Entities(h.ctx, bad, []string{"ent_ba_1"}); return err },
		"Fact":         func() error { _, err := h.s.Fact(h.ctx, bad, "x"); return err },
		"Facts":        func() error { _, err := h.s.Facts(h.ctx, bad, []string{"x"}); return err },
		"Episodes":     func() error { _, err := h.s.Episodes(h.ctx, bad, []string{"x"}); return err },
		"ListEpisodes": func() error { _, err := h.s.ListEpisodes(h.ctx, bad, kgmem.Page{}); return err },
		"FindEntities": func() error { _, err := h.s.FindEntities(h.ctx, bad, kgmem.EntityFilter{}); return err },
		"ListFacts":    func() error { _, err := h.s.ListFacts(h.ctx, bad, kgmem.FactFilter{}); return err },
		"SearchText":   func() error { _, err := h.s.SearchText(h.ctx, bad, kgmem.TextQuery{Text: "a"}); return err },
		"Neighborhood": func() error {
			_, err := h.s.Neighborhood(h.ctx, bad, kgmem.NeighborhoodQuery{Seeds: []string{"ent_ba_1"}, Depth: 1})
			return err
		},
		"SetDecay":    func() error { return h.s.SetDecay(h.ctx, bad, nil) },
		"DeleteFact":  func() error { return h.s.DeleteFact(h.ctx, bad, "x") },
		"Purge":       func() error { _, err := h.s.PurgeNamespace(h.ctx, bad); return err },
		"Settings":    func() error { _, err := h.s.Settings(h.ctx, bad); return err },
		"PutSettings": func() error { return h.s.PutSettings(h.ctx, bad, kgmem.NamespaceSettings{}) },
		"EmptyEntity": func() error { _, err := h.s.Entity(h.ctx, "", "ent_ba_1"); return err },
		"NegativeLimit": func() error {
			_, err := h.s.FindEntities(h.ctx, ns, kgmem.EntityFilter{Page: kgmem.Page{Limit: -1}})
			return err
		},
		"NegativeFactLimit": func() error {
			_, err := h.s.ListFacts(h.ctx, ns, kgmem.FactFilter{Page: kgmem.Page{Limit: -1}})
			return err
		},
		"NegativeEpisodeLimit": func() error { _, err := h.s.ListEpisodes(h.ctx, ns, kgmem.Page{Limit: -5}); return err },
		"NegativeSearchLimit":  func() error { _, err := h.s.SearchText(h.ctx, ns, kgmem.TextQuery{Text: "a", Limit: -1}); return err },
		"UnknownKind": func() error {
			_, err := h.s.SearchText(h.ctx, ns, kgmem.TextQuery{Text: "a", Kinds: []kgmem.Kind{"planet"}})
			return err
		},
		"NegativeDepth": func() error {
			_, err := h.s.Neighborhood(h.ctx, ns, kgmem.NeighborhoodQuery{Seeds: []string{"ent_ba_1"}, Depth: -1})
			return err
		},
		"NegativeFanOut": func() error {
			_, err := h.s.Neighborhood(h.ctx, ns, kgmem.NeighborhoodQuery{Seeds: []string{"ent_ba_1"}, Depth: 1, FanOut: -1})
			return err
		},
		"DecayUnknownKind": func() error {
			return h.s.SetDecay(h.ctx, ns, []kgmem.DecayUpdate{{Kind: "planet", ID: "ent_ba_1"}})
		},
	}
	for name, call := range calls {
		t.Run(name, func(t *testing.T) { wantErr(t, name, call(), kgmem.ErrInvalid) })
	}
	checkEntity(t, h.entity(ns, "ent_ba_1"), Entity(ns, "ent_ba_1", "A"))
}
