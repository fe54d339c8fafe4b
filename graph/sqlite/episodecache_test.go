package sqlite_test

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/graph/graphtest"
	"github.com/kgmem/kgmem/graph/sqlite"
	"github.com/samber/lo"
)

// episodeHistory drives two stores on one file through random episode
// writes and checks every Episodes call against the file itself.
type episodeHistory struct {
	t      *testing.T
	rng    *rand.Rand
	stores []*sqlite.Store
	nss    []kgmem.Namespace
	ids    []string
	epoch  int // raised by purges, so re-created episodes get new content
}

// newEpisodeHistory returns a history of writes through stores, over two
// namespaces and twelve episode ids, drawn from seed.
func newEpisodeHistory(t *testing.T, seed uint64, stores ...*sqlite.Store) *episodeHistory {
	h := &episodeHistory{t: t, rng: rand.New(rand.NewPCG(seed, 7)), stores: stores,
		nss: []kgmem.Namespace{"epc/one", "epc/two"}}
	for i := range 12 {
		h.ids = append(h.ids, fmt.Sprintf("ep_c%02d", i))
	}
	return h
}

// historyEpisodes returns the budget of an episode cache that holds about n
// of a history's episodes.
func historyEpisodes(n int) int {
	return n * sqlite.EpisodeBytes(graphtest.Episode("epc/one", "ep_c00", "Ann", "ep_c00 said this in epoch 0"))
}

// store returns one of the stores at random.
func (h *episodeHistory) store() *sqlite.Store { return h.stores[h.rng.IntN(len(h.stores))] }

// ns returns one of the namespaces at random.
func (h *episodeHistory) ns() kgmem.Namespace { return h.nss[h.rng.IntN(len(h.nss))] }

// someIDs returns a few ids, repeats and never-written ones included.
func (h *episodeHistory) someIDs() []string {
	out := make([]string, 1+h.rng.IntN(8))
	for i := range out {
		out[i] = h.ids[h.rng.IntN(len(h.ids))]
	}
	return out
}

// stored reads the episodes of ns from the file, past any cache.
func (h *episodeHistory) stored(s *sqlite.Store, ns kgmem.Namespace) map[string]kgmem.Episode {
	h.t.Helper()
	eps, err := s.ListEpisodes(h.t.Context(), ns, kgmem.Page{Limit: 1000})
	if err != nil {
		h.t.Fatalf("ListEpisodes: %v", err)
	}
	out := map[string]kgmem.Episode{}
	for _, ep := range eps {
		out[ep.ID] = ep
	}
	return out
}

// write makes one random write through a random store.
func (h *episodeHistory) write() {
	ctx, s, ns := h.t.Context(), h.store(), h.ns()
	switch op := h.rng.IntN(10); {
	case op < 4: // insert episodes; one already stored stays as it was
		cs := kgmem.ChangeSet{Namespace: ns}
		for _, id := range h.someIDs() {
			ep := graphtest.Episode(ns, id, "Ann", fmt.Sprintf("%s said this in epoch %d", id, h.epoch))
			// Values as a client sends them; read back from the file, numbers are float64.
			ep.Metadata = map[string]any{"epoch": h.epoch, "tags": []any{"a", map[string]any{"b": "c"}}}
			if h.rng.IntN(4) == 0 {
				ep.Metadata = nil
			}
			ep.Timestamp = ep.Timestamp.Add(time.Duration(h.rng.IntN(1e9))).In(time.Local)
			cs.Episodes = append(cs.Episodes, ep)
		}
		if err := s.Apply(ctx, cs); err != nil {
			h.t.Fatalf("Apply: %v", err)
		}
	case op < 9: // decay updates of stored episodes, facts among them
		var ups []kgmem.DecayUpdate
		stored := h.stored(s, ns)
		for _, id := range h.someIDs() {
			if _, ok := stored[id]; ok {
				at := time.Date(2026, 1, 1, 0, 0, 0, h.rng.IntN(1e9), time.Local).Add(time.Duration(h.rng.IntN(1e6)) * time.Second)
				ups = append(ups, kgmem.DecayUpdate{Kind: kgmem.KindEpisode, ID: id, State: kgmem.DecayState{
					Stability: float64(1 + h.rng.IntN(50)), LastReinforcedAt: at, Reinforcements: h.rng.IntN(9), Pinned: h.rng.IntN(2) == 0}})
			}
		}
		if err := s.SetDecay(ctx, ns, ups); err != nil {
			h.t.Fatalf("SetDecay: %v", err)
		}
	default:
		if _, err := s.PurgeNamespace(ctx, ns); err != nil {
			h.t.Fatalf("PurgeNamespace: %v", err)
		}
		h.epoch++
	}
}

