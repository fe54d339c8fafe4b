package neo4j_test

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/graph/graphtest"
	kneo4j "github.com/kgmem/kgmem/graph/neo4j"
)

// TestTopologyFollowsEveryWrite pins the in-memory walk of FactsOnly to the
// server: after each kind of write, made through one store or another store
// on the same server and scope (another process, in production), a walk
// through either store sees the graph as it is now, not as it was when the
// store last walked it. Both stores walk after every step, so each write
// finds both topologies cached.
func TestTopologyFollowsEveryWrite(t *testing.T) {
	ctx := t.Context()
	scope := "t" + kgmem.NewID("")[1:]
	a, b := openScope(t, scope), openScope(t, scope)
	const ns = kgmem.Namespace("topo/a")
	ada, engine := graphtest.Entity(ns, "ent_tp_a", "Ada Lovelace", "Ada"), graphtest.Entity(ns, "ent_tp_b", "Analytical Engine")
	babbage := graphtest.Entity(ns, "ent_tp_c", "Charles Babbage")
	first := graphtest.Fact(ns, "fact_tp_a", ada.ID, "programmed", engine.ID, "Ada programmed the Analytical Engine.")
	added := graphtest.Fact(ns, "fact_tp_c", engine.ID, "designed_by", babbage.ID, "The Analytical Engine was designed by Babbage.")
	expired := added
	expired.ExpiredAt = time.Now().UTC().Truncate(time.Millisecond)
	again := graphtest.Fact(ns, "fact_tp_again", ada.ID, "admired", engine.ID, "Ada admired the Analytical Engine.")

	steps := []struct {
		name  string
		write func() error
		want  []string // the facts a walk from Ada reaches, by id
	}{
		{"the first Apply", func() error {
			return a.Apply(ctx, kgmem.ChangeSet{Namespace: ns, Entities: []kgmem.Entity{ada, engine}, Facts: []kgmem.Fact{first}})
		}, []string{first.ID}},
		{"Apply adding a fact through the other store", func() error {
			return b.Apply(ctx, kgmem.ChangeSet{Namespace: ns, Entities: []kgmem.Entity{babbage}, Facts: []kgmem.Fact{added}})
		}, []string{first.ID, added.ID}},
		{"Apply expiring a fact", func() error {
			return a.Apply(ctx, kgmem.ChangeSet{Namespace: ns, Facts: []kgmem.Fact{expired}})
		}, []string{first.ID}},
		{"Apply restoring it through the other store", func() error {
			return b.Apply(ctx, kgmem.ChangeSet{Namespace: ns, Facts: []kgmem.Fact{added}})
		}, []string{first.ID, added.ID}},
		{"Apply of an entity only", func() error {
			return a.Apply(ctx, kgmem.ChangeSet{Namespace: ns, Entities: []kgmem.Entity{graphtest.Entity(ns, "ent_tp_d", "Luigi Menabrea")}})
		}, []string{first.ID, added.ID}},
		{"SetDecay of a fact", func() error {
			return b.SetDecay(ctx, ns, []kgmem.DecayUpdate{{Kind: kgmem.KindFact, ID: first.ID, State: kgmem.DecayState{Stability: 3, Pinned: true}}})
		}, []string{first.ID, added.ID}},
		{"DeleteFact", func() error { return a.DeleteFact(ctx, ns, added.ID) }, []string{first.ID}},
		{"PurgeNamespace through the other store", func() error {
			if _, err := b.PurgeNamespace(ctx, ns); err != nil {
				return err
			}
			return checkNoGraphVersion(t, scope, ns)
		}, nil},
		{"re-creating the purged namespace", func() error {
			return a.Apply(ctx, kgmem.ChangeSet{Namespace: ns, Entities: []kgmem.Entity{ada, engine}, Facts: []kgmem.Fact{again}})
		}, []string{again.ID}},
	}
	stores := []struct {
		name string
		s    *kneo4j.Store
	}{{"writer", a}, {"other", b}}
	for _, st := range steps {
		if err := st.write(); err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
		for _, s := range stores {
			g, err := s.s.Neighborhood(ctx, ns, kgmem.NeighborhoodQuery{Seeds: []string{ada.ID}, Depth: 2, FanOut: 10, FactsOnly: true})
			if err != nil {
				t.Fatalf("after %s, walk through the %s store: %v", st.name, s.name, err)
			}
			if got := factIDs(g.Facts); !slices.Equal(got, st.want) {
				t.Errorf("after %s, walk through the %s store = %v, want %v", st.name, s.name, got, st.want)
			}
		}
	}
}

