package sqlite

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/graph/graphtest"
)

// TestBackgroundCheckpoints: with BackgroundCheckpoints the writer
// connection never checkpoints in its commits (wal_autocheckpoint 0) and a
// write is followed by a checkpoint of the Store's own; without it the
// writer keeps SQLite's default and the Store has no checkpointer.
func TestBackgroundCheckpoints(t *testing.T) {
	for _, tc := range []struct {
		name      string
		opts      []Option
		wantPages int
	}{
		{"default", nil, 1000},
		{"background", []Option{BackgroundCheckpoints()}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := Open(t.Context(), filepath.Join(t.TempDir(), "graph.db"), tc.opts...)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			var pages int
			if err := s.w.QueryRow(`PRAGMA wal_autocheckpoint`).Scan(&pages); err != nil || pages != tc.wantPages {
				t.Fatalf("the writer's wal_autocheckpoint is %d (%v), want %d", pages, err, tc.wantPages)
			}
			if tc.wantPages != 0 {
				if s.checkpoints != nil {
					t.Fatal("a checkpointer without BackgroundCheckpoints")
				}
				return
			}
			ns := kgmem.Namespace("checkpoint/test")
			if err := s.Apply(t.Context(), kgmem.ChangeSet{Namespace: ns, Episodes: []kgmem.Episode{graphtest.Episode(ns, "ep1", "Ann", "hello")}}); err != nil {
				t.Fatal(err)
			}
			deadline := time.Now().Add(10 * time.Second)
			for s.checkpoints.Runs() == 0 {
				if time.Now().After(deadline) {
					t.Fatal("no checkpoint 10 s after a write")
				}
				time.Sleep(10 * time.Millisecond)
			}
		})
	}
}
