package sqlite_test

import (
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/graph/sqlite"
)

// TestInsertEpisodesInChunks checks what inserting a change set's
// episodes a chunk of rows per statement must keep from inserting them one
// by one: an id already stored is left untouched, an id repeated within the
// change set is inserted by its first row (in the same chunk or a later
// one), every field reads back as written, and invalid UTF-8 is stored
// byte for byte.
func TestInsertEpisodesInChunks(t *testing.T) {
	ns := kgmem.Namespace("insert/episodes")
	at := time.Date(2025, 3, 14, 9, 26, 53, 589_000_000, time.UTC)
	ep := func(id, content string) kgmem.Episode {
		return kgmem.Episode{ID: id, Namespace: ns, ThreadID: "t", MessageID: "m-" + id, Role: "user", Name: "Ann",
			Content: content, Timestamp: at, CreatedAt: at.Add(time.Second),
			Metadata: map[string]any{"n": 1.5, "tags": []any{"a", "b"}},
			Decay:    kgmem.DecayState{Stability: 2.25, LastReinforcedAt: at, Reinforcements: 3, Pinned: true}}
	}
	stored := ep("e1", "stored before")
	// 87 rows: chunks of 64, 16, 4, 1, 1 and 1, with a repeat of the
	// first row in the last chunk and the stored id in the second.
	var many, manyWant []kgmem.Episode
	for i := range 84 {
		e := ep(fmt.Sprintf("m%02d", i), fmt.Sprintf("message %d", i))
		many, manyWant = append(many, e), append(manyWant, e)
		if i == 70 {
			many = append(many, ep("e1", "a rewrite, ignored"))
		}
	}
	many = append(many, ep("m85", "after the fourth chunk"), ep("m00", "a repeat from the first chunk, ignored"))
	manyWant = append(append(manyWant, ep("m85", "after the fourth chunk")), stored)
	tests := []struct {
		name  string
		write []kgmem.Episode
		want  []kgmem.Episode // by id, what reads back
	}{
		{"valid UTF-8", []kgmem.Episode{ep("e1", "a rewrite, ignored"), ep("e2", "second"), ep("e2", "a repeat, ignored"), ep("e3", "third")},
			[]kgmem.Episode{stored, ep("e2", "second"), ep("e3", "third")}},
		{"invalid UTF-8", []kgmem.Episode{ep("e4", "bad \xff byte"), ep("e4", "a repeat, ignored"), ep("e1", "a rewrite, ignored")},
			[]kgmem.Episode{stored, ep("e4", "bad \xff byte")}},
		{"more than a chunk", many, manyWant},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, path := openTemp(t)
			if err := s.Apply(t.Context(), kgmem.ChangeSet{Namespace: ns, Episodes: []kgmem.Episode{stored}}); err != nil {
				t.Fatal(err)
			}
			if err := s.Apply(t.Context(), kgmem.ChangeSet{Namespace: ns, Episodes: tc.write}); err != nil {
				t.Fatal(err)
			}
			ids := make([]string, len(tc.want))
			for i, e := range tc.want {
				ids[i] = e.ID
			}
			// From the store that wrote them (its episode cache) and from
			// another store on the file.
			fresh, err := sqlite.Open(t.Context(), path)
			if err != nil {
				t.Fatal(err)
			}
			defer fresh.Close()
			for name, from := range map[string]*sqlite.Store{"writer": s, "file": fresh} {
				got, err := from.Episodes(t.Context(), ns, ids)
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(got, tc.want) {
					t.Errorf("read back by the %s\n%+v\nwant\n%+v", name, got, tc.want)
				}
			}
			all, err := s.ListEpisodes(t.Context(), ns, kgmem.Page{})
			if err != nil || len(all) != len(tc.want) {
				t.Errorf("ListEpisodes: %d episodes, %v; want %d", len(all), err, len(tc.want))
			}
		})
	}
}