// TestTopologyDuringPurge checks that a namespace whose purge is under way
// (or was interrupted) is walked in Cypher: the purge deletes in many
// transactions without a new graph version each, so a topology cached
// before or during it would show facts already deleted. The test makes that
// state by hand: the purging mark without a new version, then one fact
// deleted as a purge batch would. Finishing the purge removes the version
// node with the namespace.
func TestTopologyDuringPurge(t *testing.T) {
	ctx := t.Context()
	scope, s := newScope(t)
	const ns = kgmem.Namespace("topo/purge")
	key := scope + ":" + string(ns)
	a, b, c := graphtest.Entity(ns, "ent_pg_a", "A"), graphtest.Entity(ns, "ent_pg_b", "B"), graphtest.Entity(ns, "ent_pg_c", "C")
	ab := graphtest.Fact(ns, "fact_pg_ab", a.ID, "knows", b.ID, "A knows B.")
	ac := graphtest.Fact(ns, "fact_pg_ac", a.ID, "knows", c.ID, "A knows C.")
	if err := s.Apply(ctx, kgmem.ChangeSet{Namespace: ns, Entities: []kgmem.Entity{a, b, c}, Facts: []kgmem.Fact{ab, ac}}); err != nil {
		t.Fatal(err)
	}
	walk := func(step string, want ...string) {
		t.Helper()
		g, err := s.Neighborhood(ctx, ns, kgmem.NeighborhoodQuery{Seeds: []string{a.ID}, Depth: 1, FanOut: 10, FactsOnly: true})
		if err != nil {
			t.Fatalf("%s: Neighborhood: %v", step, err)
		}
		if got := factIDs(g.Facts); !slices.Equal(got, want) {
			t.Errorf("%s: walk = %v, want %v", step, got, want)
		}
	}
	walk("before the purge", ab.ID, ac.ID) // caches the topology
	rawQuery(t, `MATCH (v:KgmemGraphVersion {namespace: $ns}) SET v.purging = true`, map[string]any{"ns": key})
	rawQuery(t, `MATCH (t:FactText {namespace: $ns, id: $id}) DETACH DELETE t
		WITH count(*) AS done
		MATCH (:Entity {namespace: $ns})-[r {id: $id}]->() DELETE r`, map[string]any{"ns": key, "id": ac.ID})
	walk("a purge batch later", ab.ID)
	if _, err := s.PurgeNamespace(ctx, ns); err != nil {
		t.Fatal(err)
	}
	walk("after the purge")
	if err := checkNoGraphVersion(t, scope, ns); err != nil {
		t.Error(err)
	}
}

// checkNoGraphVersion returns an error when the namespace ns of scope still
// has a graph version node.
func checkNoGraphVersion(t testing.TB, scope string, ns kgmem.Namespace) error {
	t.Helper()
	recs := rawQuery(t, `MATCH (v:KgmemGraphVersion {namespace: $ns}) RETURN count(v)`, map[string]any{"ns": scope + ":" + string(ns)})
	if n, _ := recs[0].Values[0].(int64); n != 0 {
		return fmt.Errorf("namespace %s of scope %s still has %d graph version nodes", ns, scope, n)
	}
	return nil
}

// factIDs returns the ids of facts, in order.
func factIDs(facts []kgmem.Fact) []string {
	var ids []string
	for _, f := range facts {
		ids = append(ids, f.ID)
	}
	return ids
}
