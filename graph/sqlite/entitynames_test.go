package sqlite_test

import (
	"database/sql"
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/graph/graphtest"
	"github.com/kgmem/kgmem/graph/sqlite"
)

// TestEntityNamesFollowWrites checks that finding entities by name, graph
// expansion's seeds, and the names and types facts show of their ends, from
// the names held in memory answer as SQL does after every write: entities
// added, renamed, retyped and given aliases by either of two stores on one
// file, facts and episodes (which keep the names), and purges.
func TestEntityNamesFollowWrites(t *testing.T) {
	ctx := t.Context()
	writer, inSQL := openPair(t)
	sqlite.FindEntitiesInSQL(inSQL)
	const ns = kgmem.Namespace("names/follow")
	rng := rand.New(rand.NewPCG(3, 9))
	words := []string{"Ann", "Bo", "Cy", "Lisbon", "ML team", "Dana Smith", "ann"}
	types := []string{"person", "place", "team"}
	var factIDs []string
	queries := [][]string{{"Ann"}, {"bo", "cy"}, {"Lisbon", "ML team", "nobody"}, {"Dana Smith", "Smith"}, words}
	for step := range 60 {
		if step%20 == 19 {
			if _, err := inSQL.PurgeNamespace(ctx, ns); err != nil {
				t.Fatal(err)
			}
		}
		cs := kgmem.ChangeSet{Namespace: ns}
		switch rng.IntN(3) {
		case 0: // entities, new or renamed, with aliases
			for range 1 + rng.IntN(3) {
				e := graphtest.Entity(ns, fmt.Sprintf("ent_%d", rng.IntN(8)), words[rng.IntN(len(words))])
				e.Type = types[rng.IntN(len(types))]
				if rng.IntN(2) == 0 {
					e.Aliases = []string{words[rng.IntN(len(words))]}
				}
				cs.Entities = append(cs.Entities, e)
			}
		case 1: // a fact between two entities written with it
			a, b := graphtest.Entity(ns, fmt.Sprintf("ent_%d", rng.IntN(8)), words[rng.IntN(len(words))]), graphtest.Entity(ns, fmt.Sprintf("ent_%d", rng.IntN(8)), "Eve")
			cs.Entities = []kgmem.Entity{a, b}
			cs.Facts = []kgmem.Fact{graphtest.Fact(ns, fmt.Sprintf("fact_%d", step), a.ID, "knows", b.ID, "they know each other")}
			factIDs = append(factIDs, cs.Facts[0].ID)
		default: // an episode: the names stay as they are
			cs.Episodes = []kgmem.Episode{graphtest.Episode(ns, fmt.Sprintf("ep_%d", step), "Ann", "hello")}
		}
		by := writer
		if step%4 == 3 {
			by = inSQL
		}
		if err := by.Apply(ctx, cs); err != nil {
			t.Fatal(err)
		}
		for _, names := range queries {
			for _, f := range []kgmem.EntityFilter{{Names: names, Page: kgmem.Page{Limit: 100}}, {Names: names, Page: kgmem.Page{After: "ent_3", Limit: 2}}} {
				got, err := writer.FindEntities(ctx, ns, f)
				if err != nil {
					t.Fatal(err)
				}
				want, err := inSQL.FindEntities(ctx, ns, f)
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(ids(got), ids(want)) {
					t.Fatalf("step %d, %+v: found %v from memory, %v in SQL", step, f, ids(got), ids(want))
				}
			}
		}
		// Finding entities by name read the names into memory: facts show
		// their ends from them.
		if fromMemory, err := sqlite.FactsShownFromMemory(ctx, writer, ns, factIDs); err != nil || !fromMemory {
			t.Fatalf("step %d: facts shown from memory %v (%v), want true", step, fromMemory, err)
		}
		gotFacts, err := writer.Facts(ctx, ns, factIDs)
		if err != nil {
			t.Fatal(err)
		}
		wantFacts, err := inSQL.Facts(ctx, ns, factIDs)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(gotFacts, wantFacts) {
			t.Fatalf("step %d: facts from memory's names %+v\nin SQL %+v", step, gotFacts, wantFacts)
		}
		// Graph expansion's seeds are checked against the names in memory.
		q := kgmem.NeighborhoodQuery{Seeds: []string{"ent_0", "ent_3", "ent_5", "ent_7", "ent_missing"}, Depth: 2, FactsOnly: true, IncludeExpired: true}
		got, err := writer.Neighborhood(ctx, ns, q)
		if err != nil {
			t.Fatal(err)
		}
		q.FactsOnly = false // the full walk reads every entity in SQL
		want, err := inSQL.Neighborhood(ctx, ns, q)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got.Distance, want.Distance) || len(got.Facts) != len(want.Facts) {
			t.Fatalf("step %d: neighbourhood distances %v and %d facts from memory, %v and %d in SQL", step, got.Distance, len(got.Facts), want.Distance, len(want.Facts))
		}
	}
}

