package sqlite_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/graph/graphtest"
	"github.com/kgmem/kgmem/graph/sqlite"
	"golang.org/x/sync/errgroup"
)

// lexicalCorpus writes a namespace of facts, entities and episodes whose
// texts mix inflections (leads, leading, led), repeats and diacritics, and
// returns the queries to try on it.
func lexicalCorpus(t *testing.T, s kgmem.GraphStore, ns kgmem.Namespace) []string {
	t.Helper()
	people := []string{"Alice Okafor", "Bob Lindqvist", "Carol Mendes", "Dave Kowalski", "Erin Dubois", "Frank Müller", "Zoë Chen"}
	objects := []string{"the ML team", "Northwind Labs", "the Berlin office", "the hiking club", "Project Atlas", "the café on Main Street", "the budget review"}
	verbs := []string{"leads", "is leading", "joined", "managed", "visited", "organizes", "organized", "likes", "reviews", "reviewed"}
	tails := []string{"", " in May", " since 2023", " every Friday", " with great enthusiasm and a lot of patience", " again"}
	rng := rand.New(rand.NewPCG(7, 11))
	cs := kgmem.ChangeSet{Namespace: ns}
	for i, p := range people {
		cs.Entities = append(cs.Entities, graphtest.Entity(ns, fmt.Sprintf("ent_%d", i), p, strings.Fields(p)[0]))
	}
	for i, o := range objects {
		cs.Entities = append(cs.Entities, graphtest.Entity(ns, fmt.Sprintf("obj_%d", i), strings.TrimPrefix(o, "the ")))
	}
	for i := range 240 {
		s, o := rng.IntN(len(people)), rng.IntN(len(objects))
		text := people[s] + " " + verbs[rng.IntN(len(verbs))] + " " + objects[o] + tails[rng.IntN(len(tails))] + "."
		f := graphtest.Fact(ns, fmt.Sprintf("fact_%03d", i), fmt.Sprintf("ent_%d", s), "relates_to", fmt.Sprintf("obj_%d", o), text)
		if i%17 == 0 {
			f.ExpiredAt = f.CreatedAt.Add(1)
		}
		cs.Facts = append(cs.Facts, f)
		if i%3 == 0 {
			cs.Episodes = append(cs.Episodes, graphtest.Episode(ns, fmt.Sprintf("ep_%03d", i), strings.Fields(people[(s+1)%len(people)])[0],
				"Did you hear? "+text+" I think "+objects[rng.IntN(len(objects))]+" matters too."))
		}
	}
	if err := s.Apply(t.Context(), cs); err != nil {
		t.Fatalf("Apply: %v", err)
	}
	return []string{"Who leads the ML team?", "alice", "organizing the hiking club", "Northwind Labs since 2023",
		"cafe", "Zoë", "Müller budget reviews", "what did Bob visit in May", "patience enthusiasm", "Friday",
		"Carol Mendes Project Atlas Berlin office", "nothing matches this"}
}

// TestLexicalMatchesFTS5 checks the in-memory BM25 index against FTS5's
// bm25() on a namespace alone in its file, where FTS5's statistics are the
// namespace's own too: the same hits, in the same order, with the same
// scores, for every kind and with expired facts left out or not.
func TestLexicalMatchesFTS5(t *testing.T) {
	ctx := t.Context()
	mem, fts := openPair(t)
	sqlite.SearchThroughFTS5(fts)
	const ns = kgmem.Namespace("lex/a")
	queries := lexicalCorpus(t, mem, ns)
	for _, q := range queries {
		for _, expired := range []bool{false, true} {
			tq := kgmem.TextQuery{Text: q, Limit: 25, IncludeExpired: expired}
			want, err := fts.SearchText(ctx, ns, tq)
			if err != nil {
				t.Fatalf("FTS5 SearchText(%q): %v", q, err)
			}
			got, err := mem.SearchText(ctx, ns, tq)
			if err != nil {
				t.Fatalf("SearchText(%q): %v", q, err)
			}
			if q != "nothing matches this" && len(want) == 0 {
				t.Fatalf("FTS5 found nothing for %q: the corpus does not exercise it", q)
			}
			if !sameHits(got, want) {
				t.Errorf("SearchText(%q, expired %v):\n in memory %v\n FTS5      %v", q, expired, got, want)
			}
		}
	}
}

