package decay

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/kgmem/kgmem/internal/polltest"

	"github.com/kgmem/kgmem"
	wal "github.com/kgmem/kgmem/internal/journal"
)

// crash stops the reinforcer the way a killed process would: the loop ends,
// nothing more is applied, and the journal is left as it is on disk.
func (r *Reinforcer) crash() {
	r.mu.Lock()
	r.closed = true
	r.mu.Unlock()
	close(r.stop)
	<-r.done
	r.journal.Abandon() // no final sync: only what Enqueue synced is on disk
}

func newReinforcer(t *testing.T, cfg ReinforcerConfig) *Reinforcer {
	t.Helper()
	if cfg.Interval == 0 {
		cfg.Interval = time.Hour // only explicit triggers apply
	}
	r, err := NewReinforcer(cfg)
	if err != nil {
		t.Fatalf("NewReinforcer: %v", err)
	}
	t.Cleanup(func() { _ = r.Close(context.Background()) })
	return r
}

func journalSize(t *testing.T, path string) int64 {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Size()
}

// reinforcerFixture writes one namespace with a fact, an entity and an episode
// created at epoch, and returns their refs.
func reinforcerFixture(t *testing.T, store kgmem.GraphStore, ns kgmem.Namespace) (fact, entity, episode Ref) {
	m := DefaultModel()
	f := newFixture(ns, epoch)
	fact = factRef(f.fact("fact_a", 3, epoch, m.Initial(3, epoch)))
	entity = entityRef(f.entity("Bob", epoch, m.Initial(0, epoch)))
	episode = episodeRef(f.episode("m1", epoch, kgmem.DecayState{})) // never anchored
	f.write(t, store)
	return fact, entity, episode
}

func TestReinforcerFlushApplies(t *testing.T) {
	forEachStore(t, func(t *testing.T, store kgmem.GraphStore) {
		ctx := context.Background()
		const ns = kgmem.Namespace("acme/u1")
		fact, entity, episode := reinforcerFixture(t, store, ns)
		clock := &fakeClock{now: epoch.Add(30 * day)}
		path := filepath.Join(t.TempDir(), "sub", "reinforce.journal")
		r := newReinforcer(t, ReinforcerConfig{Store: store, JournalPath: path, Clock: clock})

		before := map[Ref]kgmem.DecayState{}
		for _, ref := range []Ref{fact, entity, episode} {
			before[ref] = stateOf(t, store, ns, ref)
		}
		if err := r.Enqueue(ns, fact, entity, episode, factRef("fact_deleted")); err != nil {
			t.Fatal(err)
		}
		if r.Pending() != 4 || journalSize(t, path) == 0 {
			t.Fatalf("after Enqueue: pending %d, journal %d bytes", r.Pending(), journalSize(t, path))
		}
		if got := stateOf(t, store, ns, fact); !sameState(got, before[fact]) {
			t.Fatalf("Enqueue wrote to the store synchronously: %+v", got)
		}
		if err := r.Flush(ctx); err != nil {
			t.Fatalf("Flush: %v", err)
		}
		m := DefaultModel()
		importance := map[Ref]int{fact: 3}
		for ref, old := range before {
			want := m.Reinforce(m.Backfill(old, epoch), importance[ref], clock.Now())
			if got := stateOf(t, store, ns, ref); !sameState(got, want) {
				t.Errorf("%v: state %+v, want %+v", ref, got, want)
			}
		}
		if r.Pending() != 0 || journalSize(t, path) != 0 {
			t.Errorf("after Flush: pending %d, journal %d bytes; want both 0", r.Pending(), journalSize(t, path))
		}
	})
}

