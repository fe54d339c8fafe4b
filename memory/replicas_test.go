package memory_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kgmem/kgmem/internal/polltest"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/embed"
	"github.com/kgmem/kgmem/graph/neo4j"
	"github.com/kgmem/kgmem/internal/nslock"
	"github.com/kgmem/kgmem/internal/testenv"
	"github.com/kgmem/kgmem/memory"
	"github.com/kgmem/kgmem/vector/hnsw"
)

// TestReplicasSerialiseWrites: three engines, each with its own Neo4j
// connection and in-process locks — three servers — write overlapping and
// contradicting facts into one namespace at once. With the database's lease
// locks chained after their own, entity resolution and invalidation see
// each other's writes: one entity per name, one current fact of a
// single-valued relation, one fact per repeated triple.
func TestReplicasSerialiseWrites(t *testing.T) {
	engines, graph := replicaEngines(t, 3)
	const ns = kgmem.Namespace("team/one")
	t.Cleanup(func() { _, _ = engines[0].PurgeNamespace(t.Context(), ns) })
	var wg sync.WaitGroup
	for i, eng := range engines {
		for w := range 3 {
			wg.Go(func() {
				for k := range 4 {
					city := fmt.Sprintf("City %d", (i*12+w*4+k)%5)
					_, err := eng.AddFacts(t.Context(), memory.AddFactsRequest{Namespace: ns, Facts: []kgmem.Triple{
						{Subject: "Bob", SubjectType: "Person", Predicate: "lives_in", Object: city, ObjectType: "Place"},
						{Subject: "Bob", SubjectType: "Person", Predicate: "knows", Object: "Carol", ObjectType: "Person"},
						{Subject: "Carol", SubjectType: "Person", Predicate: "works_at", Object: "Acme", ObjectType: "Organization"},
					}})
					if err != nil {
						t.Error(err)
						return
					}
				}
			})
		}
	}
	wg.Wait()
	for _, name := range []string{"Bob", "Carol", "Acme"} {
		ents, err := graph.FindEntities(t.Context(), ns, kgmem.EntityFilter{Names: []string{name}})
		if err != nil || len(ents) != 1 {
			t.Errorf("entities named %s: %d (%v); want exactly one", name, len(ents), err)
		}
	}
	facts, err := graph.ListFacts(t.Context(), ns, kgmem.FactFilter{Page: kgmem.Page{Limit: 1000}})
	if err != nil {
		t.Fatal(err)
	}
	current := map[string]int{}
	for _, f := range facts {
		current[f.Predicate]++
	}
	if current["lives_in"] != 1 || current["knows"] != 1 || current["works_at"] != 1 {
		t.Errorf("current facts by predicate %v; want exactly one lives_in, knows and works_at", current)
	}
}

// TestVectorWritesOutliveTheirServer: server A's vector writes fail after
// its graph writes (the vector index is unreachable from it), so they wait
// in the outbox kept in Neo4j; A then dies with its disk. Server B, on the
// same database and a working index, takes the writes over once A's
// heartbeat is older than the lease and applies them: the graph and the
// vectors agree again, and nothing is left queued.
func TestVectorWritesOutliveTheirServer(t *testing.T) {
	uri := testenv.Neo4jURI(t)
	ctx := t.Context()
	scope := "o" + strings.ReplaceAll(kgmem.NewID(""), "_", "")
	emb := embed.NewHashing(64)
	vectors, err := hnsw.Open(ctx, filepath.Join(t.TempDir(), "v.db"), emb.Dimension(), hnsw.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = vectors.Close() })
	const lease = 600 * time.Millisecond
	server := func(owner string, v kgmem.VectorIndex) (*memory.Engine, *neo4j.VectorOutbox) {
		g, err := neo4j.Open(ctx, neo4j.Config{URI: uri, Scope: scope})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = g.Close() })
		box, err := g.VectorOutbox(ctx, owner, lease, slog.New(slog.DiscardHandler))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = box.Close() })
		eng, err := memory.New(memory.Config{Graph: g, Vectors: v, Embedder: emb, Outbox: box,
			WriteLocks: nslock.Chain{new(nslock.Local), g.NamespaceLocks(0, nil)}, Logger: slog.New(slog.DiscardHandler)})
		if err != nil {
			t.Fatal(err)
		}
		return eng, box
	}
	const ns = kgmem.Namespace("outlive")
	unreachable := &flakyIndex{VectorIndex: vectors}
	unreachable.down.Store(true)
	a, aBox := server("srv_a", unreachable)
	t.Cleanup(func() { _, _ = a.PurgeNamespace(context.Background(), ns) })
	_, err = a.AddFacts(ctx, memory.AddFactsRequest{Namespace: ns, Facts: []kgmem.Triple{
		{Subject: "Bob", SubjectType: "Person", Predicate: "leads", Object: "ML team", ObjectType: "Team"},
	}})
	if err != nil {
		t.Fatal(err)
	}
	queued := a.OutboxDepth()
	if queued == 0 {
		t.Fatal("A's failed vector writes were not queued")
	}
	_ = aBox.Close() // A dies: no more heartbeat, and nothing on its disk matters

	b, bBox := server("srv_b", vectors)
	drain, stop := context.WithCancel(ctx)
	defer stop()
	go b.RunOutbox(drain)
	go func() {
		for {
			select {
			case <-drain.Done():
				return
			case <-bBox.Adopted():
				b.KickOutbox()
			}
		}
	}()
	polltest.Until(t, 30*time.Second, "B to apply A's queued vector writes", func() bool {
		rep, err := b.CheckConsistency(ctx, ns)
		return err == nil && rep.Consistent() && rep.GraphRecords > 0 && b.OutboxDepth() == 0
	})
	t.Logf("%d vector writes of the dead server applied by another", queued)
}