// check compares Episodes of random ids, through a random store, with the file.
func (h *episodeHistory) check(step int) {
	h.t.Helper()
	s, ns, ids := h.store(), h.ns(), h.someIDs()
	if h.rng.IntN(3) == 0 {
		// A search caches the namespace's BM25 index, by which Episodes
		// also tells that an id was never stored.
		if _, err := s.SearchText(h.t.Context(), ns, kgmem.TextQuery{Text: "said epoch"}); err != nil {
			h.t.Fatalf("step %d: SearchText: %v", step, err)
		}
	}
	got, err := s.Episodes(h.t.Context(), ns, ids)
	if err != nil {
		h.t.Fatalf("step %d: Episodes: %v", step, err)
	}
	stored := h.stored(s, ns)
	want := []kgmem.Episode{}
	for _, id := range ids {
		if ep, ok := stored[id]; ok {
			want = append(want, ep)
		}
	}
	if !reflect.DeepEqual(got, want) {
		h.t.Fatalf("step %d: Episodes(%s, %v)\n got %+v\nwant %+v", step, ns, ids, got, want)
	}
	// What a caller does with the result does not reach the cache.
	for i := range got {
		got[i].Content = "changed by the caller"
		if tags, ok := got[i].Metadata["tags"].([]any); ok {
			tags[1].(map[string]any)["b"] = "changed by the caller"
		}
	}
}

// TestEpisodesFollowEveryWrite checks that Episodes returns what the file
// holds after every insert, decay update and purge, made through the same
// store or another one on the file, with a cache large enough to hold all
// and one that evicts, and with searches between that leave BM25 indexes
// for it to rule out ids never stored.
func TestEpisodesFollowEveryWrite(t *testing.T) {
	for _, size := range []int{5, 10_000} {
		t.Run(fmt.Sprintf("cache of %d", size), func(t *testing.T) {
			a, b := openPair(t)
			sqlite.CacheEpisodes(a, historyEpisodes(size))
			sqlite.CacheEpisodes(b, historyEpisodes(size))
			h := newEpisodeHistory(t, uint64(size), a, b)
			for step := range 400 {
				if h.rng.IntN(3) == 0 {
					h.write()
				}
				h.check(step)
			}
		})
	}
}

