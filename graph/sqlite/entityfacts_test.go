package sqlite_test

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"
	"time"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/graph/sqlite"
)

// TestListFactsOfEntityFromView checks that ListFacts of an entity, which
// the fact-ends view answers, lists what the file's indexes list, through
// random writes that add facts, move them to other ends and predicates,
// expire and revive them and rename entities, and through writes the view
// does not follow (a deleted fact, decay set, a write by another Store on
// the same file). After each write of this Store the view must be current
// without being read again: advanced, not rebuilt.
func TestListFactsOfEntityFromView(t *testing.T) {
	for _, opts := range []struct {
		name      string
		exclusive bool
		opts      []sqlite.Option
	}{{"exclusive", true, []sqlite.Option{sqlite.Exclusive()}}, {"shared", false, nil}} {
		t.Run(opts.name, func(t *testing.T) {
			s, path := openTemp(t, opts.opts...)
			ctx := t.Context()
			ns := kgmem.Namespace("view/facts")
			rng := rand.New(rand.NewPCG(7, 11))
			at := time.Date(2025, 3, 4, 5, 6, 7, 0, time.UTC)
			entityIDs := []string{"ann", "bob", "cid", "dee", "eve", "lisbon"}
			predicates := []string{"knows", "lives_in", "works_with"}
			entity := func(id string, round int) kgmem.Entity {
				return kgmem.Entity{ID: id, Namespace: ns, Name: fmt.Sprintf("%s %d", id, round), Type: predicates[round%3], CreatedAt: at}
			}
			var facts []kgmem.Fact
			randomFact := func(f kgmem.Fact) kgmem.Fact {
				f.SubjectID, f.ObjectID = entityIDs[rng.IntN(len(entityIDs))], entityIDs[rng.IntN(len(entityIDs))]
				f.Predicate = predicates[rng.IntN(len(predicates))]
				f.Text = f.SubjectID + " " + f.Predicate + " " + f.ObjectID
				f.ExpiredAt = time.Time{}
				if rng.IntN(4) == 0 {
					f.ExpiredAt = at.Add(time.Hour)
				}
				// Values that read back otherwise than written: an empty
				// list, integers in attributes, instants finer than a
				// millisecond and outside UTC.
				f.Episodes = [][]string{nil, {}, {"e1"}, {"e1", "e2"}}[rng.IntN(4)]
				f.Attributes = []map[string]any{nil, {}, {"source": "chat", "turn": rng.IntN(9), "tags": []any{"a", map[string]any{"b": 1}}}}[rng.IntN(3)]
				lisbon := time.FixedZone("WEST", 3600)
				f.ValidAt = at.Add(time.Duration(rng.IntN(5000)) * time.Microsecond).In(lisbon)
				f.Decay = kgmem.DecayState{Stability: rng.Float64(), LastReinforcedAt: at.Add(1500 * time.Microsecond).In(lisbon), Reinforcements: rng.IntN(3)}
				return f
			}
			compare := func(step string) {
				t.Helper()
				filters := []kgmem.FactFilter{}
				for _, e := range append(entityIDs, "nobody") {
					for _, other := range []string{"", "ann", "lisbon"} {
						for _, p := range []string{"", "knows", "lives_in"} {
							for _, expired := range []bool{false, true} {
								filters = append(filters, kgmem.FactFilter{EntityID: e, OtherID: other, Predicate: p, IncludeExpired: expired})
							}
						}
					}
				}
				paged := []kgmem.FactFilter{
					{EntityID: "ann", IncludeExpired: true, Page: kgmem.Page{Limit: 2}},
					{EntityID: "lisbon", Page: kgmem.Page{Limit: 3, After: "f_020"}},
					{EntityID: "bob", Predicate: "knows", IncludeExpired: true, Page: kgmem.Page{Limit: 1, After: "f_005"}},
				}
				// Pages that start after a fact of the entity itself.
				for _, e := range entityIDs {
					all, err := sqlite.ListFactsStored(ctx, s, ns, kgmem.FactFilter{EntityID: e, IncludeExpired: true})
					if err != nil {
						t.Fatal(err)
					}
					if len(all) > 1 {
						paged = append(paged, kgmem.FactFilter{EntityID: e, IncludeExpired: true, Page: kgmem.Page{Limit: 2, After: all[0].ID}})
					}
				}
				for _, f := range append(filters, paged...) {
					got, err := s.ListFacts(ctx, ns, f)
					if err != nil {
						t.Fatalf("%s: ListFacts(%+v): %v", step, f, err)
					}
					want, err := sqlite.ListFactsStored(ctx, s, ns, f)
					if err != nil {
						t.Fatalf("%s: ListFactsStored(%+v): %v", step, f, err)
					}
					if len(got) != 0 || len(want) != 0 {
						if !reflect.DeepEqual(got, want) {
							t.Fatalf("%s: ListFacts(%+v): %s", step, f, firstDifference(got, want))
						}
					}
				}
			}
			current := func(step string, want bool) {
				t.Helper()
				ok, err := sqlite.EntityFactsAreCurrent(ctx, s, ns)
				if err != nil {
					t.Fatal(err)
				}
				if ok != want {
					t.Fatalf("%s: entity-facts view current = %v, want %v", step, ok, want)
				}
			}
			apply := func(step string, cs kgmem.ChangeSet) {
				t.Helper()
				if err := s.Apply(ctx, cs); err != nil {
					t.Fatalf("%s: %v", step, err)
				}
			}
			var first []kgmem.Entity
			for _, id := range entityIDs {
				first = append(first, entity(id, 0))
			}
			apply("entities", kgmem.ChangeSet{Namespace: ns, Entities: first})
			compare("no facts")
			current("after a read", true)
			for round := 1; round <= 30; round++ {
				cs := kgmem.ChangeSet{Namespace: ns}
				writes, updates := 1+rng.IntN(4), true
				if round == 27 {
					writes, updates = 1100, false // past the delta's bound: merged into a new base
				}
				for range writes {
					if updates && len(facts) > 0 && rng.IntN(2) == 0 {
						i := rng.IntN(len(facts))
						facts[i] = randomFact(facts[i])
						cs.Facts = append(cs.Facts, facts[i])
						continue
					}
					f := randomFact(kgmem.Fact{ID: fmt.Sprintf("f_%03d", len(facts)), Namespace: ns, Confidence: 0.5,
						Episodes: []string{"e1"}, CreatedAt: at})
					facts = append(facts, f)
					cs.Facts = append(cs.Facts, f)
				}
				if round%5 == 0 {
					cs.Entities = append(cs.Entities, entity(entityIDs[rng.IntN(len(entityIDs))], round))
				}
				step := fmt.Sprintf("round %d", round)
				apply(step, cs)
				current(step, true)
				compare(step)
				// What a caller does to the facts it was given stays its own.
				if got, err := s.ListFacts(ctx, ns, kgmem.FactFilter{EntityID: "ann", IncludeExpired: true}); err == nil {
					for _, f := range got {
						if len(f.Episodes) > 0 {
							f.Episodes[0] = "changed by the caller"
						}
						if tags, ok := f.Attributes["tags"].([]any); ok {
							tags[1].(map[string]any)["b"] = "changed by the caller"
						}
					}
				}
				compare(step + ", after a caller changed what it read")
			}

			if err := s.DeleteFact(ctx, ns, facts[3].ID); err != nil {
				t.Fatal(err)
			}
			current("after a delete", false)
			compare("after a delete")
			current("read after a delete", true)

			err := s.SetDecay(ctx, ns, []kgmem.DecayUpdate{{Kind: kgmem.KindFact, ID: facts[4].ID,
				State: kgmem.DecayState{Stability: 9, LastReinforcedAt: at, Reinforcements: 3}}})
			if err != nil {
				t.Fatal(err)
			}
			current("after decay set", true)
			compare("after decay set")
			if opts.exclusive {
				return // no other Store can open the file
			}

			other, err := sqlite.Open(ctx, path)
			if err != nil {
				t.Fatal(err)
			}
			defer other.Close()
			moved := randomFact(facts[5])
			moved.SubjectID, moved.ExpiredAt = "eve", time.Time{}
			if err := other.Apply(ctx, kgmem.ChangeSet{Namespace: ns, Entities: []kgmem.Entity{entity("eve", 99)}, Facts: []kgmem.Fact{moved}}); err != nil {
				t.Fatal(err)
			}
			compare("after another store's write")
			got, err := s.ListFacts(ctx, ns, kgmem.FactFilter{EntityID: "eve", OtherID: moved.ObjectID, Predicate: moved.Predicate})
			if err != nil || !containsFact(got, moved.ID, "eve 99") {
				t.Fatalf("after another store's write: %+v, %v; want %s with its subject named eve 99", got, err, moved.ID)
			}
		})
	}
}