// TestReinforcerCrashLosesNothing enqueues across two namespaces and several
// times, kills the reinforcer before it applies anything, tears the journal's
// last line as a crash mid-write would, and checks that a new reinforcer on
// the same journal applies every reinforcement, at its original time.
func TestReinforcerCrashLosesNothing(t *testing.T) {
	forEachStore(t, func(t *testing.T, store kgmem.GraphStore) {
		ctx := context.Background()
		const ns1, ns2 = kgmem.Namespace("acme/u1"), kgmem.Namespace("acme/u2")
		f1, e1, ep1 := reinforcerFixture(t, store, ns1)
		f2, _, _ := reinforcerFixture(t, store, ns2)
		path := filepath.Join(t.TempDir(), "reinforce.journal")
		clock := &fakeClock{now: epoch.Add(10 * day)}
		r1 := newReinforcer(t, ReinforcerConfig{Store: store, JournalPath: path, Clock: clock})

		type call struct {
			ns   kgmem.Namespace
			at   time.Time
			refs []Ref
		}
		calls := []call{
			{ns1, epoch.Add(10 * day), []Ref{f1, e1}},
			{ns2, epoch.Add(12 * day), []Ref{f2}},
			{ns1, epoch.Add(40 * day), []Ref{f1, ep1}},
			{ns1, epoch.Add(90 * day), []Ref{f1}},
		}
		for i, c := range calls {
			clock.Set(c.at)
			// A process crash loses neither what Enqueue synced nor what
			// Record left to the operating system.
			record := r1.Enqueue
			if i%2 == 1 {
				record = r1.Record
			}
			if err := record(c.ns, c.refs...); err != nil {
				t.Fatal(err)
			}
		}
		r1.crash()
		for _, ref := range []Ref{f1, e1, ep1} {
			if s := stateOf(t, store, ns1, ref); s.Reinforcements != 0 {
				t.Fatalf("crashed reinforcer applied %v: %+v", ref, s)
			}
		}
		jf, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := jf.WriteString(`{"ns":"acme/u1","at":"2026-0`); err != nil {
			t.Fatal(err)
		}
		if err := jf.Close(); err != nil {
			t.Fatal(err)
		}

		// Expected: every call replayed in time order through the model.
		m := DefaultModel()
		importance := map[Ref]int{f1: 3, f2: 3}
		want := map[kgmem.Namespace]map[Ref]kgmem.DecayState{ns1: {}, ns2: {}}
		for _, c := range calls {
			for _, ref := range c.refs {
				s, ok := want[c.ns][ref]
				if !ok {
					s = m.Backfill(stateOf(t, store, c.ns, ref), epoch)
				}
				want[c.ns][ref] = m.Reinforce(s, importance[ref], c.at)
			}
		}

		clock.Set(epoch.Add(200 * day)) // replay must use the journaled times, not now
		r2 := newReinforcer(t, ReinforcerConfig{Store: store, JournalPath: path, Clock: clock})
		// The replayed backlog is applied in the background without any call.
		polltest.Until(t, 10*time.Second, "the replayed journal to be applied", func() bool { return r2.Pending() == 0 })
		for ns, states := range want {
			for ref, w := range states {
				if got := stateOf(t, store, ns, ref); !sameState(got, w) {
					t.Errorf("%s %v: %+v, want %+v", ns, ref, got, w)
				}
			}
		}
		if s := stateOf(t, store, ns1, f1); s.Reinforcements != 3 {
			t.Errorf("fact recalled 3 times has %d reinforcements", s.Reinforcements)
		}
		if err := r2.Enqueue(ns2, f2); err != nil {
			t.Fatalf("enqueue after replaying a torn journal: %v", err)
		}
		if err := r2.Flush(ctx); err != nil {
			t.Fatal(err)
		}
		if s := stateOf(t, store, ns2, f2); s.Reinforcements != 2 || !s.LastReinforcedAt.Equal(clock.Now()) {
			t.Errorf("ns2 fact after a second recall: %+v", s)
		}
	})
}

func TestReinforcerBatchSizeTriggersApply(t *testing.T) {
	forEachStore(t, func(t *testing.T, store kgmem.GraphStore) {
		const ns = kgmem.Namespace("acme")
		fact, entity, episode := reinforcerFixture(t, store, ns)
		clock := &fakeClock{now: epoch.Add(5 * day)}
		r := newReinforcer(t, ReinforcerConfig{
			Store: store, JournalPath: filepath.Join(t.TempDir(), "j"), Clock: clock, BatchSize: 3,
		})
		if err := r.Enqueue(ns, fact, entity); err != nil {
			t.Fatal(err)
		}
		if err := r.Enqueue(ns, episode); err != nil {
			t.Fatal(err)
		}
		polltest.Until(t, 10*time.Second, "a full batch to be applied", func() bool {
			return stateOf(t, store, ns, episode).Reinforcements == 1
		})
		polltest.Until(t, 10*time.Second, "the queue to drain", func() bool { return r.Pending() == 0 })
	})
}

