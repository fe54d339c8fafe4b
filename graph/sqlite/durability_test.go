package sqlite_test

import (
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/graph/graphtest"
	"github.com/kgmem/kgmem/graph/sqlite"
)

// sample writes a small graph into ns and returns its fact.
func sample(t *testing.T, s kgmem.GraphStore, ns kgmem.Namespace, p string) kgmem.Fact {
	t.Helper()
	a, b := graphtest.Entity(ns, "ent_"+p+"_a", "Ada Lovelace", "Ada"), graphtest.Entity(ns, "ent_"+p+"_b", "Analytical Engine")
	f := graphtest.Fact(ns, "fact_"+p, a.ID, "programmed", b.ID, "Ada programmed the Analytical Engine.")
	ep := graphtest.Episode(ns, "ep_"+p, "Charles", "Ada wrote the first program.")
	err := s.Apply(t.Context(), kgmem.ChangeSet{Namespace: ns, Episodes: []kgmem.Episode{ep},
		Entities: []kgmem.Entity{a, b}, Facts: []kgmem.Fact{f}, Mentions: []kgmem.Mention{{EpisodeID: ep.ID, EntityID: a.ID}}})
	if err != nil {
		t.Fatalf("Apply: %v", err)
	}
	return f
}

// checkSample fails unless s holds what sample wrote into ns, searchable.
func checkSample(t *testing.T, s kgmem.GraphStore, ns kgmem.Namespace, p string) {
	t.Helper()
	ctx := t.Context()
	f, err := s.Fact(ctx, ns, "fact_"+p)
	if err != nil || f.SubjectName != "Ada Lovelace" || f.Text != "Ada programmed the Analytical Engine." {
		t.Fatalf("Fact = %+v, %v", f, err)
	}
	es, err := s.FindEntities(ctx, ns, kgmem.EntityFilter{Names: []string{"ADA"}})
	if err != nil || len(es) != 1 || es[0].ID != "ent_"+p+"_a" {
		t.Fatalf("FindEntities(ADA) = %v, %v", es, err)
	}
	hits, err := s.SearchText(ctx, ns, kgmem.TextQuery{Text: "first program", Kinds: []kgmem.Kind{kgmem.KindEpisode}})
	if err != nil || len(hits) != 1 || hits[0].ID != "ep_"+p {
		t.Fatalf("SearchText = %v, %v", hits, err)
	}
}

func TestReopenKeepsEverything(t *testing.T) {
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "graph.db")
	s, err := sqlite.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	sample(t, s, "reopen/a", "ra")
	if err := s.PutSettings(ctx, "reopen/a", kgmem.NamespaceSettings{Writes: kgmem.WritePolicy{DisableUpdates: true}}); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	for round := range 2 { // the second reopen runs the schema check on an up-to-date file
		s, err = sqlite.Open(ctx, path)
		if err != nil {
			t.Fatalf("reopen %d: %v", round, err)
		}
		checkSample(t, s, "reopen/a", "ra")
		set, err := s.Settings(ctx, "reopen/a")
		if err != nil || !set.Writes.DisableUpdates {
			t.Fatalf("Settings after reopen = %+v, %v", set, err)
		}
		nss, err := s.Namespaces(ctx)
		if err != nil || len(nss) != 1 || nss[0] != "reopen/a" {
			t.Fatalf("Namespaces after reopen = %v, %v", nss, err)
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

func TestTwoOpensShareOneFile(t *testing.T) {
	s1, path := openTemp(t)
	s2, err := sqlite.Open(t.Context(), path)
	if err != nil {
		t.Fatalf("second Open: %v", err)
	}
	t.Cleanup(func() { _ = s2.Close() })

	sample(t, s1, "two/a", "ta")
	checkSample(t, s2, "two/a", "ta")
	sample(t, s2, "two/b", "tb")
	checkSample(t, s1, "two/b", "tb")

	// Concurrent writers through both stores queue on the file lock; none fails.
	const writers, each = 4, 10
	var wg sync.WaitGroup
	errs := make(chan error, writers*each)
	for w := range writers {
		s := []*sqlite.Store{s1, s2}[w%2]
		wg.Go(func() {
			for i := range each {
				ns := kgmem.Namespace(fmt.Sprintf("two/w%d", w))
				e := graphtest.Entity(ns, fmt.Sprintf("ent_tw_%d_%d", w, i), fmt.Sprintf("Writer %d item %d", w, i))
				errs <- s.Apply(t.Context(), kgmem.ChangeSet{Namespace: ns, Entities: []kgmem.Entity{e}})
			}
		})
	}
	// Readers run beside the writers.
	wg.Go(func() {
		for range 20 {
			if _, err := s1.SearchText(t.Context(), "two/a", kgmem.TextQuery{Text: "ada"}); err != nil {
				errs <- err
			}
		}
	})
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatalf("concurrent use: %v", err)
		}
	}
	for w := range writers {
		es, err := s1.FindEntities(t.Context(), kgmem.Namespace(fmt.Sprintf("two/w%d", w)), kgmem.EntityFilter{})
		if err != nil || len(es) != each {
			t.Fatalf("writer %d: %d entities, %v; want %d", w, len(es), err, each)
		}
	}
}

func TestOpenRejectsBadPaths(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name, path string
		invalid    bool
	}{
		{"Empty", "", true},
		{"Memory", ":memory:", true},
		{"Query", filepath.Join(dir, "a.db?mode=ro"), true},
		{"MissingDirectory", filepath.Join(dir, "no", "such", "dir", "a.db"), false},
		{"Directory", dir, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, err := sqlite.Open(t.Context(), tc.path)
			if err == nil {
				_ = s.Close()
				t.Fatalf("Open(%q) succeeded", tc.path)
			}
			if got := errors.Is(err, kgmem.ErrInvalid); got != tc.invalid {
				t.Fatalf("Open(%q) = %v; ErrInvalid %v, want %v", tc.path, err, got, tc.invalid)
			}
		})
	}
}

func TestOpenRefusesNewerSchema(t *testing.T) {
	s, path := openTemp(t)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`PRAGMA user_version = 99`); err != nil {
		t.Fatal(err)
	}
	_ = db.Close()
	if s, err := sqlite.Open(t.Context(), path); err == nil {
		_ = s.Close()
		t.Fatal("Open of a newer schema succeeded")
	}
}

func TestWALMode(t *testing.T) {
	s, path := openTemp(t)
	sample(t, s, "wal/a", "wa")
	if _, err := os.Stat(path + "-wal"); err != nil {
		t.Fatalf("no write-ahead log next to the database: %v", err)
	}
}

func TestConcurrentOpensOfANewFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "new.db")
	const n = 4
	stores := make([]*sqlite.Store, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { stores[i], errs[i] = sqlite.Open(t.Context(), path) })
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("Open %d: %v", i, err)
		}
		t.Cleanup(func() { _ = stores[i].Close() })
	}
	sample(t, stores[0], "race/a", "rc")
	checkSample(t, stores[n-1], "race/a", "rc")
}