// firstDifference describes the first fact where got and want differ.
func firstDifference(got, want []kgmem.Fact) string {
	for i := range min(len(got), len(want)) {
		if !reflect.DeepEqual(got[i], want[i]) {
			return fmt.Sprintf("fact %d of %d\n got %#v\nwant %#v", i, len(want), got[i], want[i])
		}
	}
	return fmt.Sprintf("%d facts, want %d", len(got), len(want))
}

// containsFact reports whether fs holds fact id with subject name subject.
func containsFact(fs []kgmem.Fact, id, subject string) bool {
	for _, f := range fs {
		if f.ID == id && f.SubjectName == subject {
			return true
		}
	}
	return false
}

// TestDecayKeepsViewsCurrent checks that SetDecay of a fact, which raises
// its namespace's graph version so that the entity-facts view's decay state
// can be told apart, leaves every view current: the entity facts take the
// new decay state and the BM25 indexes are relabelled, not read again.
func TestDecayKeepsViewsCurrent(t *testing.T) {
	s, _ := openTemp(t, sqlite.Exclusive())
	ctx := t.Context()
	ns := kgmem.Namespace("view/decay")
	at := time.Date(2025, 3, 4, 5, 6, 7, 0, time.UTC)
	fact := kgmem.Fact{ID: "f1", Namespace: ns, SubjectID: "ann", Predicate: "lives_in", ObjectID: "lisbon",
		Text: "Ann lives in Lisbon", CreatedAt: at}
	err := s.Apply(ctx, kgmem.ChangeSet{Namespace: ns, Facts: []kgmem.Fact{fact}, Entities: []kgmem.Entity{
		{ID: "ann", Namespace: ns, Name: "Ann", CreatedAt: at}, {ID: "lisbon", Namespace: ns, Name: "Lisbon", CreatedAt: at}}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.SearchText(ctx, ns, kgmem.TextQuery{Text: "Lisbon", Limit: 5}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.ListFacts(ctx, ns, kgmem.FactFilter{EntityID: "ann"}); err != nil {
		t.Fatal(err)
	}
	state := kgmem.DecayState{Stability: 4, LastReinforcedAt: at.Add(time.Hour), Reinforcements: 1}
	if err := s.SetDecay(ctx, ns, []kgmem.DecayUpdate{{Kind: kgmem.KindFact, ID: "f1", State: state}}); err != nil {
		t.Fatal(err)
	}
	for _, kind := range []kgmem.Kind{kgmem.KindFact, kgmem.KindEntity, kgmem.KindEpisode} {
		if ok, err := sqlite.LexicalIsCurrent(ctx, s, ns, kind); err != nil || !ok {
			t.Errorf("BM25 index of %s current after SetDecay = %v, %v; want true", kind, ok, err)
		}
	}
	if ok, err := sqlite.EntityFactsAreCurrent(ctx, s, ns); err != nil || !ok {
		t.Errorf("entity facts current after SetDecay = %v, %v; want true", ok, err)
	}
	got, err := s.ListFacts(ctx, ns, kgmem.FactFilter{EntityID: "lisbon", OtherID: "ann"})
	if err != nil || len(got) != 1 || got[0].Decay != state {
		t.Fatalf("ListFacts after SetDecay = %+v, %v; want f1 with decay %+v", got, err, state)
	}
}
