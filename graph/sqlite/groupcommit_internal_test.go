package sqlite

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"testing"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/graph/graphtest"
	"github.com/kgmem/kgmem/internal/groupcommit"
)

// TestGroupWithAFailingChangeSet commits one group whose third change set
// names a missing entity and whose fourth's context has ended: the group is
// written again in savepoints, the failing and the ended ones write
// nothing, and the others are written whole. A group that fails nowhere,
// and a lone failing change set, are covered as well.
func TestGroupWithAFailingChangeSet(t *testing.T) {
	ctx := t.Context()
	s := openStore(t)
	ended, cancel := context.WithCancel(ctx)
	cancel()
	ns := kgmem.Namespace("group/fail")
	changeSet := func(i int, object string) kgmem.ChangeSet {
		a := graphtest.Entity(ns, fmt.Sprintf("ent_%d", i), fmt.Sprintf("Person %d", i))
		if object == "" {
			object = a.ID
		}
		return kgmem.ChangeSet{Namespace: ns, Entities: []kgmem.Entity{a},
			Episodes: []kgmem.Episode{graphtest.Episode(ns, fmt.Sprintf("ep_%d", i), "Ann", fmt.Sprintf("message %d", i))},
			Facts:    []kgmem.Fact{graphtest.Fact(ns, fmt.Sprintf("fact_%d", i), a.ID, "knows", object, "knows")}}
	}
	first := 0 // each case's change sets take the next ids
	for _, tc := range []struct {
		name    string
		objects []string // per change set: "" for a valid fact, else its object's id
		ctxs    []context.Context
		want    []error // nil: written
	}{
		{"one fails, one ended", []string{"", "", "ent_missing", "", ""}, []context.Context{ctx, ctx, ctx, ended, ctx},
			[]error{nil, nil, kgmem.ErrInvalid, context.Canceled, nil}},
		{"none fails", []string{"", ""}, []context.Context{ctx, ctx}, []error{nil, nil}},
		{"alone and failing", []string{"ent_missing"}, []context.Context{ctx}, []error{kgmem.ErrInvalid}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var group []*groupedApply
			for i, object := range tc.objects {
				group = append(group, &groupcommit.Request[*pendingApply]{Ctx: tc.ctxs[i], Item: &pendingApply{cs: changeSet(first+i, object)}})
			}
			s.commitGroup(group)
			for i, r := range group {
				id := fmt.Sprintf("ep_%d", first+i)
				eps, err := s.Episodes(ctx, ns, []string{id})
				if err != nil {
					t.Fatal(err)
				}
				switch {
				case tc.want[i] == nil && (r.Err != nil || len(eps) != 1):
					t.Errorf("change set %d: error %v, %d episodes stored; want it written", i, r.Err, len(eps))
				case tc.want[i] != nil && (!errors.Is(r.Err, tc.want[i]) || len(eps) != 0):
					t.Errorf("change set %d: error %v, %d episodes stored; want %v and nothing", i, r.Err, len(eps), tc.want[i])
				}
			}
			first += len(group)
		})
	}
}

