package memory_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"reflect"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/embed"
	"github.com/kgmem/kgmem/episodes"
	"github.com/kgmem/kgmem/memory"
)

// countingGraph counts the episodes a search loads, and the loads, and, with
// hideSpeakers, answers EpisodeSpeakers as a store that cannot tell them.
type countingGraph struct {
	kgmem.GraphStore
	hideSpeakers  bool
	loaded, loads *atomic.Int64
}

func (g countingGraph) Episodes(ctx context.Context, ns kgmem.Namespace, ids []string) ([]kgmem.Episode, error) {
	g.loaded.Add(int64(len(ids)))
	g.loads.Add(1)
	return g.GraphStore.Episodes(ctx, ns, ids)
}

func (g countingGraph) EpisodeSpeakers(ctx context.Context, ns kgmem.Namespace, ids []string) ([]string, bool, error) {
	if g.hideSpeakers {
		return nil, false, nil
	}
	return g.GraphStore.EpisodeSpeakers(ctx, ns, ids)
}

// TestSpeakerBonusBoundedPerEpisode checks the search's use of the store's
// episode speakers: over a conversation of eight speakers, queries that name
// one speaker, two or none return exactly what they return when the store
// cannot tell speakers (every candidate then bounded by the bonus), scores
// and order included, while loading fewer episodes in all.
func TestSpeakerBonusBoundedPerEpisode(t *testing.T) {
	ctx := t.Context()
	g := searchBackends(t)["sqlite"](t)
	v := openVectors(t, embed.NewHashing(256))
	clock := &fakeClock{now: time.Date(2024, 3, 1, 12, 0, 0, 0, time.UTC)}
	// The stores are in this process (InlineWhenBusy), as the engine is
	// told in cmd/server: its first loads are small, and the speakers'
	// bound shows in the episodes loaded. remote is the same store as a
	// remote one, whose first loads are larger to save round trips.
	engine := func(hide, inProcess bool, loaded, loads *atomic.Int64) *memory.Engine {
		return newSearchEngineWith(t, countingGraph{GraphStore: g, hideSpeakers: hide, loaded: loaded, loads: loads},
			memory.Config{Vectors: v, Clock: clock, Search: memory.SearchOptions{VectorWeight: 0.01, TextWeight: 1}, InlineWhenBusy: inProcess})
	}
	var loadedKnown, loadedHidden, loadedRemote, loadsKnown, loadsHidden, loadsRemote atomic.Int64
	known, hidden := engine(false, true, &loadedKnown, &loadsKnown), engine(true, true, &loadedHidden, &loadsHidden)
	remote := engine(false, false, &loadedRemote, &loadsRemote)

	ns := kgmem.Namespace("memtest/speakerbound")
	speakers := []string{"Caroline", "Melanie", "Oscar", "Priya", "Dmitri", "Kara", "Yusuf", "Ines"}
	topics := []string{"hiking", "painting", "adoption", "guitar", "sourdough", "marathon", "pottery", "camping", "parade", "library", "garden", "violin"}
	r := rand.New(rand.NewPCG(5, 8))
	day := clock.Now().Add(-90 * 24 * time.Hour)
	var msgs []episodes.Message
	for i := range 1000 {
		content := fmt.Sprintf("I talked about %s and %s with %s today.", topics[r.IntN(len(topics))], topics[r.IntN(len(topics))], speakers[r.IntN(len(speakers))])
		msgs = append(msgs, episodes.Message{ID: fmt.Sprint(i), Role: "user", Name: speakers[r.IntN(len(speakers))], Content: content,
			Timestamp: day.Add(time.Duration(i) * time.Minute)})
	}
	if _, err := known.Ingest(ctx, memory.IngestRequest{Namespace: ns, ThreadID: "t1", Messages: msgs}); err != nil {
		t.Fatal(err)
	}
	loadedKnown.Store(0) // the ingest's own reads aside
	loadsKnown.Store(0)
	var queries []string
	for _, topic := range topics {
		queries = append(queries,
			"what did "+speakers[r.IntN(len(speakers))]+" say about "+topic,
			speakers[r.IntN(len(speakers))]+" and "+speakers[r.IntN(len(speakers))]+" "+topic,
			"who went "+topic)
	}
	for _, q := range queries {
		req := memory.SearchRequest{Namespace: ns, Query: q, Include: []kgmem.Kind{kgmem.KindEpisode}, Limit: 10}
		before := loadedKnown.Load()
		want, err := hidden.Search(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		got, err := known.Search(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		if len(want.Episodes) == 0 || !reflect.DeepEqual(got.Episodes, want.Episodes) {
			t.Errorf("%q: with speakers known %v, unknown %v", q, episodeIDs(got.Episodes), episodeIDs(want.Episodes))
		}
		if fromRemote, err := remote.Search(ctx, req); err != nil || !reflect.DeepEqual(fromRemote.Episodes, want.Episodes) {
			t.Errorf("%q: from a remote store %v (%v), in process %v", q, episodeIDs(fromRemote.Episodes), err, episodeIDs(want.Episodes))
		}
		if loadedKnown.Load() == before {
			t.Fatalf("%q: the search loaded no episodes", q)
		}
	}
	if k, h := loadedKnown.Load(), loadedHidden.Load(); k >= h {
		t.Errorf("%d queries loaded %d episodes with speakers known, %d without: want fewer", len(queries), k, h)
	} else {
		t.Logf("%d queries loaded %d episodes with speakers known, %d without", len(queries), k, h)
	}
	if r, k := loadsRemote.Load(), loadsKnown.Load(); r >= k {
		t.Errorf("%d queries loaded episodes %d times from a remote store, %d in process: want fewer round trips", len(queries), r, k)
	} else {
		t.Logf("%d queries loaded episodes %d times from a remote store, %d in process", len(queries), r, k)
	}
}