func TestReinforcerRetriesWhenStoreUnavailable(t *testing.T) {
	forEachStore(t, func(t *testing.T, base kgmem.GraphStore) {
		ctx := context.Background()
		const ns = kgmem.Namespace("acme")
		fact, _, _ := reinforcerFixture(t, base, ns)
		store := &flakyStore{GraphStore: base, failing: true}
		path := filepath.Join(t.TempDir(), "j")
		clock := &fakeClock{now: epoch.Add(5 * day)}
		r := newReinforcer(t, ReinforcerConfig{Store: store, JournalPath: path, Clock: clock})
		if err := r.Enqueue(ns, fact); err != nil {
			t.Fatal(err)
		}
		if err := r.Flush(ctx); !errors.Is(err, kgmem.ErrUnavailable) {
			t.Fatalf("Flush with the store down: %v, want ErrUnavailable", err)
		}
		entries, _, err := wal.Read(path, validEntry)
		if err != nil || len(entries) != 1 || r.Pending() != 1 {
			t.Fatalf("after a failed apply: journal %v (%v), pending %d; want the entry kept", entries, err, r.Pending())
		}
		store.setFailing(false)
		if err := r.Flush(ctx); err != nil {
			t.Fatal(err)
		}
		if s := stateOf(t, base, ns, fact); s.Reinforcements != 1 || !s.LastReinforcedAt.Equal(epoch.Add(5*day)) {
			t.Errorf("after recovery: %+v", s)
		}
		if journalSize(t, path) != 0 {
			t.Errorf("journal not truncated after a successful apply")
		}
	})
}

func TestReinforcerRejectsBadInput(t *testing.T) {
	store := newMemStore()
	path := filepath.Join(t.TempDir(), "j")
	r := newReinforcer(t, ReinforcerConfig{Store: store, JournalPath: path})
	tests := []struct {
		name string
		ns   kgmem.Namespace
		refs []Ref
	}{
		{"namespace", "a//b", []Ref{factRef("x")}},
		{"kind", "acme", []Ref{factRef("x"), {Kind: "edge", ID: "y"}}},
		{"id", "acme", []Ref{{Kind: kgmem.KindEntity}}},
	}
	for _, tt := range tests {
		if err := r.Enqueue(tt.ns, tt.refs...); !errors.Is(err, kgmem.ErrInvalid) {
			t.Errorf("%s: Enqueue = %v, want ErrInvalid", tt.name, err)
		}
	}
	if r.Pending() != 0 || journalSize(t, path) != 0 {
		t.Errorf("rejected input was queued: pending %d, journal %d bytes", r.Pending(), journalSize(t, path))
	}
	if err := r.Enqueue("acme"); err != nil {
		t.Errorf("Enqueue of no refs: %v", err)
	}
	if err := r.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := r.Close(context.Background()); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if err := r.Enqueue("acme", factRef("x")); !errors.Is(err, kgmem.ErrUnavailable) {
		t.Errorf("Enqueue after Close = %v, want ErrUnavailable", err)
	}
	if err := r.Flush(context.Background()); !errors.Is(err, kgmem.ErrUnavailable) {
		t.Errorf("Flush after Close = %v, want ErrUnavailable", err)
	}

	configs := []struct {
		name string
		cfg  ReinforcerConfig
	}{
		{"no store", ReinforcerConfig{JournalPath: path}},
		{"no journal", ReinforcerConfig{Store: store}},
		{"negative interval", ReinforcerConfig{Store: store, JournalPath: path, Interval: -time.Second}},
		{"negative batch", ReinforcerConfig{Store: store, JournalPath: path, BatchSize: -1}},
	}
	for _, tt := range configs {
		if _, err := NewReinforcer(tt.cfg); !errors.Is(err, kgmem.ErrInvalid) {
			t.Errorf("%s: NewReinforcer = %v, want ErrInvalid", tt.name, err)
		}
	}
}

// TestReinforcerPerNamespaceParams: the default model source reads each
// namespace's settings, so a namespace with growth 0 keeps its stability.
func TestReinforcerPerNamespaceParams(t *testing.T) {
	forEachStore(t, func(t *testing.T, store kgmem.GraphStore) {
		ctx := context.Background()
		const plain, flat = kgmem.Namespace("acme/plain"), kgmem.Namespace("acme/flat")
		fp, _, _ := reinforcerFixture(t, store, plain)
		ff, _, _ := reinforcerFixture(t, store, flat)
		if err := store.PutSettings(ctx, flat, kgmem.NamespaceSettings{Decay: json.RawMessage(`{"growth": 0}`)}); err != nil {
			t.Fatal(err)
		}
		clock := &fakeClock{now: epoch.Add(20 * day)}
		r := newReinforcer(t, ReinforcerConfig{Store: store, JournalPath: filepath.Join(t.TempDir(), "j"), Clock: clock})
		if err := r.Enqueue(plain, fp); err != nil {
			t.Fatal(err)
		}
		if err := r.Enqueue(flat, ff); err != nil {
			t.Fatal(err)
		}
		if err := r.Flush(ctx); err != nil {
			t.Fatal(err)
		}
		s0 := DefaultModel().InitialStability(3)
		if s := stateOf(t, store, plain, fp); s.Stability <= s0 {
			t.Errorf("default namespace: stability %v, want above %v", s.Stability, s0)
		}
		if s := stateOf(t, store, flat, ff); s.Stability != s0 || s.Reinforcements != 1 {
			t.Errorf("growth-0 namespace: %+v, want stability %v and one reinforcement", s, s0)
		}
	})
}

