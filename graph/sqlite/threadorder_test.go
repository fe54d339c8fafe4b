package sqlite_test

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"
	"time"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/graph/graphtest"
	"github.com/kgmem/kgmem/graph/sqlite"
)

// TestThreadOrderFollowsWrites writes episodes into a few threads over many
// change sets — timestamps out of order, repeated, or missing; some written
// by another store on the file; the namespace purged there twice and its
// episode ids written again in other places — and after each asks one
// store (whose thread order in memory is advanced by its writes) and
// another on the same file walking the threads in SQL for the neighbours
// of every episode: the answers must be the same.
func TestThreadOrderFollowsWrites(t *testing.T) {
	ctx := t.Context()
	writer, inSQL := openPair(t)
	sqlite.WalkThreadsInSQL(inSQL)
	const ns = kgmem.Namespace("threads/order")
	rng := rand.New(rand.NewPCG(5, 8))
	base := time.Date(2024, 5, 1, 9, 0, 0, 0, time.UTC)
	var ids []string
	next := 0 // the next new episode id; a purge starts the ids over
	for step := range 45 {
		if step%15 == 14 {
			if _, err := inSQL.PurgeNamespace(ctx, ns); err != nil {
				t.Fatal(err)
			}
			next = 0
		}
		cs := kgmem.ChangeSet{Namespace: ns}
		for range 1 + rng.IntN(4) {
			id := fmt.Sprintf("ep_%03d", next)
			next++
			ep := graphtest.Episode(ns, id, "Ann", "message "+id)
			ep.ThreadID = fmt.Sprintf("t%d", rng.IntN(3))
			switch rng.IntN(5) {
			case 0:
				ep.Timestamp = time.Time{} // no timestamp: no neighbours
			case 1:
				ep.Timestamp = base // the same instant as others
			default:
				ep.Timestamp = base.Add(time.Duration(rng.IntN(600)) * time.Minute)
			}
			cs.Episodes = append(cs.Episodes, ep)
			if next > len(ids) {
				ids = append(ids, id)
			}
		}
		if step%7 == 3 && len(ids) > 2 { // an episode stored again is left untouched
			again := graphtest.Episode(ns, ids[0], "Ann", "changed")
			again.Timestamp = base.Add(-time.Hour)
			cs.Episodes = append(cs.Episodes, again)
		}
		by := writer
		if step%5 == 4 {
			by = inSQL
		}
		if err := by.Apply(ctx, cs); err != nil {
			t.Fatal(err)
		}
		q := kgmem.ThreadNeighborsQuery{IDs: ids, Window: 3}
		got, err := writer.ThreadNeighbors(ctx, ns, q)
		if err != nil {
			t.Fatal(err)
		}
		want, err := inSQL.ThreadNeighbors(ctx, ns, q)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("step %d: from the thread order in memory\n%v\nin SQL\n%v", step, got, want)
		}
	}
}
