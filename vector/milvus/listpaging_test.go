package milvus_test

import (
	"fmt"
	mrand "math/rand/v2"
	"testing"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/vector/milvus"
)

// TestListIDsPagesEveryRecord: paging through a namespace written in many
// batches, part of it written again (an upsert is a delete and an insert
// in Milvus, so rows move between segments), lists every record once, in
// id order. Milvus answers a query with a limit with rows that are not
// always the smallest ids, so a page cut at its last id skipped records
// (a `server check` after a killed import counted 512 vectors of 800).
func TestListIDsPagesEveryRecord(t *testing.T) {
	const dim, n, page = 8, 1200, 500
	ctx := testCtx(t)
	ix := openFresh(t, milvus.Config{Dim: dim, ConsistencyLevel: milvus.Strong})
	ns := kgmem.Namespace("paging/ns")
	rng := mrand.New(mrand.NewPCG(3, 9))
	recs := make([]kgmem.VectorRecord, n)
	for i := range recs {
		v := make([]float32, dim)
		for j := range v {
			v[j] = rng.Float32() + 0.1
		}
		recs[i] = kgmem.VectorRecord{ID: fmt.Sprintf("ep_%016x", rng.Uint64()), Namespace: ns, Kind: kgmem.KindEpisode, Vector: v}
	}
	for start := 0; start < n; start += 100 {
		if err := ix.Upsert(ctx, recs[start:start+100]); err != nil {
			t.Fatal(err)
		}
	}
	// Write every other record again, in a shuffled order.
	again := make([]kgmem.VectorRecord, 0, n/2)
	for i := 0; i < n; i += 2 {
		again = append(again, recs[i])
	}
	rng.Shuffle(len(again), func(i, j int) { again[i], again[j] = again[j], again[i] })
	for start := 0; start < len(again); start += 50 {
		if err := ix.Upsert(ctx, again[start:min(start+50, len(again))]); err != nil {
			t.Fatal(err)
		}
	}
	seen := map[string]bool{}
	after := ""
	for pages := 0; ; pages++ {
		if pages > n {
			t.Fatal("paging does not end")
		}
		keys, err := ix.ListIDs(ctx, ns, kgmem.Page{After: after, Limit: page})
		if err != nil {
			t.Fatal(err)
		}
		for i, k := range keys {
			if k.ID <= after || (i > 0 && k.ID <= keys[i-1].ID) || seen[k.ID] {
				t.Fatalf("page after %q: %q out of order or repeated", after, k.ID)
			}
			seen[k.ID] = true
		}
		if len(keys) < page {
			break
		}
		after = keys[len(keys)-1].ID
	}
	if len(seen) != n {
		t.Fatalf("paging listed %d of %d records", len(seen), n)
	}
}
