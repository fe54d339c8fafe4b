package neo4j_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/graph/graphtest"
	kneo4j "github.com/kgmem/kgmem/graph/neo4j"
	"github.com/kgmem/kgmem/internal/testenv"
	"github.com/neo4j/neo4j-go-driver/v5/neo4j"
)

// rawQuery runs Cypher on the test server outside the store, to look at
// what Browser users see.
func rawQuery(t testing.TB, query string, params map[string]any) []*neo4j.Record {
	t.Helper()
	ctx := context.Background()
	d, err := neo4j.NewDriverWithContext(testenv.Neo4jURI(t), neo4j.NoAuth())
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = d.Close(ctx) }()
	res, err := neo4j.ExecuteQuery(ctx, d, query, params, neo4j.EagerResultTransformer)
	if err != nil {
		t.Fatalf("raw query %q: %v", query, err)
	}
	return res.Records
}

// newScope returns a fresh scope name and a store in it.
func newScope(t *testing.T) (string, *kneo4j.Store) {
	scope := "t" + kgmem.NewID("")[1:]
	return scope, openScope(t, scope)
}

// TestBrowserModel checks the graph as Browser shows it: type labels,
// predicate relationship types, MENTIONS, DATETIME values and one
// (:FactText) per fact.
func TestBrowserModel(t *testing.T) {
	scope, s := newScope(t)
	ns := kgmem.Namespace("model/a")
	key := scope + ":" + string(ns)
	bob, ml := graphtest.Entity(ns, "ent_m_bob", "Bob"), graphtest.Entity(ns, "ent_m_ml", "ML team")
	ml.Type = "Team"
	ep := graphtest.Episode(ns, "ep_m_1", "Ann", "Bob leads the ML team.")
	f := graphtest.Fact(ns, "fact_m_1", bob.ID, "leads", ml.ID, "Bob leads the ML team.")
	f.ValidAt = time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC)
	if err := s.Apply(t.Context(), kgmem.ChangeSet{
		Namespace: ns, Episodes: []kgmem.Episode{ep}, Entities: []kgmem.Entity{bob, ml}, Facts: []kgmem.Fact{f},
		Mentions: []kgmem.Mention{{EpisodeID: ep.ID, EntityID: bob.ID}},
	}); err != nil {
		t.Fatal(err)
	}
	recs := rawQuery(t, `MATCH (a:Entity {namespace: $ns})-[r]->(b:Entity)
		RETURN [l IN labels(a) WHERE l = "Entity"] + [l IN labels(a) WHERE l <> "Entity"], type(r), [l IN labels(b) WHERE l = "Entity"] + [l IN labels(b) WHERE l <> "Entity"], r.predicate, r.valid_at`, map[string]any{"ns": key})
	if len(recs) != 1 {
		t.Fatalf("facts in the graph: %d, want 1", len(recs))
	}
	got := fmt.Sprint(recs[0].Values[:4]...)
	if want := fmt.Sprint([]any{"Entity", "Person"}, "LEADS", []any{"Entity", "Team"}, "leads"); got != want {
		t.Errorf("graph = %s, want %s", got, want)
	}
	if v, ok := recs[0].Values[4].(time.Time); !ok || !v.Equal(f.ValidAt) {
		t.Errorf("valid_at = %#v, want a DATETIME equal to %v", recs[0].Values[4], f.ValidAt)
	}
	recs = rawQuery(t, `MATCH (e:Episode {namespace: $ns})-[:MENTIONS]->(x:Entity) RETURN x.name`, map[string]any{"ns": key})
	if len(recs) != 1 || recs[0].Values[0] != "Bob" {
		t.Errorf("episode mentions = %v, want Bob", recs)
	}
	recs = rawQuery(t, `MATCH (t:FactText {namespace: $ns}) RETURN t.id, t.rel_type`, map[string]any{"ns": key})
	if len(recs) != 1 || recs[0].Values[0] != f.ID || recs[0].Values[1] != "LEADS" {
		t.Errorf("fact index nodes = %v", recs)
	}

	// Changing the type swaps the label; changing the predicate swaps the type.
	ml.Type = "Organization"
	f.Predicate = "manages"
	if err := s.Apply(t.Context(), kgmem.ChangeSet{Namespace: ns, Entities: []kgmem.Entity{ml}, Facts: []kgmem.Fact{f}}); err != nil {
		t.Fatal(err)
	}
	recs = rawQuery(t, `MATCH (a:Entity {namespace: $ns})-[r]->(b:Entity)
		RETURN type(r), [l IN labels(b) WHERE l = "Entity"] + [l IN labels(b) WHERE l <> "Entity"]`, map[string]any{"ns": key})
	if len(recs) != 1 || fmt.Sprint(recs[0].Values...) != fmt.Sprint("MANAGES", []any{"Entity", "Organization"}) {
		t.Errorf("after retyping: %v", recs)
	}
}