// sameHits reports equal hit lists, scores equal to 1e-9 relative.
func sameHits(a, b []kgmem.Hit) bool {
	return slices.EqualFunc(a, b, func(x, y kgmem.Hit) bool {
		return x.Kind == y.Kind && x.ID == y.ID && math.Abs(x.Score-y.Score) <= 1e-9*math.Abs(y.Score)
	})
}

// TestLexicalFollowsEveryWrite checks that a search sees each write made
// through this store or another store on the same file, not the index as it
// was first built.
func TestLexicalFollowsEveryWrite(t *testing.T) {
	ctx := t.Context()
	a, b := openPair(t)
	const ns = kgmem.Namespace("lex/w")
	search := func(s *sqlite.Store, text string, expired bool) []string {
		t.Helper()
		hits, err := s.SearchText(ctx, ns, kgmem.TextQuery{Text: text, IncludeExpired: expired})
		if err != nil {
			t.Fatalf("SearchText(%q): %v", text, err)
		}
		ids := make([]string, len(hits))
		for i, h := range hits {
			ids[i] = h.ID
		}
		return ids
	}
	expect := func(step string, got []string, want ...string) {
		t.Helper()
		if !slices.Equal(got, want) {
			t.Fatalf("after %s: hits %v, want %v", step, got, want)
		}
	}
	f := sample(t, a, ns, "lw") // "Ada programmed the Analytical Engine." with entities and an episode
	expect("the first write", search(a, "analytical", false), "ent_lw_b", f.ID)
	expect("the first write, other store", search(b, "analytical", false), "ent_lw_b", f.ID)

	g := graphtest.Fact(ns, "fact_lw2", "ent_lw_a", "designed", "ent_lw_b", "Ada designed an analytical notation.")
	if err := b.Apply(ctx, kgmem.ChangeSet{Namespace: ns, Facts: []kgmem.Fact{g}}); err != nil {
		t.Fatal(err)
	}
	expect("a fact added by the other store", search(a, "notation", false), g.ID)

	f.ExpiredAt = f.CreatedAt.Add(1)
	if err := b.Apply(ctx, kgmem.ChangeSet{Namespace: ns, Facts: []kgmem.Fact{f}}); err != nil {
		t.Fatal(err)
	}
	expect("expiry by the other store", search(a, "programmed", false), "ep_lw") // "Ada wrote the first program."
	expect("expiry by the other store, history asked", slices.Sorted(slices.Values(search(a, "programmed", true))), "ep_lw", f.ID)

	if err := b.DeleteFact(ctx, ns, g.ID); err != nil {
		t.Fatal(err)
	}
	expect("a delete by the other store", search(a, "notation", false))

	if _, err := b.PurgeNamespace(ctx, ns); err != nil {
		t.Fatal(err)
	}
	expect("a purge by the other store", search(a, "ada analytical", true))
	sample(t, b, ns, "lw")
	expect("re-creation by the other store", search(a, "wrote program", false), "ep_lw", "fact_lw")
}

// TestConcurrentColdSearches runs many first searches at once, each loading
// three BM25 indexes in read transactions: a transaction holding a reader
// connection must never wait for another to prepare a statement (which
// deadlocked once every connection was held so).
func TestConcurrentColdSearches(t *testing.T) {
	s, _ := openTemp(t)
	const namespaces = 12
	for i := range namespaces {
		sample(t, s, kgmem.Namespace(fmt.Sprintf("cold/%02d", i)), "c")
	}
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	g, gctx := errgroup.WithContext(ctx)
	for i := range 4 * namespaces {
		g.Go(func() error {
			ns := kgmem.Namespace(fmt.Sprintf("cold/%02d", i%namespaces))
			hits, err := s.SearchText(gctx, ns, kgmem.TextQuery{Text: "Ada analytical engine program"})
			if err == nil && len(hits) != 4 {
				err = fmt.Errorf("%s: %d hits, want 4", ns, len(hits))
			}
			return err
		})
	}
	if err := g.Wait(); err != nil {
		t.Fatal(err)
	}
}