// TestFactsShowTheirEndsFromMemory checks that Facts takes the names and
// types of a fact's ends from the entity names in memory when entity
// linking has read them and they hold both ends, never reads them itself,
// and joins the entities table when an end has no name row (a file written
// before every name had a letter or digit).
func TestFactsShowTheirEndsFromMemory(t *testing.T) {
	ctx := t.Context()
	s, path := openTemp(t)
	const ns = kgmem.Namespace("names/shown")
	ann, eve, odd := graphtest.Entity(ns, "ent_ann", "Ann"), graphtest.Entity(ns, "ent_eve", "Eve"), graphtest.Entity(ns, "ent_odd", "Odd")
	ann.Type, eve.Type, odd.Type = "person", "person", "symbol"
	named := graphtest.Fact(ns, "fact_named", ann.ID, "knows", eve.ID, "Ann knows Eve.")
	unnamed := graphtest.Fact(ns, "fact_unnamed", ann.ID, "draws", odd.ID, "Ann draws Odd.")
	if err := s.Apply(ctx, kgmem.ChangeSet{Namespace: ns, Entities: []kgmem.Entity{ann, eve, odd}, Facts: []kgmem.Fact{named, unnamed}}); err != nil {
		t.Fatal(err)
	}
	// Before anything reads the names into memory, Odd loses its name row;
	// then entity linking reads them.
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.ExecContext(ctx, `DELETE FROM entity_names WHERE entity_id = ?`, odd.ID); err != nil {
		t.Fatal(err)
	}
	if fromMemory, err := sqlite.FactsShownFromMemory(ctx, s, ns, []string{named.ID}); err != nil || fromMemory {
		t.Fatalf("before anything read the names: shown from memory %v (%v), want false: Facts must not read them itself", fromMemory, err)
	}
	if _, err := s.FindEntities(ctx, ns, kgmem.EntityFilter{Names: []string{"Ann"}, Page: kgmem.Page{Limit: 10}}); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name       string
		ids        []string
		fromMemory bool
		want       [][4]string // subject name, subject type, object name, object type
	}{
		{"both ends named", []string{named.ID}, true, [][4]string{{"Ann", "person", "Eve", "person"}}},
		{"an end without a name row", []string{named.ID, unnamed.ID}, false, [][4]string{{"Ann", "person", "Eve", "person"}, {"Ann", "person", "Odd", "symbol"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fromMemory, err := sqlite.FactsShownFromMemory(ctx, s, ns, tt.ids)
			if err != nil {
				t.Fatal(err)
			}
			if fromMemory != tt.fromMemory {
				t.Errorf("shown from memory = %v, want %v", fromMemory, tt.fromMemory)
			}
			fs, err := s.Facts(ctx, ns, tt.ids)
			if err != nil {
				t.Fatal(err)
			}
			var got [][4]string
			for _, f := range fs {
				got = append(got, [4]string{f.SubjectName, f.SubjectType, f.ObjectName, f.ObjectType})
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Facts(%v) shows %v, want %v", tt.ids, got, tt.want)
			}
		})
	}
}

// ids lists the ids of entities.
func ids(es []kgmem.Entity) []string {
	out := make([]string, len(es))
	for i, e := range es {
		out[i] = e.ID
	}
	return out
}
