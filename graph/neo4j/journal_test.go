package neo4j_test

import (
	"log/slog"
	"path/filepath"
	"testing"
	"time"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/embed"
	"github.com/kgmem/kgmem/episodes"
	"github.com/kgmem/kgmem/graph/neo4j"
	"github.com/kgmem/kgmem/internal/nslock"
	"github.com/kgmem/kgmem/memory"
	"github.com/kgmem/kgmem/vector/hnsw"
)

// journaledEngine is an engine on a fresh scope of the test server, with
// the store's vector outbox and lease locks, as a server runs it. Their
// leases are long, so that no heartbeat, takeover or renewal runs during
// a test and every write transaction counted is the engine's.
func journaledEngine(t *testing.T) (*memory.Engine, *neo4j.Store, *neo4j.VectorOutbox) {
	t.Helper()
	s := openStore(t)
	const dim = 32
	v, err := hnsw.Open(t.Context(), filepath.Join(t.TempDir(), "vectors.db"), dim, hnsw.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = v.Close() })
	box, err := s.VectorOutbox(t.Context(), "journal-test", time.Hour, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = box.Close() })
	eng, err := memory.New(memory.Config{Graph: s, Vectors: v, Embedder: embed.NewHashing(dim), Outbox: box,
		WriteLocks: nslock.Chain{new(nslock.Local), s.NamespaceLocks(time.Hour, nil)}, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	return eng, s, box
}

// TestIngestWritesInThreeTransactions pins the write transactions of an
// ingest on Neo4j: the lock's take; the episodes with their vector ops
// journaled in the same transaction; the lock's release, which deletes the
// ops applied meanwhile. It was five (the ops journaled before the write,
// and deleted after it, each in a transaction of its own). The outbox
// keeps its guarantee: nothing is left queued, in memory or in the
// database, once the vectors are written.
func TestIngestWritesInThreeTransactions(t *testing.T) {
	eng, s, box := journaledEngine(t)
	ctx := t.Context()
	const ns = kgmem.Namespace("journal")
	ingest := func(id, text string) {
		t.Helper()
		res, err := eng.Ingest(ctx, memory.IngestRequest{Namespace: ns, ThreadID: "th", Messages: []episodes.Message{{ID: id, Role: "user", Name: "Ann", Content: text}}})
		if err != nil || len(res.Episodes) != 1 || !res.Episodes[0].Created {
			t.Fatalf("Ingest(%s) = %+v, %v", id, res, err)
		}
	}
	ingest("m1", "the first message creates the lock node") // what a first write creates is not counted
	before := s.WriteTransactions()
	ingest("m2", "Ann moved to Lisbon in the spring")
	if n := s.WriteTransactions() - before; n != 3 {
		t.Errorf("an ingest ran %d write transactions; want 3 (lock, change with its vector ops, release with their deletion)", n)
	}
	if n := box.Len(); n != 0 {
		t.Errorf("%d vector ops still queued in memory after their write", n)
	}
	if n, err := s.StoredVectorOps(ctx); err != nil || n != 0 {
		t.Errorf("%d vector ops (%v) left in the database after the release; want none", n, err)
	}
	hits, err := eng.Search(ctx, memory.SearchRequest{Namespace: ns, Query: "Lisbon", Limit: 5})
	if err != nil || len(hits.Episodes) == 0 {
		t.Errorf("Search(Lisbon) = %+v, %v; want the message", hits, err)
	}
}
