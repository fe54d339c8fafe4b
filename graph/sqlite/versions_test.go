package sqlite_test

import (
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/graph/graphtest"
	"github.com/kgmem/kgmem/graph/sqlite"
)

// TestConformanceExclusive runs the suite on stores that keep their
// namespaces' versions in memory.
func TestConformanceExclusive(t *testing.T) {
	graphtest.Run(t, func(t *testing.T) kgmem.GraphStore {
		s, _ := openTemp(t, sqlite.Exclusive())
		return s
	})
}

// TestExclusiveOwnsTheFile checks who may open a file while another store
// has it open, and that closing a store lets the others in.
func TestExclusiveOwnsTheFile(t *testing.T) {
	ctx := t.Context()
	open := func(path string, exclusive bool) (*sqlite.Store, error) {
		if exclusive {
			return sqlite.Open(ctx, path, sqlite.Exclusive())
		}
		return sqlite.Open(ctx, path)
	}
	tests := []struct {
		name          string
		first, second bool // exclusive
		wantInUse     bool
	}{
		{"shared beside shared", false, false, false},
		{"exclusive beside shared", false, true, true},
		{"shared beside exclusive", true, false, true},
		{"exclusive beside exclusive", true, true, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "graph.db")
			first, err := open(path, tc.first)
			if err != nil {
				t.Fatal(err)
			}
			sample(t, first, "own/x", "x")
			second, err := open(path, tc.second)
			if tc.wantInUse {
				if !errors.Is(err, sqlite.ErrFileInUse) {
					t.Fatalf("second open: got %v, want an error wrapping ErrFileInUse", err)
				}
			} else {
				if err != nil {
					t.Fatalf("second open: %v", err)
				}
				checkSample(t, second, "own/x", "x")
				if err := second.Close(); err != nil {
					t.Fatal(err)
				}
			}
			if err := first.Close(); err != nil {
				t.Fatal(err)
			}
			again, err := open(path, tc.second)
			if err != nil {
				t.Fatalf("open after the first closed: %v", err)
			}
			checkSample(t, again, "own/x", "x")
			if err := again.Close(); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestExclusiveFollowsItsWrites drives an exclusive store through random
// episode writes, checking every Episodes call against the file, and then
// runs searches, thread walks and episode loads while writes go on: once
// they end, every answer must equal a fresh store's on the same file.
func TestExclusiveFollowsItsWrites(t *testing.T) {
	s, path := openTemp(t, sqlite.Exclusive())
	sqlite.CacheEpisodes(s, historyEpisodes(7))
	h := newEpisodeHistory(t, 11, s)
	for step := range 300 {
		if h.rng.IntN(3) == 0 {
			h.write()
		}
		h.check(step)
	}

	ctx := t.Context()
	nss := []kgmem.Namespace{"excl/a", "excl/b"}
	var wg sync.WaitGroup
	writing := make(chan struct{})
	for w, ns := range nss {
		wg.Go(func() {
			for i := range 40 {
				ep := graphtest.Episode(ns, fmt.Sprintf("ep_w%d_%02d", w, i), "Ann", fmt.Sprintf("message %d about rivers and lakes", i))
				ep.Timestamp = ep.Timestamp.Add(time.Duration(i) * time.Second)
				if err := s.Apply(ctx, kgmem.ChangeSet{Namespace: ns, Episodes: []kgmem.Episode{ep}}); err != nil {
					t.Error(err)
					return
				}
				if i%10 == 9 {
					up := kgmem.DecayUpdate{Kind: kgmem.KindEpisode, ID: ep.ID, State: kgmem.DecayState{Stability: float64(i)}}
					if err := s.SetDecay(ctx, ns, []kgmem.DecayUpdate{up}); err != nil {
						t.Error(err)
						return
					}
				}
			}
		})
	}
	answers := func(s *sqlite.Store) map[kgmem.Namespace][3]any {
		out := map[kgmem.Namespace][3]any{}
		for w, ns := range nss {
			hits, err := s.SearchText(ctx, ns, kgmem.TextQuery{Text: "rivers lakes message", Limit: 100})
			if err != nil {
				t.Error(err)
			}
			var ids []string
			for i := range 40 {
				ids = append(ids, fmt.Sprintf("ep_w%d_%02d", w, i))
			}
			near, err := s.ThreadNeighbors(ctx, ns, kgmem.ThreadNeighborsQuery{IDs: ids, Window: 2})
			if err != nil {
				t.Error(err)
			}
			eps, err := s.Episodes(ctx, ns, ids)
			if err != nil {
				t.Error(err)
			}
			out[ns] = [3]any{hits, near, eps}
		}
		return out
	}
	go func() { wg.Wait(); close(writing) }()
	for reading := true; reading; {
		answers(s)
		select {
		case <-writing:
			reading = false
		default:
		}
	}
	got := answers(s)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	fresh, err := sqlite.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = fresh.Close() }()
	if want := answers(fresh); !reflect.DeepEqual(got, want) {
		t.Fatalf("after concurrent writes the exclusive store answers\n%v\na fresh store\n%v", got, want)
	}
}

// TestExclusiveHoldsWhatItWrote checks that an Exclusive store's Apply
// leaves its namespace's versions held, as the file has them (the next
// search need not read them back), that other writes drop them, and that
// under concurrent Applies, decay writes and reads what is held after each
// round is what the file holds.
func TestExclusiveHoldsWhatItWrote(t *testing.T) {
	ctx := t.Context()
	s, _ := openTemp(t, sqlite.Exclusive())
	check := func(step string, ns kgmem.Namespace, wantHeld bool) {
		t.Helper()
		g, e, held := sqlite.HeldVersions(s, ns)
		if held != wantHeld {
			t.Fatalf("%s: %s held %v, want %v", step, ns, held, wantHeld)
		}
		fg, fe, err := sqlite.FileVersions(ctx, s, ns)
		if err != nil {
			t.Fatal(err)
		}
		if held && (g != fg || e != fe) {
			t.Fatalf("%s: %s holds versions %d/%d, the file has %d/%d", step, ns, g, e, fg, fe)
		}
	}
	read := func(ns kgmem.Namespace) {
		t.Helper()
		if _, err := s.Episodes(ctx, ns, []string{"ep_0"}); err != nil {
			t.Fatal(err)
		}
	}
	apply := func(cs kgmem.ChangeSet) {
		t.Helper()
		if err := s.Apply(ctx, cs); err != nil {
			t.Fatal(err)
		}
	}
	ns := kgmem.Namespace("held/a")
	apply(kgmem.ChangeSet{Namespace: ns, Episodes: []kgmem.Episode{graphtest.Episode(ns, "ep_0", "Ann", "first message")}})
	check("apply before any read", ns, false)
	read(ns)
	check("read", ns, true)
	apply(kgmem.ChangeSet{Namespace: ns, Episodes: []kgmem.Episode{graphtest.Episode(ns, "ep_1", "Ann", "second message")}})
	check("apply of an episode", ns, true)
	apply(kgmem.ChangeSet{Namespace: ns, Entities: []kgmem.Entity{graphtest.Entity(ns, "ent_ann", "Ann")}})
	check("apply of an entity", ns, true)
	up := kgmem.DecayUpdate{Kind: kgmem.KindEpisode, ID: "ep_0", State: kgmem.DecayState{Stability: 3}}
	if err := s.SetDecay(ctx, ns, []kgmem.DecayUpdate{up}); err != nil {
		t.Fatal(err)
	}
	check("decay write", ns, false)
	apply(kgmem.ChangeSet{Namespace: ns, Entities: []kgmem.Entity{graphtest.Entity(ns, "ent_bo", "Bo")}})
	check("entity apply with nothing held", ns, false)
	apply(kgmem.ChangeSet{Namespace: ns, Episodes: []kgmem.Episode{graphtest.Episode(ns, "ep_2", "Bo", "third message")}})
	check("episode apply with nothing held (its episode version read in the write)", ns, true)
	apply(kgmem.ChangeSet{Namespace: ns, Entities: []kgmem.Entity{graphtest.Entity(ns, "ent_cy", "Cy")}})
	check("entity apply after a decay write", ns, true)

	nss := []kgmem.Namespace{"held/b", "held/c", "held/d"}
	for round := range 5 {
		var wg sync.WaitGroup
		for w := range 6 {
			wg.Go(func() {
				ns := nss[w%len(nss)]
				for i := range 15 {
					id := fmt.Sprintf("ep_r%d_w%d_%02d", round, w, i)
					cs := kgmem.ChangeSet{Namespace: ns, Episodes: []kgmem.Episode{graphtest.Episode(ns, id, "Ann", "message about rivers")}}
					if i%3 == 1 {
						cs = kgmem.ChangeSet{Namespace: ns, Entities: []kgmem.Entity{graphtest.Entity(ns, "ent_"+id, "Name "+id)}}
					}
					if err := s.Apply(ctx, cs); err != nil {
						t.Error(err)
						return
					}
					if i%5 == 4 {
						up := kgmem.DecayUpdate{Kind: kgmem.KindEpisode, ID: fmt.Sprintf("ep_r%d_w%d_00", round, w), State: kgmem.DecayState{Stability: float64(i)}}
						if err := s.SetDecay(ctx, ns, []kgmem.DecayUpdate{up}); err != nil {
							t.Error(err)
							return
						}
					}
					if _, err := s.Episodes(ctx, ns, []string{id}); err != nil {
						t.Error(err)
						return
					}
				}
				// Ending on a write that keeps the episode version.
				last := fmt.Sprintf("ent_r%d_w%d_last", round, w)
				if err := s.Apply(ctx, kgmem.ChangeSet{Namespace: ns, Entities: []kgmem.Entity{graphtest.Entity(ns, last, "Last")}}); err != nil {
					t.Error(err)
				}
			})
		}
		wg.Wait()
		for _, ns := range nss {
			_, _, held := sqlite.HeldVersions(s, ns)
			check(fmt.Sprintf("round %d", round), ns, held)
		}
	}
}