// TestWritesAdvanceIndexes writes episodes, entities, facts (new, rewritten,
// expired) and items (new, rewritten, emptied) through one store, searching
// it between writes so that its BM25 indexes are cached: each write must
// advance them in place (no rebuild), and every query must rank exactly as
// on a second store on the same file, which rebuilds its indexes from the
// tables after each write.
func TestWritesAdvanceIndexes(t *testing.T) {
	ctx := t.Context()
	writer, reader := openPair(t)
	const ns = kgmem.Namespace("lex/advance")
	queries := lexicalCorpus(t, writer, ns)
	rng := rand.New(rand.NewPCG(3, 5))
	search := func(s *sqlite.Store, q string, expired bool) []kgmem.Hit {
		t.Helper()
		hits, err := s.SearchText(ctx, ns, kgmem.TextQuery{Text: q, IncludeExpired: expired, Limit: 20})
		if err != nil {
			t.Fatal(err)
		}
		return hits
	}
	words := []string{"Alice", "leads", "Northwind", "hiking", "budget", "café", "Friday", "review", "Atlas", "ferry"}
	text := func() string {
		w := make([]string, 3+rng.IntN(6))
		for i := range w {
			w[i] = words[rng.IntN(len(words))]
		}
		return strings.Join(w, " ") + "."
	}
	for step := range 40 {
		for _, q := range queries { // cache (or advance-check) every index
			search(writer, q, true)
		}
		cs := kgmem.ChangeSet{Namespace: ns}
		switch step % 4 {
		case 0:
			cs.Episodes = append(cs.Episodes, graphtest.Episode(ns, fmt.Sprintf("ep_new_%d", step), "Zoë", text()))
		case 1:
			e := graphtest.Entity(ns, fmt.Sprintf("ent_%d", rng.IntN(7)), "Alice Okafor", "Ally "+words[rng.IntN(len(words))])
			cs.Entities = append(cs.Entities, e)
		case 2:
			f := graphtest.Fact(ns, fmt.Sprintf("fact_%03d", rng.IntN(260)), "ent_1", "relates_to", "obj_2", text())
			if rng.IntN(2) == 0 {
				f.ExpiredAt = f.CreatedAt.Add(1)
			}
			cs.Facts = append(cs.Facts, f)
		case 3:
			it := graphtest.Item(ns, fmt.Sprintf("k%d", rng.IntN(3)), `{"v":1}`, text())
			if rng.IntN(3) == 0 {
				it.Text = ""
			}
			cs.Items = append(cs.Items, it)
		}
		if err := writer.Apply(ctx, cs); err != nil {
			t.Fatalf("step %d: %v", step, err)
		}
		for _, kind := range []kgmem.Kind{kgmem.KindFact, kgmem.KindEpisode, kgmem.KindEntity, kgmem.KindItem} {
			if current, err := sqlite.LexicalIsCurrent(ctx, writer, ns, kind); err != nil || !current {
				t.Fatalf("step %d: the writer's %s index was not advanced by the write (%v)", step, kind, err)
			}
		}
		for _, q := range queries {
			for _, expired := range []bool{false, true} {
				if got, want := search(writer, q, expired), search(reader, q, expired); !sameHits(got, want) {
					t.Fatalf("step %d, %q (history %v): advanced index ranks\n%v\nrebuilt ranks\n%v", step, q, expired, got, want)
				}
			}
		}
	}
}

