package neo4j_test

import (
	"context"
	"fmt"
	"log/slog"
	"maps"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/embed"
	"github.com/kgmem/kgmem/episodes"
	"github.com/kgmem/kgmem/graph/neo4j"
	"github.com/kgmem/kgmem/internal/nslock"
	"github.com/kgmem/kgmem/internal/polltest"
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
	eng, box := engineOver(t, s, s)
	return eng, s, box
}

// engineOver is journaledEngine over g, which reads and writes through s.
func engineOver(t *testing.T, s *neo4j.Store, g kgmem.GraphStore) (*memory.Engine, *neo4j.VectorOutbox) {
	t.Helper()
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
	eng, err := memory.New(memory.Config{Graph: g, Vectors: v, Embedder: embed.NewHashing(dim), Outbox: box,
		WriteLocks: nslock.Chain{new(nslock.Local), s.NamespaceLocks(time.Hour, nil)}, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	return eng, box
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

// episodeReads counts the Episodes calls made of its store.
type episodeReads struct {
	kgmem.GraphStore
	calls atomic.Int32
}

func (g *episodeReads) Episodes(ctx context.Context, ns kgmem.Namespace, ids []string) ([]kgmem.Episode, error) {
	g.calls.Add(1)
	return g.GraphStore.Episodes(ctx, ns, ids)
}

// TestSearchReadsEpisodesOnce: on Neo4j the thread retriever learns the
// roles of the turns around its anchors (it walks neither to nor from an
// assistant's turn) with their places in the thread, so a search reads
// episodes once, for the results it shows. It read them a second time, for
// the roles.
func TestSearchReadsEpisodesOnce(t *testing.T) {
	s := openStore(t)
	g := &episodeReads{GraphStore: s}
	eng, _ := engineOver(t, s, g)
	ctx := t.Context()
	const ns = kgmem.Namespace("thread")
	_, err := eng.Ingest(ctx, memory.IngestRequest{Namespace: ns, ThreadID: "th", Messages: []episodes.Message{
		{ID: "m1", Role: "user", Name: "Ann", Content: "what did you research last week?"},
		{ID: "m2", Role: "user", Name: "Bob", Content: "adoption agencies, mostly"},
		{ID: "m3", Role: "assistant", Content: "That sounds like a big step."},
		{ID: "m4", Role: "user", Name: "Ann", Content: "and the research on schools?"},
	}})
	if err != nil {
		t.Fatal(err)
	}
	before := g.calls.Load()
	res, err := eng.Search(ctx, memory.SearchRequest{Namespace: ns, Query: "research", Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	found := map[string]bool{}
	for _, ep := range res.Episodes {
		found[ep.Episode.MessageID] = true
	}
	if !found["m1"] || !found["m2"] {
		t.Errorf("search found %v; want the matching turns and the one after (m1, m2)", found)
	}
	if n := g.calls.Load() - before; n != 1 {
		t.Errorf("a search read episodes %d times; want once", n)
	}
}

// TestAppliedOpsDeletedWithoutALock: applied vector ops wait for the
// release of a lock the store holds, to be deleted in its transaction; with
// no lock held they are deleted in the background, and so are they when
// a lock stays held with appliedBacklog of them waiting.
func TestAppliedOpsDeletedWithoutALock(t *testing.T) {
	s := openStore(t)
	ctx := t.Context()
	box, err := s.VectorOutbox(ctx, "applied-test", time.Hour, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = box.Close() })
	stored := func() int64 {
		n, err := s.StoredVectorOps(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	addDone := func(n int) {
		t.Helper()
		ops := make([]kgmem.VectorOp, n)
		for i := range ops {
			ops[i] = kgmem.VectorOp{Namespace: "applied", Kind: kgmem.KindEpisode, ID: fmt.Sprintf("ep_%d", i), Op: kgmem.VectorUpsert}
		}
		seqs, err := box.Add(ctx, ops)
		if err != nil {
			t.Fatal(err)
		}
		if err := box.Done(seqs); err != nil {
			t.Fatal(err)
		}
	}
	addDone(3)
	polltest.Until(t, 30*time.Second, "applied ops deleted with no lock held", func() bool { return stored() == 0 })

	// A lock held for good: a few ops wait for its release, a backlog does not.
	unlock, err := s.NamespaceLocks(time.Hour, nil).Lock(ctx, "held")
	if err != nil {
		t.Fatal(err)
	}
	addDone(3)
	if n := stored(); n != 3 {
		t.Errorf("%d applied ops stored while a lock is held; want the 3, for its release", n)
	}
	addDone(300)
	polltest.Until(t, 30*time.Second, "a backlog of applied ops deleted while a lock is held", func() bool { return stored() == 0 })
	unlock()
}

// TestQueuedVectorWritesCountsEveryOwner: the count a maintenance command
// reports covers the ops queued by every server of the scope, by
// namespace, without taking any over, and drops the ones applied.
func TestQueuedVectorWritesCountsEveryOwner(t *testing.T) {
	s := openStore(t)
	ctx := t.Context()
	add := func(box *neo4j.VectorOutbox, ns kgmem.Namespace, n int) []uint64 {
		t.Helper()
		ops := make([]kgmem.VectorOp, n)
		for i := range ops {
			ops[i] = kgmem.VectorOp{Namespace: ns, Kind: kgmem.KindEpisode, ID: fmt.Sprintf("ep_%d", i), Op: kgmem.VectorUpsert}
		}
		seqs, err := box.Add(ctx, ops)
		if err != nil {
			t.Fatal(err)
		}
		return seqs
	}
	var boxes []*neo4j.VectorOutbox
	for _, owner := range []string{"server-a", "server-b"} {
		box, err := s.VectorOutbox(ctx, owner, time.Hour, slog.New(slog.DiscardHandler))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = box.Close() })
		boxes = append(boxes, box)
	}
	applied := add(boxes[0], "count/a", 3)
	add(boxes[0], "count/b", 2)
	add(boxes[1], "count/b", 4)

	got, err := s.QueuedVectorWrites(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if want := map[kgmem.Namespace]int{"count/a": 3, "count/b": 6}; !maps.Equal(got, want) {
		t.Errorf("queued vector writes %v, want %v", got, want)
	}
	if n := boxes[1].Len(); n != 4 {
		t.Errorf("counting took ops over: the second server holds %d, want its 4", n)
	}
	if err := boxes[0].Done(applied); err != nil {
		t.Fatal(err)
	}
	polltest.Until(t, 30*time.Second, "applied ops left out of the count", func() bool {
		got, err := s.QueuedVectorWrites(ctx)
		return err == nil && got["count/a"] == 0 && got["count/b"] == 6
	})
}
