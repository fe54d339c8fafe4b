package sqlite

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/graph/graphtest"
)

// TestWritesCheckpointInTheBackground: the writer connection never
// checkpoints in its commits (wal_autocheckpoint 0) and a write is followed
// by a checkpoint of the Store's own.
func TestWritesCheckpointInTheBackground(t *testing.T) {
	s, err := Open(t.Context(), filepath.Join(t.TempDir(), "graph.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var pages int
	if err := s.w.QueryRow(`PRAGMA wal_autocheckpoint`).Scan(&pages); err != nil || pages != 0 {
		t.Fatalf("the writer's wal_autocheckpoint is %d (%v), want 0", pages, err)
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
}