// TestCypherInjection writes predicates, names and types crafted as Cypher
// and checks that they are stored as data: the database keeps every other
// record, the identifiers are sanitised and the values read back verbatim.
func TestCypherInjection(t *testing.T) {
	scope, s := newScope(t)
	ctx := t.Context()
	ns := kgmem.Namespace("inject")
	key := scope + ":" + string(ns)
	// Canaries in another namespace and another scope: the injection must not
	// touch them. (Counting every node of the server would race with the other
	// packages' tests, which share it.)
	_, other := newScope(t)
	canaries := map[kgmem.GraphStore]kgmem.Namespace{s: "bystander", other: "bystander"}
	for store, cns := range canaries {
		a, b := graphtest.Entity(cns, "ent_canary_a", "Canary A"), graphtest.Entity(cns, "ent_canary_b", "Canary B")
		if err := store.Apply(ctx, kgmem.ChangeSet{Namespace: cns, Entities: []kgmem.Entity{a, b},
			Facts: []kgmem.Fact{graphtest.Fact(cns, "fact_canary", a.ID, "knows", b.ID, "Canary A knows Canary B.")}}); err != nil {
			t.Fatalf("canary: %v", err)
		}
	}

	evil := []string{
		"KNOWS]->(x) DETACH DELETE x //",
		"`; MATCH (n) DELETE n",
		"`) MATCH (n) DETACH DELETE n //",
		"x} RETURN 1 UNION MATCH (n) DETACH DELETE n //",
		"$(ns) $ns {ns}",
		"Entity",
		"MENTIONS",
	}
	cs := kgmem.ChangeSet{Namespace: ns}
	for i, text := range evil {
		e := graphtest.Entity(ns, fmt.Sprintf("ent_ci_%d", i), text, text)
		e.Type = text
		cs.Entities = append(cs.Entities, e)
		cs.Facts = append(cs.Facts, graphtest.Fact(ns, fmt.Sprintf("fact_ci_%d", i), e.ID, text, e.ID, text))
	}
	if err := s.Apply(ctx, cs); err != nil {
		t.Fatalf("Apply: %v", err)
	}
	for store, cns := range canaries {
		for _, id := range []string{"ent_canary_a", "ent_canary_b"} {
			if _, err := store.Entity(ctx, cns, id); err != nil {
				t.Fatalf("canary entity %s: %v: the injection deleted data", id, err)
			}
		}
		if _, err := store.Fact(ctx, cns, "fact_canary"); err != nil {
			t.Fatalf("canary fact: %v: the injection deleted data", err)
		}
	}
	stored := rawQuery(t, `MATCH (n:Entity {namespace: $ns}) RETURN count(n)`, map[string]any{"ns": key})[0].Values[0].(int64)
	if stored != int64(len(evil)) {
		t.Fatalf("%d entities stored in the namespace, want %d", stored, len(evil))
	}
	for i, text := range evil {
		e, err := s.Entity(ctx, ns, cs.Entities[i].ID)
		if err != nil || e.Name != text || e.Type != text {
			t.Errorf("entity %d = %+v, %v; want name and type %q", i, e, err, text)
		}
		f, err := s.Fact(ctx, ns, cs.Facts[i].ID)
		if err != nil || f.Predicate != text || f.Text != text {
			t.Errorf("fact %d = %+v, %v; want predicate and text %q", i, f, err, text)
		}
		if hits, err := s.SearchText(ctx, ns, kgmem.TextQuery{Text: text}); err != nil {
			t.Errorf("SearchText(%q): %v", text, err)
		} else if text != "$(ns) $ns {ns}" && len(hits) == 0 {
			t.Errorf("SearchText(%q) found nothing", text)
		}
	}
	recs := rawQuery(t, `MATCH (a:Entity {namespace: $ns})-[r]->() RETURN labels(a), type(r) ORDER BY r.id`, map[string]any{"ns": key})
	if len(recs) != len(evil) {
		t.Fatalf("relationships: %d, want %d", len(recs), len(evil))
	}
	for _, rec := range recs {
		labels, typ := rec.Values[0].([]any), rec.Values[1].(string)
		if typ == "MENTIONS" || strings.ContainsAny(typ, "`]) $") {
			t.Errorf("relationship type %q", typ)
		}
		if slices.Contains(labels, any("Episode")) || len(labels) != 2 {
			t.Errorf("labels %v", labels)
		}
	}
	// The entity typed "Entity" is not mistaken for the store's own label.
	if got := rawQuery(t, `MATCH (e:EntityType {namespace: $ns}) RETURN count(e)`, map[string]any{"ns": key})[0].Values[0].(int64); got != 1 {
		t.Errorf("entities labelled EntityType: %d, want 1", got)
	}
}

