package sqlite_test

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/graph/graphtest"
	"github.com/kgmem/kgmem/graph/sqlite"
)

// TestEntityNamesFollowWrites checks that finding entities by name, and
// graph expansion's seeds, from the names held in memory answer as SQL does
// after every write: entities added, renamed and given aliases by either of
// two stores on one file,
// facts and episodes (which keep the names), and purges.
func TestEntityNamesFollowWrites(t *testing.T) {
	ctx := t.Context()
	writer, inSQL := openPair(t)
	sqlite.FindEntitiesInSQL(inSQL)
	const ns = kgmem.Namespace("names/follow")
	rng := rand.New(rand.NewPCG(3, 9))
	words := []string{"Ann", "Bo", "Cy", "Lisbon", "ML team", "Dana Smith", "ann"}
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
				if rng.IntN(2) == 0 {
					e.Aliases = []string{words[rng.IntN(len(words))]}
				}
				cs.Entities = append(cs.Entities, e)
			}
		case 1: // a fact between two entities written with it
			a, b := graphtest.Entity(ns, fmt.Sprintf("ent_%d", rng.IntN(8)), words[rng.IntN(len(words))]), graphtest.Entity(ns, fmt.Sprintf("ent_%d", rng.IntN(8)), "Eve")
			cs.Entities = []kgmem.Entity{a, b}
			cs.Facts = []kgmem.Fact{graphtest.Fact(ns, fmt.Sprintf("fact_%d", step), a.ID, "knows", b.ID, "they know each other")}
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

// ids lists the ids of entities.
func ids(es []kgmem.Entity) []string {
	out := make([]string, len(es))
	for i, e := range es {
		out[i] = e.ID
	}
	return out
}