// replicaEngines opens n engines on one Neo4j scope, each with its own
// connection, vectors and in-process locks chained before the database's
// lease locks — n servers — and returns them with the last one's store.
func replicaEngines(t *testing.T, n int) ([]*memory.Engine, *neo4j.Store) {
	t.Helper()
	uri := testenv.Neo4jURI(t)
	scope := "r" + strings.ReplaceAll(kgmem.NewID(""), "_", "")
	emb := embed.NewHashing(64)
	var engines []*memory.Engine
	var graph *neo4j.Store
	for i := range n {
		g, err := neo4j.Open(t.Context(), neo4j.Config{URI: uri, Scope: scope})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = g.Close() })
		v, err := hnsw.Open(t.Context(), filepath.Join(t.TempDir(), fmt.Sprintf("v%d.db", i)), emb.Dimension(), hnsw.Options{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = v.Close() })
		locks := nslock.Chain{new(nslock.Local), g.NamespaceLocks(0, nil)}
		eng, err := memory.New(memory.Config{Graph: g, Vectors: v, Embedder: emb, WriteLocks: locks, Logger: slog.New(slog.DiscardHandler)})
		if err != nil {
			t.Fatal(err)
		}
		engines, graph = append(engines, eng), g
	}
	return engines, graph
}

// TestReplicasSweepExpiredItemsOnce: three servers on one Neo4j database
// sweep expired items at once; each expired item is deleted exactly once,
// no sweep fails on another's deletion, and live items stay.
func TestReplicasSweepExpiredItemsOnce(t *testing.T) {
	engines, graph := replicaEngines(t, 3)
	nss := []kgmem.Namespace{"ttl/r1", "ttl/r2"}
	t.Cleanup(func() {
		for _, ns := range nss {
			_, _ = engines[0].PurgeNamespace(context.Background(), ns)
		}
	})
	zero, hour := 0.0, 60.0
	expired := 0
	for _, ns := range nss {
		for k := range 12 {
			ttl := &zero
			if k%4 == 0 {
				ttl = &hour
			} else {
				expired++
			}
			if _, err := engines[k%3].PutItem(t.Context(), memory.PutItemRequest{Namespace: ns, Key: fmt.Sprint("k", k),
				Value: json.RawMessage(`{"n":1}`), TTL: ttl}); err != nil {
				t.Fatal(err)
			}
		}
	}
	deleted := make([]int, len(engines))
	var wg sync.WaitGroup
	for i, eng := range engines {
		wg.Go(func() {
			n, err := eng.SweepExpiredItems(t.Context())
			if err != nil {
				t.Errorf("replica %d: %v", i, err)
			}
			deleted[i] = n
		})
	}
	wg.Wait()
	if total := deleted[0] + deleted[1] + deleted[2]; total != expired {
		t.Errorf("the replicas deleted %v expired items, %d in all; want %d", deleted, total, expired)
	}
	for _, ns := range nss {
		left, err := graph.ListItems(t.Context(), ns, kgmem.Page{Limit: 100})
		if err != nil || len(left) != 3 {
			t.Errorf("%s after the sweeps: %d items (%v), want the 3 live ones", ns, len(left), err)
		}
	}
}