// TestScopeIsolation shows that two stores in different scopes of one
// database never see each other, even with identical namespaces and ids.
func TestScopeIsolation(t *testing.T) {
	_, a := newScope(t)
	_, b := newScope(t)
	ctx := t.Context()
	ns := kgmem.Namespace("shared/ns")
	write := func(s *kneo4j.Store, name string) {
		e := graphtest.Entity(ns, "ent_si_1", name)
		f := graphtest.Fact(ns, "fact_si_1", e.ID, "is", e.ID, name+" is unique.")
		if err := s.Apply(ctx, kgmem.ChangeSet{Namespace: ns, Entities: []kgmem.Entity{e}, Facts: []kgmem.Fact{f}}); err != nil {
			t.Fatal(err)
		}
	}
	write(a, "Alpha")
	write(b, "Beta")
	for _, tc := range []struct {
		s         *kneo4j.Store
		want, not string
	}{{a, "Alpha", "beta"}, {b, "Beta", "alpha"}} {
		e, err := tc.s.Entity(ctx, ns, "ent_si_1")
		if err != nil || e.Name != tc.want {
			t.Errorf("Entity = %+v, %v; want %s", e, err, tc.want)
		}
		if hits, err := tc.s.SearchText(ctx, ns, kgmem.TextQuery{Text: tc.not}); err != nil || len(hits) != 0 {
			t.Errorf("search for the other scope's %q = %v, %v", tc.not, hits, err)
		}
		nss, err := tc.s.Namespaces(ctx)
		if err != nil || !slices.Equal(nss, []kgmem.Namespace{ns}) {
			t.Errorf("Namespaces = %v, %v; want only %s", nss, err, ns)
		}
	}
	if _, err := a.PurgeNamespace(ctx, ns); err != nil {
		t.Fatal(err)
	}
	if e, err := b.Entity(ctx, ns, "ent_si_1"); err != nil || e.Name != "Beta" {
		t.Errorf("after purging the other scope: %+v, %v", e, err)
	}
}

// TestHubFanOut builds an entity with 3,000 facts and checks that a traversal
// from it returns exactly FanOut facts, the most important ones, and that a
// traversal through it at depth 2 stays bounded.
func TestHubFanOut(t *testing.T) {
	_, s := newScope(t)
	ctx := t.Context()
	ns := kgmem.Namespace("hub")
	const n = 3000
	hub := graphtest.Entity(ns, "ent_hub", "Hub")
	cs := kgmem.ChangeSet{Namespace: ns, Entities: []kgmem.Entity{hub}}
	for i := range n {
		leaf := graphtest.Entity(ns, fmt.Sprintf("ent_leaf_%04d", i), fmt.Sprintf("Leaf %d", i))
		f := graphtest.Fact(ns, fmt.Sprintf("fact_hub_%04d", i), hub.ID, "has", leaf.ID, fmt.Sprintf("Hub has leaf %d.", i))
		f.Importance = 1 + i%10
		if i%2 == 1 {
			f.SubjectID, f.ObjectID = leaf.ID, hub.ID
		}
		cs.Entities = append(cs.Entities, leaf)
		cs.Facts = append(cs.Facts, f)
	}
	if err := s.Apply(ctx, cs); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name          string
		seed          string
		depth, fanOut int
		facts, ents   int
	}{
		{"HubDepth1", hub.ID, 1, 20, 20, 21},
		{"HubDepth2", hub.ID, 2, 20, 20, 21},
		// The leaf's one fact reaches the hub, which adds its 5 most important.
		{"LeafDepth2", "ent_leaf_0007", 2, 5, 6, 7},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			start := time.Now()
			g, err := s.Neighborhood(ctx, ns, kgmem.NeighborhoodQuery{Seeds: []string{tc.seed}, Depth: tc.depth, FanOut: tc.fanOut})
			if err != nil {
				t.Fatal(err)
			}
			if len(g.Facts) != tc.facts || len(g.Entities) != tc.ents {
				t.Fatalf("got %d facts and %d entities, want %d and %d", len(g.Facts), len(g.Entities), tc.facts, tc.ents)
			}
			for _, f := range g.Facts {
				if tc.seed == hub.ID || (f.SubjectID != tc.seed && f.ObjectID != tc.seed) {
					// One of the hub's own FanOut picks.
					if f.Importance != 10 {
						t.Errorf("fact %s of importance %d returned; want only the most important (10)", f.ID, f.Importance)
					}
				}
			}
			t.Logf("%s: %v", tc.name, time.Since(start))
		})
	}
	t.Run("CapEnforced", func(t *testing.T) {
		_, err := s.Neighborhood(ctx, ns, kgmem.NeighborhoodQuery{Seeds: []string{hub.ID}, Depth: 1, FanOut: kneo4j.DefaultMaxTraversalFanOut + 1})
		if !errorsIsInvalid(err) {
			t.Fatalf("FanOut above the cap: got %v, want ErrInvalid", err)
		}
		_, err = s.Neighborhood(ctx, ns, kgmem.NeighborhoodQuery{Seeds: []string{hub.ID}, Depth: kneo4j.DefaultMaxTraversalDepth + 1})
		if !errorsIsInvalid(err) {
			t.Fatalf("Depth above the cap: got %v, want ErrInvalid", err)
		}
	})
}
