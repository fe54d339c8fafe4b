package hnsw

import (
	"math/rand/v2"
	"path/filepath"
	"testing"
	"time"

	"github.com/kgmem/kgmem"
)

// TestBackgroundCheckpoints: with Options.BackgroundCheckpoints the vector
// file's connections never checkpoint in their commits (wal_autocheckpoint
// 0) and a write is followed by a checkpoint of the store's own; without
// it they keep SQLite's default and the store has no checkpointer.
func TestBackgroundCheckpoints(t *testing.T) {
	for _, background := range []bool{false, true} {
		t.Run(map[bool]string{false: "default", true: "background"}[background], func(t *testing.T) {
			ctx := t.Context()
			x, err := Open(ctx, filepath.Join(t.TempDir(), "vectors.db"), 8, Options{BackgroundCheckpoints: background})
			if err != nil {
				t.Fatal(err)
			}
			defer x.Close()
			want := map[bool]int{false: 1000, true: 0}[background]
			var pages int
			if err := x.store.db.QueryRowContext(ctx, `PRAGMA wal_autocheckpoint`).Scan(&pages); err != nil || pages != want {
				t.Fatalf("wal_autocheckpoint is %d (%v), want %d", pages, err, want)
			}
			if !background {
				if x.store.checkpoints != nil {
					t.Fatal("a checkpointer without BackgroundCheckpoints")
				}
				return
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
		})
	}
}
