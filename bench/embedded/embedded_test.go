package embedded_test

import (
	"errors"
	"testing"
	"time"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/bench/embedded"
	"github.com/kgmem/kgmem/embed"
	"github.com/kgmem/kgmem/episodes"
	"github.com/kgmem/kgmem/graph/sqlite"
	"github.com/kgmem/kgmem/memory"
)

// TestStores: an engine over the stores stores and finds a message, and the
// graph file is held by this process alone while they are open, as a
// server holds it.
func TestStores(t *testing.T) {
	ctx := t.Context()
	dir := t.TempDir()
	s, err := embedded.Open(ctx, dir, embed.NewHashing(256))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	e, err := s.Engine(memory.HashingSearchOptions(), nil)
	if err != nil {
		t.Fatal(err)
	}
	ns := kgmem.Namespace("embedded/t")
	if _, err := e.Ingest(ctx, memory.IngestRequest{Namespace: ns, ThreadID: "t", Messages: []episodes.Message{
		{ID: "1", Role: episodes.RoleUser, Content: "Bob leads the Falcon team.", Timestamp: time.Date(2024, 3, 1, 0, 0, 0, 0, time.UTC)}}}); err != nil {
		t.Fatal(err)
	}
	res, err := e.Search(ctx, memory.SearchRequest{Namespace: ns, Query: "Who leads Falcon?"})
	if err != nil || len(res.Episodes) != 1 {
		t.Fatalf("search: %v, %d episodes", err, len(res.Episodes))
	}
	if other, err := embedded.Open(ctx, dir, embed.NewHashing(256)); !errors.Is(err, sqlite.ErrFileInUse) {
		if other != nil {
			other.Close()
		}
		t.Errorf("a second Open of the same directory: %v, want sqlite.ErrFileInUse", err)
	}
}
