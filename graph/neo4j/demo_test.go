package neo4j_test

import (
	"os"
	"testing"
	"time"

	"github.com/kgmem/kgmem"
	kneo4j "github.com/kgmem/kgmem/graph/neo4j"
	"github.com/kgmem/kgmem/internal/testenv"
)

// demoEnv enables TestSeedDemo.
const demoEnv = "KGMEM_NEO4J_DEMO"

// TestSeedDemo writes the small namespace "demo/alice" that the exploration
// queries of docs/neo4j.md are written against, and leaves it in place:
//
//	KGMEM_TEST_NEO4J_URI=bolt://127.0.0.1:7687 KGMEM_NEO4J_DEMO=1 \
//	  go test -run TestSeedDemo ./graph/neo4j/
//
// Re-running it rewrites the same records (the ids are fixed).
func TestSeedDemo(t *testing.T) {
	if os.Getenv(demoEnv) == "" {
		t.Skip("set " + demoEnv + "=1 to write the demo namespace demo/alice")
	}
	ctx := t.Context()
	s, err := kneo4j.Open(ctx, kneo4j.Config{URI: testenv.Neo4jURI(t)})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = s.Close() }()
	ns := kgmem.Namespace("demo/alice")
	day := func(d int) time.Time { return time.Date(2025, 1, 1, 9, 0, 0, 0, time.UTC).AddDate(0, 0, d) }
	ent := func(name, typ string, aliases ...string) kgmem.Entity {
		return kgmem.Entity{ID: kgmem.EntityID(ns, name), Namespace: ns, Name: name, Type: typ, Aliases: aliases, CreatedAt: day(0), UpdatedAt: day(0)}
	}
	alice, bob := ent("Alice Chen", kgmem.TypePerson, "Alice"), ent("Bob Marley", kgmem.TypePerson, "Bob")
	acme, ml := ent("Acme Robotics", kgmem.TypeOrganization, "Acme"), ent("ML team", kgmem.TypeTeam)
	zurich, berlin := ent("Zürich", kgmem.TypePlace), ent("Berlin", kgmem.TypePlace)
	sourdough, violin := ent("Sourdough", kgmem.TypeConcept), ent("Violin", kgmem.TypeObject)
	ep1 := kgmem.Episode{ID: kgmem.EpisodeID(ns, "t1", "m1"), Namespace: ns, ThreadID: "t1", MessageID: "m1", Role: "user", Name: "Alice",
		Content: "I joined Acme Robotics in Berlin; Bob leads the ML team there.", Timestamp: day(1), CreatedAt: day(1)}
	ep2 := kgmem.Episode{ID: kgmem.EpisodeID(ns, "t1", "m2"), Namespace: ns, ThreadID: "t1", MessageID: "m2", Role: "user", Name: "Alice",
		Content: "Big news: I moved to Zürich last week! Still baking sourdough every Sunday.", Timestamp: day(200), CreatedAt: day(200)}
	fact := func(id string, s kgmem.Entity, pred string, o kgmem.Entity, text string, ep kgmem.Episode, imp int) kgmem.Fact {
		return kgmem.Fact{ID: "fact_demo_" + id, Namespace: ns, SubjectID: s.ID, Predicate: pred, ObjectID: o.ID, Text: text,
			Confidence: 0.9, Importance: imp, Episodes: []string{ep.ID}, ValidAt: ep.Timestamp, CreatedAt: ep.CreatedAt,
			Decay: kgmem.DecayState{Stability: 30, LastReinforcedAt: ep.CreatedAt}}
	}
	livesBerlin := fact("lives_berlin", alice, "lives_in", berlin, "Alice lives in Berlin.", ep1, 7)
	livesBerlin.InvalidAt, livesBerlin.ExpiredAt = day(193), day(200)
	bakes := fact("bakes", alice, "bakes", sourdough, "Alice bakes sourdough bread every Sunday.", ep2, 3)
	plays := fact("plays", bob, "plays", violin, "Bob plays the violin.", ep1, 2)
	plays.Decay.ForgottenAt = day(400)
	cs := kgmem.ChangeSet{
		Namespace: ns,
		Episodes:  []kgmem.Episode{ep1, ep2},
		Entities:  []kgmem.Entity{alice, bob, acme, ml, zurich, berlin, sourdough, violin},
		Facts: []kgmem.Fact{
			fact("works_at", alice, "works_at", acme, "Alice works at Acme Robotics.", ep1, 8),
			fact("leads", bob, "leads", ml, "Bob leads the ML team at Acme Robotics.", ep1, 6),
			fact("part_of", ml, "part_of", acme, "The ML team is part of Acme Robotics.", ep1, 4),
			fact("located", acme, "located_in", berlin, "Acme Robotics is located in Berlin.", ep1, 4),
			livesBerlin,
			fact("lives_zurich", alice, "lives_in", zurich, "Alice lives in Zürich.", ep2, 7),
			bakes, plays,
		},
	}
	for _, e := range []kgmem.Entity{alice, acme, berlin, bob, ml} {
		cs.Mentions = append(cs.Mentions, kgmem.Mention{EpisodeID: ep1.ID, EntityID: e.ID})
	}
	for _, e := range []kgmem.Entity{alice, zurich, sourdough} {
		cs.Mentions = append(cs.Mentions, kgmem.Mention{EpisodeID: ep2.ID, EntityID: e.ID})
	}
	if err := s.Apply(ctx, cs); err != nil {
		t.Fatal(err)
	}
	t.Logf("wrote %d entities, %d facts, %d episodes to %s", len(cs.Entities), len(cs.Facts), len(cs.Episodes), ns)
}
