package hnsw

import (
	"math/rand/v2"
	"path/filepath"
	"testing"
	"time"

	"github.com/kgmem/kgmem"
)

// TestWritesCheckpointInTheBackground: the vector file's connections never
// checkpoint in their commits (wal_autocheckpoint 0) and a write is followed
// by a checkpoint of the store's own.
func TestWritesCheckpointInTheBackground(t *testing.T) {
	ctx := t.Context()
	x, err := Open(ctx, filepath.Join(t.TempDir(), "vectors.db"), 8, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	var pages int
	if err := x.store.db.QueryRowContext(ctx, `PRAGMA wal_autocheckpoint`).Scan(&pages); err != nil || pages != 0 {
		t.Fatalf("wal_autocheckpoint is %d (%v), want 0", pages, err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	if err := x.Upsert(ctx, []kgmem.VectorRecord{{Namespace: "ns", ID: "a", Kind: kgmem.KindFact, Vector: randomVector(rng, 8)}}); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for x.store.checkpoints.Runs() == 0 {
		if time.Now().After(deadline) {
			t.Fatal("no checkpoint 10 s after a write")
		}
		time.Sleep(10 * time.Millisecond)
	}
}