// TestEpisodesUnderConcurrentWrites reads episodes while decay updates and
// purges run, then checks that both stores read what the file holds: no
// read that raced a write left a stale episode in a cache.
func TestEpisodesUnderConcurrentWrites(t *testing.T) {
	ctx := t.Context()
	a, b := openPair(t)
	const ns = kgmem.Namespace("epc/race")
	ids := []string{"ep_r0", "ep_r1", "ep_r2", "ep_r3"}
	insert := func(s *sqlite.Store, round int) {
		cs := kgmem.ChangeSet{Namespace: ns}
		for _, id := range ids {
			cs.Episodes = append(cs.Episodes, graphtest.Episode(ns, id, "Ann", fmt.Sprintf("%s, round %d", id, round)))
		}
		if err := s.Apply(ctx, cs); err != nil {
			t.Error(err)
		}
	}
	insert(a, 0)
	var wg sync.WaitGroup
	for _, s := range []*sqlite.Store{a, b, a, b} {
		wg.Go(func() {
			for range 200 {
				if _, err := s.Episodes(ctx, ns, ids); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Go(func() {
		for i := range 60 {
			s := []*sqlite.Store{a, b}[i%2]
			if i%20 == 19 {
				if _, err := s.PurgeNamespace(ctx, ns); err != nil {
					t.Error(err)
				}
				insert(s, i)
				continue
			}
			ups := []kgmem.DecayUpdate{{Kind: kgmem.KindEpisode, ID: ids[i%len(ids)], State: kgmem.DecayState{Stability: float64(i + 1)}}}
			if err := s.SetDecay(ctx, ns, ups); err != nil {
				t.Error(err)
			}
		}
	})
	wg.Wait()
	for name, s := range map[string]*sqlite.Store{"a": a, "b": b} {
		got, err := s.Episodes(ctx, ns, ids)
		if err != nil {
			t.Fatal(err)
		}
		want, err := s.ListEpisodes(ctx, ns, kgmem.Page{Limit: 10})
		if err != nil {
			t.Fatal(err)
		}
		slices.SortFunc(got, func(x, y kgmem.Episode) int { return strings.Compare(x.ID, y.ID) })
		if !reflect.DeepEqual(got, want) {
			t.Errorf("store %s after the writes:\n got %+v\nwant %+v", name, got, want)
		}
	}
}

// TestDecayUpdatesKeepCachedEpisodes checks that the store's own decay
// updates (the recall journal's flushes) update the episodes it holds in
// place instead of dropping them, while another store's drop them.
func TestDecayUpdatesKeepCachedEpisodes(t *testing.T) {
	ctx := t.Context()
	a, b := openPair(t)
	const ns = kgmem.Namespace("epc/keep")
	ids := []string{"ep_k0", "ep_k1", "ep_k2"}
	cs := kgmem.ChangeSet{Namespace: ns}
	for _, id := range ids {
		cs.Episodes = append(cs.Episodes, graphtest.Episode(ns, id, "Ann", id+" content"))
	}
	if err := a.Apply(ctx, cs); err != nil {
		t.Fatal(err)
	}
	read := func(s *sqlite.Store) []kgmem.Episode {
		t.Helper()
		eps, err := s.Episodes(ctx, ns, ids)
		if err != nil {
			t.Fatal(err)
		}
		return eps
	}
	read(a)
	if n := sqlite.CachedEpisodes(a, ns); n != len(ids) {
		t.Fatalf("after a first read the store holds %d episodes, want %d", n, len(ids))
	}
	state := kgmem.DecayState{Stability: 9, Reinforcements: 2}
	if err := a.SetDecay(ctx, ns, []kgmem.DecayUpdate{{Kind: kgmem.KindEpisode, ID: "ep_k1", State: state}}); err != nil {
		t.Fatal(err)
	}
	if n := sqlite.CachedEpisodes(a, ns); n != len(ids) {
		t.Fatalf("after its own decay update the store holds %d episodes, want %d", n, len(ids))
	}
	if got := read(a)[1].Decay; got != state {
		t.Fatalf("decay after the update: %+v, want %+v", got, state)
	}
	if err := b.SetDecay(ctx, ns, []kgmem.DecayUpdate{{Kind: kgmem.KindEpisode, ID: "ep_k2", State: state}}); err != nil {
		t.Fatal(err)
	}
	if got := read(a)[2].Decay; got != state {
		t.Fatalf("decay after the other store's update: %+v, want %+v", got, state)
	}
}

// TestEpisodeCacheBytesOption checks what a store opened with
// EpisodeCacheBytes keeps of the episodes it writes and reads: all of them
// within the budget, none with 0 (or a negative budget), and the same
// episodes are returned either way.
func TestEpisodeCacheBytesOption(t *testing.T) {
	const ns = kgmem.Namespace("epc/option")
	ids := []string{"ep_o0", "ep_o1", "ep_o2"}
	for _, tc := range []struct {
		name string
		opts []sqlite.Option
		held int
	}{
		{"default", nil, len(ids)},
		{"1 MiB", []sqlite.Option{sqlite.EpisodeCacheBytes(1 << 20)}, len(ids)},
		{"none", []sqlite.Option{sqlite.EpisodeCacheBytes(0)}, 0},
		{"negative", []sqlite.Option{sqlite.EpisodeCacheBytes(-1)}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := t.Context()
			s, _ := openTemp(t, append([]sqlite.Option{sqlite.Exclusive()}, tc.opts...)...)
			cs := kgmem.ChangeSet{Namespace: ns}
			for _, id := range ids {
				cs.Episodes = append(cs.Episodes, graphtest.Episode(ns, id, "Ann", id+" content"))
			}
			if err := s.Apply(ctx, cs); err != nil {
				t.Fatal(err)
			}
			for range 2 {
				eps, err := s.Episodes(ctx, ns, ids)
				if err != nil {
					t.Fatal(err)
				}
				if got := lo.Map(eps, func(ep kgmem.Episode, _ int) string { return ep.Content }); !slices.Equal(got, []string{"ep_o0 content", "ep_o1 content", "ep_o2 content"}) {
					t.Fatalf("Episodes = %q", got)
				}
			}
			if n := sqlite.CachedEpisodes(s, ns); n != tc.held {
				t.Errorf("holds %d episodes, want %d", n, tc.held)
			}
		})
	}
}
