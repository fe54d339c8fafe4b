package memory_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/embed"
	"github.com/kgmem/kgmem/episodes"
	"github.com/kgmem/kgmem/memory"
	"github.com/kgmem/kgmem/vector/hnsw"
)

// TestCheckAndReindex damages the vectors of a namespace both ways (a vector
// without a record, records without vectors), checks the consistency report
// names exactly that damage, reindexes, and checks the repair and that a
// second reindex changes nothing.
func TestCheckAndReindex(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	ix, err := hnsw.Open(ctx, filepath.Join(dir, "vectors.db"), 256, hnsw.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ix.Close() })
	f := newFaultEngine(t, dir, ix, faultScript(t))
	const ns, other = kgmem.Namespace("re/a"), kgmem.Namespace("re/b")
	for _, m := range faultMessages {
		if _, err := f.engine.Ingest(ctx, memory.IngestRequest{Namespace: ns, ThreadID: "t", Extract: true, Messages: []episodes.Message{m}}); err != nil {
			t.Fatal(err)
		}
	}
	// A message with nothing to embed: its episode has no vector, by rule.
	if _, err := f.engine.Ingest(ctx, memory.IngestRequest{Namespace: ns, ThreadID: "t", Messages: []episodes.Message{msg("m7", "", "!!!", "2024-04-01T00:00:00Z")}}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.engine.Ingest(ctx, memory.IngestRequest{Namespace: other, ThreadID: "t", Messages: []episodes.Message{msg("o1", "Olga", "Hello from another namespace.", "2024-01-01T00:00:00Z")}}); err != nil {
		t.Fatal(err)
	}
	healthy, err := f.engine.CheckConsistency(ctx, ns)
	if err != nil {
		t.Fatal(err)
	}
	// 7 episodes, 6 facts (Alice's kept as history), 11 entities; "!!!" is unembeddable.
	if !healthy.Consistent() || healthy.GraphRecords != 24 || healthy.Vectors != 23 || healthy.Unembeddable != 1 {
		t.Fatalf("healthy namespace: %+v, want 24 records, 23 vectors, 1 unembeddable, consistent", healthy)
	}

	// Damage: drop two records' vectors, add a vector for a record that does not exist.
	keys := listAll(t, ix, ns)
	lost := []kgmem.VectorKey{keys[0], keys[5]}
	if err := ix.Delete(ctx, ns, []string{lost[0].ID, lost[1].ID}); err != nil {
		t.Fatal(err)
	}
	vec, _ := embed.NewHashing(256).Embed(ctx, []string{"a ghost"})
	ghost := kgmem.VectorRecord{ID: "fact_ghost", Namespace: ns, Kind: kgmem.KindFact, Vector: vec[0]}
	if err := ix.Upsert(ctx, []kgmem.VectorRecord{ghost}); err != nil {
		t.Fatal(err)
	}
	damaged, err := f.engine.CheckConsistency(ctx, ns)
	if err != nil {
		t.Fatal(err)
	}
	if damaged.Consistent() || damaged.MissingVectors != 2 || damaged.OrphanVectors != 1 ||
		len(damaged.Orphans) != 1 || damaged.Orphans[0].ID != "fact_ghost" || len(damaged.Missing) != 2 {
		t.Fatalf("damaged namespace: %+v, want 2 missing (%v) and the ghost orphaned", damaged, lost)
	}
	for _, k := range damaged.Missing {
		if k != lost[0] && k != lost[1] {
			t.Errorf("reported missing %v, want one of %v", k, lost)
		}
	}

	for run, want := range []memory.ReindexStats{
		{Namespace: ns, Episodes: 7, Facts: 6, Entities: 11, Upserted: 23, Unembeddable: 1, OrphansDeleted: 1},
		{Namespace: ns, Episodes: 7, Facts: 6, Entities: 11, Upserted: 23, Unembeddable: 1, OrphansDeleted: 0},
	} {
		st, err := f.engine.Reindex(ctx, ns)
		if err != nil {
			t.Fatal(err)
		}
		st.Duration = 0
		if st != want {
			t.Errorf("reindex run %d: %+v, want %+v", run+1, st, want)
		}
		after, err := f.engine.CheckConsistency(ctx, ns)
		if err != nil {
			t.Fatal(err)
		}
		if !after.Consistent() || after.Vectors != 23 {
			t.Errorf("after reindex run %d: %+v, want consistent with 23 vectors", run+1, after)
		}
	}
	if n, _ := ix.Count(ctx, other, ""); n != 1 {
		t.Errorf("reindexing %s touched %s: %d vectors, want 1", ns, other, n)
	}
	all, err := f.engine.CheckAllConsistency(ctx)
	if err != nil || len(all) != 2 || !all[0].Consistent() || !all[1].Consistent() {
		t.Errorf("CheckAllConsistency = %+v, %v; want two consistent namespaces", all, err)
	}
}

// TestRebuildVectors empties the vector index under an engine (what a
// Milvus restarted empty leaves) and rebuilds it with concurrent calls of
// RebuildVectors: they share one rebuild (at least one call reports that it
// ran it), none fails, and afterwards every namespace is consistent and no
// rebuild is reported running.
func TestRebuildVectors(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	ix, err := hnsw.Open(ctx, filepath.Join(dir, "vectors.db"), 256, hnsw.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ix.Close() })
	f := newFaultEngine(t, dir, ix, faultScript(t))
	nss := []kgmem.Namespace{"rb/a", "rb/b"}
	for _, ns := range nss {
		for _, m := range faultMessages {
			if _, err := f.engine.Ingest(ctx, memory.IngestRequest{Namespace: ns, ThreadID: "t", Extract: true, Messages: []episodes.Message{m}}); err != nil {
				t.Fatal(err)
			}
		}
		if err := ix.DeleteNamespace(ctx, ns); err != nil {
			t.Fatal(err)
		}
		if r, err := f.engine.CheckConsistency(ctx, ns); err != nil || r.Consistent() {
			t.Fatalf("%s after its vectors were dropped: %+v, %v; want inconsistent", ns, r, err)
		}
	}
	ran := make(chan bool, 3)
	errs := make(chan error, 3)
	for range 3 {
		go func() {
			r, err := f.engine.RebuildVectors(ctx)
			ran <- r
			errs <- err
		}()
	}
	anyRan := false
	for range 3 {
		anyRan = <-ran || anyRan
		if err := <-errs; err != nil {
			t.Errorf("RebuildVectors: %v", err)
		}
	}
	if !anyRan {
		t.Error("no RebuildVectors call reports that it rebuilt")
	}
	if f.engine.VectorsRebuilding() {
		t.Error("a rebuild is still reported running after every call returned")
	}
	for _, ns := range nss {
		if r, err := f.engine.CheckConsistency(ctx, ns); err != nil || !r.Consistent() || r.Vectors == 0 {
			t.Errorf("%s after the rebuild: %+v, %v; want consistent", ns, r, err)
		}
	}
}