// TestReinforcerConcurrentEnqueue races enqueuers against background applies
// (run with -race) and checks every reinforcement is counted exactly once.
func TestReinforcerConcurrentEnqueue(t *testing.T) {
	forEachStore(t, func(t *testing.T, store kgmem.GraphStore) {
		ctx := context.Background()
		const ns = kgmem.Namespace("acme")
		fact, entity, _ := reinforcerFixture(t, store, ns)
		if err := store.PutSettings(ctx, ns, kgmem.NamespaceSettings{Decay: json.RawMessage(`{"massed_window_minutes": 0}`)}); err != nil {
			t.Fatal(err)
		}
		clock := &fakeClock{now: epoch.Add(day)}
		r := newReinforcer(t, ReinforcerConfig{
			Store: store, JournalPath: filepath.Join(t.TempDir(), "j"), Clock: clock, BatchSize: 7,
		})
		const workers, each = 4, 40
		var wg sync.WaitGroup
		for w := range workers {
			wg.Go(func() {
				for range each {
					ref := fact
					if w%2 == 1 {
						ref = entity
					}
					if err := r.Enqueue(ns, ref); err != nil {
						t.Error(err)
						return
					}
				}
			})
		}
		wg.Wait()
		if err := r.Close(ctx); err != nil {
			t.Fatal(err)
		}
		for _, ref := range []Ref{fact, entity} {
			if s := stateOf(t, store, ns, ref); s.Reinforcements != workers/2*each {
				t.Errorf("%v: %d reinforcements, want %d", ref, s.Reinforcements, workers/2*each)
			}
		}
	})
}

// lockedStore records, for every read and write of decay states, whether
// the namespace's lock was held at the time.
type lockedStore struct {
	kgmem.GraphStore
	mu       sync.Mutex
	held     map[kgmem.Namespace]bool
	calls    int
	unlocked []string // calls made without the lock
}

func (s *lockedStore) Lock(_ context.Context, ns kgmem.Namespace) (func(), error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.held[ns] {
		panic("lock of " + string(ns) + " taken twice")
	}
	s.held[ns] = true
	return func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		s.held[ns] = false
	}, nil
}

func (s *lockedStore) note(call string, ns kgmem.Namespace) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls++
	if !s.held[ns] {
		s.unlocked = append(s.unlocked, call+" "+string(ns))
	}
}

func (s *lockedStore) Facts(ctx context.Context, ns kgmem.Namespace, ids []string) ([]kgmem.Fact, error) {
	s.note("Facts", ns)
	return s.GraphStore.Facts(ctx, ns, ids)
}

func (s *lockedStore) Entities(ctx context.Context, ns kgmem.Namespace, ids []string) ([]kgmem.Entity, error) {
	s.note("Entities", ns)
	return s.GraphStore.Entities(ctx, ns, ids)
}

func (s *lockedStore) Episodes(ctx context.Context, ns kgmem.Namespace, ids []string) ([]kgmem.Episode, error) {
	s.note("Episodes", ns)
	return s.GraphStore.Episodes(ctx, ns, ids)
}

func (s *lockedStore) SetDecay(ctx context.Context, ns kgmem.Namespace, updates []kgmem.DecayUpdate) error {
	s.note("SetDecay", ns)
	return s.GraphStore.SetDecay(ctx, ns, updates)
}