// TestEpisodeSpeakersFromTheIndex checks that the store tells episodes'
// speakers exactly when its BM25 index of the namespace's episodes is held
// at the current version: not before a search builds it, then for every
// episode, those a later write adds included, and never when searches go
// through FTS5.
func TestEpisodeSpeakersFromTheIndex(t *testing.T) {
	for _, fts5 := range []bool{false, true} {
		t.Run(fmt.Sprintf("fts5=%v", fts5), func(t *testing.T) {
			s, _ := openTemp(t)
			if fts5 {
				sqlite.SearchThroughFTS5(s)
			}
			ctx, ns := t.Context(), kgmem.Namespace("speakers/index")
			lexicalCorpus(t, s, ns)
			eps, err := s.ListEpisodes(ctx, ns, kgmem.Page{Limit: 1000})
			if err != nil || len(eps) == 0 {
				t.Fatalf("ListEpisodes: %d, %v", len(eps), err)
			}
			speakers := func(stage string, wantKnown bool) {
				t.Helper()
				ids := make([]string, len(eps))
				for i, ep := range eps {
					ids[i] = ep.ID
				}
				names, known, err := s.EpisodeSpeakers(ctx, ns, ids)
				if err != nil || known != wantKnown {
					t.Fatalf("%s: known %v, %v; want known %v", stage, known, err, wantKnown)
				}
				for i, ep := range eps {
					if known && names[i] != ep.Name {
						t.Fatalf("%s: speaker of %s %q, want %q", stage, ep.ID, names[i], ep.Name)
					}
				}
			}
			// The namespace's first write seeded its index.
			speakers("before a search", !fts5)
			if _, err := s.SearchText(ctx, ns, kgmem.TextQuery{Text: "hiking club", Kinds: []kgmem.Kind{kgmem.KindEpisode}, Limit: 5}); err != nil {
				t.Fatal(err)
			}
			speakers("after a search", !fts5)
			later := graphtest.Episode(ns, "ep_later", "Yusuf", "A message written after the search.")
			if err := s.Apply(ctx, kgmem.ChangeSet{Namespace: ns, Episodes: []kgmem.Episode{later}}); err != nil {
				t.Fatal(err)
			}
			eps = append(eps, later)
			speakers("after a write", !fts5)
		})
	}
}

// TestPurgeDropsViews checks that purging a namespace drops every view the
// store held of it in memory (its BM25 indexes, topology, entity names,
// thread order and entity facts), and only of it: they cannot serve again,
// and kept they held memory until newer views pushed them out.
func TestPurgeDropsViews(t *testing.T) {
	ctx := t.Context()
	s, _ := openTemp(t, sqlite.Exclusive())
	views := func(nss ...kgmem.Namespace) {
		t.Helper()
		for _, ns := range nss {
			ep := graphtest.Episode(ns, "ep_"+string(ns[len(ns)-1:]), "Ann", "Ann says Bob leads the ferry review.")
			ep.ThreadID = "t1"
			cs := kgmem.ChangeSet{Namespace: ns, Episodes: []kgmem.Episode{ep},
				Entities: []kgmem.Entity{graphtest.Entity(ns, "ent_ann", "Ann"), graphtest.Entity(ns, "ent_bob", "Bob")},
				Facts:    []kgmem.Fact{graphtest.Fact(ns, "fact_1", "ent_bob", "leads", "ent_ann", "Bob leads the ferry review")}}
			if err := s.Apply(ctx, cs); err != nil {
				t.Fatal(err)
			}
			if _, err := s.SearchText(ctx, ns, kgmem.TextQuery{Text: "ferry review"}); err != nil {
				t.Fatal(err)
			}
			if _, err := s.ThreadNeighbors(ctx, ns, kgmem.ThreadNeighborsQuery{IDs: []string{ep.ID}, Window: 1}); err != nil {
				t.Fatal(err)
			}
			if _, err := s.Neighborhood(ctx, ns, kgmem.NeighborhoodQuery{Seeds: []string{"ent_bob"}, Depth: 1}); err != nil {
				t.Fatal(err)
			}
			if _, err := s.ListFacts(ctx, ns, kgmem.FactFilter{EntityID: "ent_bob"}); err != nil {
				t.Fatal(err)
			}
		}
	}
	const kept, purged = kgmem.Namespace("views/a"), kgmem.Namespace("views/b")
	views(kept)
	one := sqlite.HeldViews(s)
	views(purged)
	if both := sqlite.HeldViews(s); one == 0 || both != 2*one {
		t.Fatalf("views held: %d of one namespace, %d of two", one, both)
	}
	if _, err := s.PurgeNamespace(ctx, purged); err != nil {
		t.Fatal(err)
	}
	if got := sqlite.HeldViews(s); got != one {
		t.Errorf("after the purge %d views held, want %d: the other namespace's", got, one)
	}
}