// TestGroupSearchEntries checks the FTS5 entries a group writes at its end
// (writeFTS): each change set's in its own namespace, an entity renamed by
// two change sets of one group under its last name only, and nothing of a
// change set that failed, whose group was written again in savepoints.
func TestGroupSearchEntries(t *testing.T) {
	ctx := t.Context()
	s := openStore(t)
	SearchThroughFTS5(s)
	nsA, nsB := kgmem.Namespace("group/fts-a"), kgmem.Namespace("group/fts-b")
	episode := func(ns kgmem.Namespace, id, content string) kgmem.ChangeSet {
		return kgmem.ChangeSet{Namespace: ns, Episodes: []kgmem.Episode{graphtest.Episode(ns, id, "Ann", content)}}
	}
	renamed := func(name string) kgmem.ChangeSet {
		return kgmem.ChangeSet{Namespace: nsA, Entities: []kgmem.Entity{graphtest.Entity(nsA, "ent_renamed", name)}}
	}
	failing := episode(nsB, "ep_failing", "quartz marmalade")
	failing.Facts = []kgmem.Fact{graphtest.Fact(nsB, "fact_failing", "ent_missing", "knows", "ent_missing", "knows")}
	commit := func(sets ...kgmem.ChangeSet) {
		var group []*groupedApply
		for _, cs := range sets {
			group = append(group, &groupcommit.Request[*pendingApply]{Ctx: ctx, Item: &pendingApply{cs: cs}})
		}
		s.commitGroup(group)
	}
	commit(episode(nsA, "ep_a", "walrus lantern"), renamed("Zephyrine Okonkwo"), episode(nsB, "ep_b", "walrus harbour"), renamed("Marisol Okonkwo"))
	commit(episode(nsB, "ep_b2", "harbour quartz"), failing, episode(nsA, "ep_a2", "lantern quartz"))
	for _, tc := range []struct {
		ns    kgmem.Namespace
		query string
		want  []string // ids found, in any order
	}{
		{nsA, "walrus", []string{"ep_a"}},
		{nsB, "walrus", []string{"ep_b"}},
		{nsA, "zephyrine", nil},
		{nsA, "marisol", []string{"ent_renamed"}},
		{nsA, "okonkwo", []string{"ent_renamed"}},
		{nsB, "marmalade", nil},
		{nsB, "quartz", []string{"ep_b2"}},
		{nsA, "quartz", []string{"ep_a2"}},
	} {
		if got := searchIDs(t, s, tc.ns, tc.query); !slices.Equal(got, tc.want) {
			t.Errorf("%s: search %q found %v, want %v", tc.ns, tc.query, got, tc.want)
		}
	}
}

// TestEpisodeSearchEntryOnAReusedRowid: an episode's search entry is
// inserted without removing an older one (it has none), so a purge must
// leave none behind for SQLite to hand the rowid of the namespace's last
// episode to the next one: the new episode is found by its own words only.
func TestEpisodeSearchEntryOnAReusedRowid(t *testing.T) {
	ctx := t.Context()
	s := openStore(t)
	SearchThroughFTS5(s)
	ns := kgmem.Namespace("fts/reused")
	rid := func(id string) (rid int64) {
		t.Helper()
		if err := s.r.QueryRowContext(ctx, `SELECT rid FROM episodes WHERE id = ?`, id).Scan(&rid); err != nil {
			t.Fatal(err)
		}
		return rid
	}
	write := func(id, content string) {
		t.Helper()
		if err := s.Apply(ctx, kgmem.ChangeSet{Namespace: ns, Episodes: []kgmem.Episode{graphtest.Episode(ns, id, "Ann", content)}}); err != nil {
			t.Fatal(err)
		}
	}
	write("ep_before", "walrus lantern")
	before := rid("ep_before")
	if _, err := s.PurgeNamespace(ctx, ns); err != nil {
		t.Fatal(err)
	}
	write("ep_after", "harbour lantern")
	if after := rid("ep_after"); after != before {
		t.Fatalf("the new episode has rowid %d, the purged one had %d: the case is not exercised", after, before)
	}
	for query, want := range map[string][]string{"walrus": nil, "harbour": {"ep_after"}, "lantern": {"ep_after"}} {
		if got := searchIDs(t, s, ns, query); !slices.Equal(got, want) {
			t.Errorf("search %q found %v, want %v", query, got, want)
		}
	}
}

// openStore opens a Store on a new file in t's temporary directory, closed
// when t ends.
func openStore(t *testing.T) *Store {
	t.Helper()
	s, err := Open(t.Context(), filepath.Join(t.TempDir(), "graph.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// searchIDs returns the ids SearchText finds for query in ns, sorted.
func searchIDs(t *testing.T, s *Store, ns kgmem.Namespace, query string) []string {
	t.Helper()
	hits, err := s.SearchText(t.Context(), ns, kgmem.TextQuery{Text: query})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, h := range hits {
		ids = append(ids, h.ID)
	}
	slices.Sort(ids)
	return ids
}
