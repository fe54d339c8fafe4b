package decay

import (
	"context"
	"fmt"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/graph/sqlite"
)

// testStores lists the GraphStore implementations the store-backed tests run on.
func testStores() []struct {
	name string
	open func(t *testing.T) kgmem.GraphStore
} {
	return []struct {
		name string
		open func(t *testing.T) kgmem.GraphStore
	}{
		{"mem", func(*testing.T) kgmem.GraphStore { return newMemStore() }},
		{"sqlite", func(t *testing.T) kgmem.GraphStore {
			store, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "graph.db"))
			if err != nil {
				t.Fatalf("open sqlite store: %v", err)
			}
			t.Cleanup(func() { _ = store.Close() })
			return store
		}},
	}
}

// forEachStore runs f as a subtest on every test store.
func forEachStore(t *testing.T, f func(t *testing.T, store kgmem.GraphStore)) {
	for _, s := range testStores() {
		t.Run(s.name, func(t *testing.T) { f(t, s.open(t)) })
	}
}

// fakeClock is a kgmem.Clock the test moves by hand.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = t
}

// fixture builds records of one namespace and writes them with one Apply.
type fixture struct {
	ns       kgmem.Namespace
	entities []kgmem.Entity
	facts    []kgmem.Fact
	episodes []kgmem.Episode
	subject  string
	object   string
}

func newFixture(ns kgmem.Namespace, created time.Time) *fixture {
	f := &fixture{ns: ns}
	f.subject = f.entity("Alice", created, kgmem.DecayState{LastReinforcedAt: created, Pinned: true})
	f.object = f.entity("Acme", created, kgmem.DecayState{LastReinforcedAt: created, Pinned: true})
	return f
}

func (f *fixture) entity(name string, created time.Time, s kgmem.DecayState) string {
	id := kgmem.EntityID(f.ns, name)
	f.entities = append(f.entities, kgmem.Entity{
		ID: id, Namespace: f.ns, Name: name, Type: kgmem.TypeOther, CreatedAt: created, UpdatedAt: created, Decay: s,
	})
	return id
}

func (f *fixture) fact(id string, importance int, created time.Time, s kgmem.DecayState) string {
	f.facts = append(f.facts, kgmem.Fact{
		ID: id, Namespace: f.ns, SubjectID: f.subject, Predicate: "knows", ObjectID: f.object,
		Text: "Alice knows Acme (" + id + ").", Confidence: 1, Importance: importance,
		CreatedAt: created, Decay: s,
	})
	return id
}

func (f *fixture) episode(messageID string, created time.Time, s kgmem.DecayState) string {
	id := kgmem.EpisodeID(f.ns, "t1", messageID)
	f.episodes = append(f.episodes, kgmem.Episode{
		ID: id, Namespace: f.ns, ThreadID: "t1", MessageID: messageID, Role: "user", Content: "message " + messageID,
		Timestamp: created, CreatedAt: created, Decay: s,
	})
	return id
}

func (f *fixture) write(t *testing.T, store kgmem.GraphStore) {
	t.Helper()
	err := store.Apply(context.Background(), kgmem.ChangeSet{
		Namespace: f.ns, Entities: f.entities, Facts: f.facts, Episodes: f.episodes,
	})
	if err != nil {
		t.Fatalf("write fixture: %v", err)
	}
}

// stateOf reads the decay state of one record.
func stateOf(t *testing.T, store kgmem.GraphStore, ns kgmem.Namespace, ref Ref) kgmem.DecayState {
	t.Helper()
	recs, err := loadRecords(context.Background(), store, ns, []Ref{ref})
	if err != nil {
		t.Fatalf("read %v: %v", ref, err)
	}
	rec, ok := recs[ref]
	if !ok {
		t.Fatalf("%s %s is gone from %s", ref.Kind, ref.ID, ns)
	}
	return rec.state
}

func factRef(id string) Ref    { return Ref{kgmem.KindFact, id} }
func entityRef(id string) Ref  { return Ref{kgmem.KindEntity, id} }
func episodeRef(id string) Ref { return Ref{kgmem.KindEpisode, id} }

func numbered(prefix string, i int) string { return fmt.Sprintf("%s_%04d", prefix, i) }

// sameState compares decay states by instant, not by time.Time representation
// (stores may hand times back in another location or precision-normalised form).
func sameState(a, b kgmem.DecayState) bool {
	return a.Stability == b.Stability && a.Reinforcements == b.Reinforcements && a.Pinned == b.Pinned &&
		a.LastReinforcedAt.Equal(b.LastReinforcedAt) && a.ForgottenAt.Equal(b.ForgottenAt)
}

// statesOf reads the decay states of refs with one read per kind; every ref must exist.
func statesOf(t *testing.T, store kgmem.GraphStore, ns kgmem.Namespace, refs []Ref) map[Ref]kgmem.DecayState {
	t.Helper()
	recs, err := loadRecords(context.Background(), store, ns, refs)
	if err != nil {
		t.Fatalf("read states: %v", err)
	}
	out := make(map[Ref]kgmem.DecayState, len(refs))
	for _, ref := range refs {
		rec, ok := recs[ref]
		if !ok {
			t.Fatalf("%s %s is gone from %s", ref.Kind, ref.ID, ns)
		}
		out[ref] = rec.state
	}
	return out
}