// TestFreshNamespaceViewsAreSeeded: the first write of a namespace leaves
// its BM25 indexes and thread order in memory, current, so that its first
// search reads nothing back; searches then rank as FTS5 does and threads
// walk as in SQL. A write-only store seeds nothing.
func TestFreshNamespaceViewsAreSeeded(t *testing.T) {
	ctx := t.Context()
	for _, tc := range []struct {
		name   string
		opts   []sqlite.Option
		seeded bool
	}{
		{"server", nil, true},
		{"bulk import", sqlite.BulkImport(), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "graph.db")
			s, err := sqlite.Open(ctx, path, tc.opts...)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = s.Close() })
			ref, err := sqlite.Open(ctx, path)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = ref.Close() })
			sqlite.SearchThroughFTS5(ref)
			sqlite.WalkThreadsInSQL(ref)
			const ns = kgmem.Namespace("lex/fresh")
			queries := lexicalCorpus(t, s, ns)
			// A second write advances what the first seeded.
			base := time.Date(2024, 5, 1, 9, 0, 0, 0, time.UTC)
			cs := kgmem.ChangeSet{Namespace: ns}
			var ids []string
			for i := range 6 {
				ep := graphtest.Episode(ns, fmt.Sprintf("ep_thread_%d", i), "Ann", fmt.Sprintf("Bob leads the ML team, message %d", i))
				ep.ThreadID, ep.Timestamp = "t1", base.Add(time.Duration(5-i)*time.Minute)
				cs.Episodes = append(cs.Episodes, ep)
				ids = append(ids, ep.ID)
			}
			if err := s.Apply(ctx, cs); err != nil {
				t.Fatal(err)
			}
			for _, kind := range []kgmem.Kind{kgmem.KindEpisode, kgmem.KindFact, kgmem.KindEntity, kgmem.KindItem} {
				current, err := sqlite.LexicalIsCurrent(ctx, s, ns, kind)
				if err != nil {
					t.Fatal(err)
				}
				if current != tc.seeded {
					t.Errorf("BM25 index of %s held current before any search = %v, want %v", kind, current, tc.seeded)
				}
			}
			for _, q := range queries {
				tq := kgmem.TextQuery{Text: q, Limit: 25}
				want, err := ref.SearchText(ctx, ns, tq)
				if err != nil {
					t.Fatal(err)
				}
				got, err := s.SearchText(ctx, ns, tq)
				if err != nil {
					t.Fatal(err)
				}
				if !sameHits(got, want) {
					t.Errorf("SearchText(%q):\n seeded %v\n FTS5   %v", q, got, want)
				}
			}
			q := kgmem.ThreadNeighborsQuery{IDs: ids, Window: 2}
			got, err := s.ThreadNeighbors(ctx, ns, q)
			if err != nil {
				t.Fatal(err)
			}
			want, err := ref.ThreadNeighbors(ctx, ns, q)
			if err != nil {
				t.Fatal(err)
			}
			if len(want) == 0 || !reflect.DeepEqual(got, want) {
				t.Errorf("thread neighbours: seeded %v, in SQL %v", got, want)
			}
		})
	}
}
