package sqlite_test

import (
	"reflect"
	"testing"
	"time"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/graph/sqlite"
)

// TestFactUpdatesInPlace checks that a stored fact written again reads back
// as written through every index that can find it, whichever of its indexed
// columns changed: Apply updates a stored fact in place and sets an indexed
// column only when its value changes, so a change left out of the update
// would leave the fact where the old values put it.
func TestFactUpdatesInPlace(t *testing.T) {
	ns := kgmem.Namespace("update/facts")
	at := time.Date(2025, 5, 6, 7, 8, 9, 0, time.UTC)
	ent := func(id, name string) kgmem.Entity {
		return kgmem.Entity{ID: id, Namespace: ns, Name: name, Type: "thing", CreatedAt: at}
	}
	entities := []kgmem.Entity{ent("ann", "Ann"), ent("bob", "Bob"), ent("lisbon", "Lisbon"), ent("porto", "Porto")}
	stored := kgmem.Fact{ID: "f1", Namespace: ns, SubjectID: "ann", Predicate: "lives_in", ObjectID: "lisbon",
		Text: "Ann lives in Lisbon", Confidence: 0.8, Importance: 5, Episodes: []string{"e1"},
		ValidAt: at, CreatedAt: at, Decay: kgmem.DecayState{Stability: 1, LastReinforcedAt: at}}
	tests := []struct {
		name   string
		change func(f *kgmem.Fact)
	}{
		{"nothing", func(*kgmem.Fact) {}},
		{"an episode added", func(f *kgmem.Fact) { f.Episodes = append(f.Episodes, "e2") }},
		{"unindexed columns", func(f *kgmem.Fact) {
			f.Confidence, f.Attributes, f.ExpiredAt = 0.9, map[string]any{"source": "chat"}, at.Add(time.Hour)
			f.Decay = kgmem.DecayState{Stability: 3, LastReinforcedAt: at.Add(time.Minute), Reinforcements: 2, Pinned: true}
		}},
		{"text", func(f *kgmem.Fact) { f.Text = "Ann moved to a flat in Lisbon" }},
		{"subject", func(f *kgmem.Fact) { f.SubjectID = "bob" }},
		{"predicate", func(f *kgmem.Fact) { f.Predicate = "works_in" }},
		{"object", func(f *kgmem.Fact) { f.ObjectID = "porto" }},
		{"importance", func(f *kgmem.Fact) { f.Importance = 9 }},
		{"valid_at", func(f *kgmem.Fact) { f.ValidAt = at.Add(-24 * time.Hour) }},
		{"invalid_at set", func(f *kgmem.Fact) { f.InvalidAt = at.Add(48 * time.Hour) }},
		{"valid_at cleared", func(f *kgmem.Fact) { f.ValidAt = time.Time{} }},
		{"everything", func(f *kgmem.Fact) {
			f.SubjectID, f.Predicate, f.ObjectID, f.Text, f.Importance = "bob", "works_in", "porto", "Bob works in Porto", 2
			f.ValidAt, f.InvalidAt, f.Episodes = at.Add(time.Hour), at.Add(2*time.Hour), []string{"e3"}
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, _ := openTemp(t)
			sqlite.SearchThroughFTS5(s) // search reads the FTS entries
			if err := s.Apply(t.Context(), kgmem.ChangeSet{Namespace: ns, Entities: entities, Facts: []kgmem.Fact{stored}}); err != nil {
				t.Fatal(err)
			}
			want := stored
			want.Episodes = append([]string(nil), stored.Episodes...)
			tc.change(&want)
			if err := s.Apply(t.Context(), kgmem.ChangeSet{Namespace: ns, Facts: []kgmem.Fact{want}}); err != nil {
				t.Fatal(err)
			}
			got, err := s.Fact(t.Context(), ns, want.ID)
			if err != nil {
				t.Fatal(err)
			}
			want.SubjectName, want.ObjectName, want.SubjectType, want.ObjectType = got.SubjectName, got.ObjectName, "thing", "thing"
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("read back\n%+v\nwant\n%+v", got, want)
			}
			// Each index that can find the fact finds it under its new
			// values, and those that held it under old ones no longer do.
			filters := []kgmem.FactFilter{
				{EntityID: want.SubjectID}, {EntityID: want.ObjectID},
				{EntityID: want.SubjectID, Predicate: want.Predicate}, {EntityID: want.ObjectID, Predicate: want.Predicate},
				{EntityID: want.SubjectID, OtherID: want.ObjectID}, {Predicate: want.Predicate},
			}
			for _, f := range filters {
				f.IncludeExpired = true
				if ids := factIDs(t, s, ns, f); !reflect.DeepEqual(ids, []string{want.ID}) {
					t.Errorf("ListFacts(%+v) = %v, want [%s]", f, ids, want.ID)
				}
			}
			stale := []kgmem.FactFilter{
				{EntityID: stored.SubjectID, Predicate: stored.Predicate}, {EntityID: stored.ObjectID, Predicate: stored.Predicate},
				{EntityID: stored.SubjectID, OtherID: stored.ObjectID},
			}
			for _, f := range stale {
				f.IncludeExpired = true
				matches := f.Predicate == want.Predicate && (f.EntityID == want.SubjectID || f.EntityID == want.ObjectID) ||
					f.OtherID != "" && f.EntityID == want.SubjectID && f.OtherID == want.ObjectID
				if ids := factIDs(t, s, ns, f); len(ids) > 0 != matches {
					t.Errorf("ListFacts(%+v) under the old values = %v", f, ids)
				}
			}
			// The search entry holds the new text, and only it.
			for _, q := range []struct {
				text  string
				found bool
			}{{want.Text, true}, {"flat", want.Text == "Ann moved to a flat in Lisbon"}, {"Lisbon", want.Text != "Bob works in Porto"}} {
				hits, err := s.SearchText(t.Context(), ns, kgmem.TextQuery{Text: q.text, Kinds: []kgmem.Kind{kgmem.KindFact}, IncludeExpired: true, Limit: 10})
				if err != nil {
					t.Fatal(err)
				}
				if found := len(hits) == 1 && hits[0].ID == want.ID; found != q.found {
					t.Errorf("search %q: hits %+v, want found=%t", q.text, hits, q.found)
				}
			}
			// The latest validity bound follows valid_at and invalid_at.
			latest, err := s.LatestTime(t.Context(), ns)
			if err != nil {
				t.Fatal(err)
			}
			if wantLatest := latestBound(want); !latest.Equal(wantLatest) {
				t.Errorf("LatestTime = %v, want %v", latest, wantLatest)
			}
		})
	}
}

// factIDs lists the ids of the facts f finds in ns.
func factIDs(t *testing.T, s *sqlite.Store, ns kgmem.Namespace, f kgmem.FactFilter) []string {
	t.Helper()
	f.Page = kgmem.Page{Limit: 10}
	facts, err := s.ListFacts(t.Context(), ns, f)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, fact := range facts {
		ids = append(ids, fact.ID)
	}
	return ids
}

// latestBound is the later of f's validity bounds (zero: none).
func latestBound(f kgmem.Fact) time.Time {
	if f.InvalidAt.After(f.ValidAt) {
		return f.InvalidAt
	}
	return f.ValidAt
}
