package decay

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/graph/sqlite"
)

// BenchmarkEnqueue measures one durable Enqueue (JSON line + fsync).
func BenchmarkEnqueue(b *testing.B) {
	r, err := NewReinforcer(ReinforcerConfig{
		Store: newMemStore(), JournalPath: filepath.Join(b.TempDir(), "j"), Interval: time.Hour, BatchSize: 1 << 30,
	})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = r.Close(context.Background()) })
	refs := []Ref{factRef("fact_a"), factRef("fact_b"), entityRef("ent_c")}
	for b.Loop() {
		if err := r.Enqueue("acme/u1", refs...); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkEnqueueParallel measures durable Enqueue from concurrent callers,
// which share fsyncs (group commit).
func BenchmarkEnqueueParallel(b *testing.B) {
	r, err := NewReinforcer(ReinforcerConfig{
		Store: newMemStore(), JournalPath: filepath.Join(b.TempDir(), "j"), Interval: time.Hour, BatchSize: 1 << 30,
	})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = r.Close(context.Background()) })
	refs := []Ref{factRef("fact_a"), factRef("fact_b"), entityRef("ent_c")}
	b.SetParallelism(16)
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if err := r.Enqueue("acme/u1", refs...); err != nil {
				b.Error(err)
				return
			}
		}
	})
}

// BenchmarkSweepSQLite measures a sweep over 5,000 facts (plus their two
// entities) in the embedded store, half of them due for forgetting.
func BenchmarkSweepSQLite(b *testing.B) {
	ctx := context.Background()
	store, err := sqlite.Open(ctx, filepath.Join(b.TempDir(), "graph.db"))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = store.Close() })
	m := DefaultModel()
	const ns = kgmem.Namespace("bench")
	f := newFixture(ns, epoch)
	for i := range 5000 {
		f.fact(numbered("fact", i), 1+i%2*5, epoch, m.Initial(1+i%2*5, epoch))
	}
	if err := store.Apply(ctx, kgmem.ChangeSet{Namespace: ns, Entities: f.entities, Facts: f.facts}); err != nil {
		b.Fatal(err)
	}
	refs := make([]Ref, len(f.facts))
	for i, fact := range f.facts {
		refs[i] = factRef(fact.ID)
	}
	for b.Loop() {
		b.StopTimer()
		if _, err := RestoreItems(ctx, store, ns, m, epoch, refs...); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		stats, err := Sweep(ctx, store, ns, m, epoch.Add(365*day))
		if err != nil || stats.Facts.Forgotten != 2500 {
			b.Fatalf("sweep = %+v, %v; want 2500 facts forgotten", stats, err)
		}
	}
}