// TestReinforcerHoldsLockWhileApplying checks that with ReinforcerConfig.Lock
// an apply reads and writes each namespace's decay states only while holding
// that namespace's lock, so an engine write holding the same lock cannot
// land between its read and its write.
func TestReinforcerHoldsLockWhileApplying(t *testing.T) {
	forEachStore(t, func(t *testing.T, store kgmem.GraphStore) {
		const ns1, ns2 = kgmem.Namespace("acme/u1"), kgmem.Namespace("acme/u2")
		fact1, entity1, _ := reinforcerFixture(t, store, ns1)
		fact2, _, episode2 := reinforcerFixture(t, store, ns2)
		ls := &lockedStore{GraphStore: store, held: map[kgmem.Namespace]bool{}}
		r := newReinforcer(t, ReinforcerConfig{
			Store: ls, Models: StoreModels(store), Lock: ls,
			JournalPath: filepath.Join(t.TempDir(), "reinforce.journal"), Clock: &fakeClock{now: epoch.Add(day)},
		})
		if err := r.Enqueue(ns1, fact1, entity1); err != nil {
			t.Fatal(err)
		}
		if err := r.Enqueue(ns2, fact2, episode2); err != nil {
			t.Fatal(err)
		}
		if err := r.Flush(context.Background()); err != nil {
			t.Fatal(err)
		}
		if ls.calls < 4 || len(ls.unlocked) > 0 {
			t.Fatalf("%d store calls, made without the namespace's lock: %v", ls.calls, ls.unlocked)
		}
		if got := stateOf(t, store, ns2, fact2); got.Reinforcements == 0 {
			t.Errorf("fact of %s not reinforced: %+v", ns2, got)
		}
	})
}

// failOnceStore fails one SetDecay call, the failAt-th, with ErrUnavailable
// and records which namespace locks each call held.
type failOnceStore struct {
	*lockedStore
	failAt int
	sets   int
	locks  int
}

func (s *failOnceStore) Lock(ctx context.Context, ns kgmem.Namespace) (func(), error) {
	s.mu.Lock()
	s.locks++
	s.mu.Unlock()
	return s.lockedStore.Lock(ctx, ns)
}

func (s *failOnceStore) SetDecay(ctx context.Context, ns kgmem.Namespace, updates []kgmem.DecayUpdate) error {
	s.mu.Lock()
	s.sets++
	fail := s.sets == s.failAt
	s.mu.Unlock()
	if fail {
		return fmt.Errorf("failing once: %w", kgmem.ErrUnavailable)
	}
	return s.lockedStore.SetDecay(ctx, ns, updates)
}

// TestReinforcerFlushesInChunks recalls more episodes than one chunk: the
// flush takes the namespace's lock once per chunk (an ingest waits for one
// chunk, not the whole flush), and when a chunk fails only the refs not yet
// written are retried, so every episode is reinforced exactly once.
func TestReinforcerFlushesInChunks(t *testing.T) {
	forEachStore(t, func(t *testing.T, store kgmem.GraphStore) {
		ctx := context.Background()
		const ns = kgmem.Namespace("acme/chunks")
		f := newFixture(ns, epoch)
		var refs []Ref
		for i := range 2*loadChunk + 10 {
			refs = append(refs, episodeRef(f.episode(numbered("m", i), epoch, kgmem.DecayState{})))
		}
		f.write(t, store)
		fs := &failOnceStore{lockedStore: &lockedStore{GraphStore: store, held: map[kgmem.Namespace]bool{}}, failAt: 2}
		r := newReinforcer(t, ReinforcerConfig{Store: fs, Models: StoreModels(store), Lock: fs, BatchSize: 10 * len(refs),
			JournalPath: filepath.Join(t.TempDir(), "j"), Clock: &fakeClock{now: epoch.Add(day)}})
		if err := r.Enqueue(ns, refs[:loadChunk]...); err != nil {
			t.Fatal(err)
		}
		if err := r.Enqueue(ns, refs[loadChunk:]...); err != nil {
			t.Fatal(err)
		}
		if err := r.Flush(ctx); !errors.Is(err, kgmem.ErrUnavailable) {
			t.Fatalf("flush with the second chunk failing: %v, want ErrUnavailable", err)
		}
		if fs.locks != 2 || r.Pending() != len(refs)-loadChunk {
			t.Fatalf("after the failed chunk: %d locks taken, %d refs pending; want 2 and %d", fs.locks, r.Pending(), len(refs)-loadChunk)
		}
		if err := r.Flush(ctx); err != nil {
			t.Fatal(err)
		}
		if fs.locks != 4 || len(fs.unlocked) > 0 {
			t.Fatalf("%d locks taken in all, calls without the lock %v; want 4 and none", fs.locks, fs.unlocked)
		}
		for _, ref := range refs {
			if s := stateOf(t, store, ns, ref); s.Reinforcements != 1 {
				t.Fatalf("%v reinforced %d times, want once: %+v", ref, s.Reinforcements, s)
			}
		}
	})
}
