package main

import (
	"context"
	"log/slog"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/auth"
	"github.com/kgmem/kgmem/instrument"
	"github.com/kgmem/kgmem/internal/nslock"
	"github.com/kgmem/kgmem/internal/serverid"
	"github.com/kgmem/kgmem/jobs"
	"github.com/kgmem/kgmem/outbox"
	"github.com/prometheus/client_golang/prometheus"
)

// plainGraph is a graph store of a third backend that offers no optional
// capability: the server runs it alone, keeping jobs, keys, locks and the
// vector outbox in its data directory. Only Close is called.
type plainGraph struct {
	kgmem.GraphStore
	closed atomic.Bool
}

func (g *plainGraph) Close() error {
	g.closed.Store(true)
	return nil
}

// sharedGraph is a third backend that implements every capability of a
// store shared by several servers, each backed by a real component.
type sharedGraph struct {
	plainGraph
	jobs  kgmem.JobRecords
	keys  auth.KeyRecords
	locks *countingLocker
	box   *sharedOutbox
	owner string
}

func (g *sharedGraph) Jobs() kgmem.JobRecords { return g.jobs }
func (g *sharedGraph) Keys() auth.KeyRecords  { return g.keys }
func (g *sharedGraph) NamespaceLocks(time.Duration, *slog.Logger) kgmem.NamespaceLocker {
	return g.locks
}
func (g *sharedGraph) OpenVectorOutbox(_ context.Context, owner string, _ time.Duration, _ *slog.Logger) (kgmem.SharedVectorOutbox, error) {
	g.owner = owner
	return g.box, nil
}
func (g *sharedGraph) QueuedVectorWrites(context.Context) (map[kgmem.Namespace]int, error) {
	out := map[kgmem.Namespace]int{}
	for _, op := range g.box.Pending(0) {
		out[op.Namespace]++
	}
	return out, nil
}

// countingLocker is a namespace lock that counts the locks taken.
type countingLocker struct {
	nslock.Local
	taken atomic.Int32
}

func (l *countingLocker) Lock(ctx context.Context, ns kgmem.Namespace) (func(), error) {
	l.taken.Add(1)
	return l.Local.Lock(ctx, ns)
}

// sharedOutbox is an in-memory outbox that says when it adopts.
type sharedOutbox struct {
	*outbox.Memory
	adopted chan struct{}
}

func (o *sharedOutbox) Adopted() <-chan struct{} { return o.adopted }
func (o *sharedOutbox) Close() error             { return nil }

// newSharedGraph builds a sharedGraph whose records are real files of dir.
func newSharedGraph(t *testing.T, dir string) *sharedGraph {
	t.Helper()
	ctx := t.Context()
	jr, err := jobs.OpenFile(ctx, filepath.Join(dir, "shared-jobs.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = jr.Close() })
	kr, err := auth.OpenKeyRecords(ctx, filepath.Join(dir, "shared-keys.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = kr.Close() })
	return &sharedGraph{jobs: jr, keys: kr, locks: new(countingLocker),
		box: &sharedOutbox{Memory: outbox.NewMemory(), adopted: make(chan struct{})}}
}

// TestCapabilitiesByInterface gives a backend the server's multi-server
// wiring because it implements the optional interfaces, whatever its name:
// a store with them gets shared locks, jobs, vector outbox and keys; one
// without gets the data directory's.
func TestCapabilitiesByInterface(t *testing.T) {
	ctx := t.Context()
	log := slog.New(slog.DiscardHandler)
	dir := t.TempDir()
	shared := newSharedGraph(t, dir)
	plain := &plainGraph{}

	t.Run("namespace locks", func(t *testing.T) {
		reg := prometheus.NewRegistry()
		m := instrument.New(reg)
		if _, chained := namespaceLocks(plain, "plain", m, log).(nslock.Chain); chained {
			t.Error("a store without NamespaceLeases got shared locks")
		}
		unlock, err := namespaceLocks(shared, "shared", m, log).Lock(ctx, "acme/a")
		if err != nil {
			t.Fatal(err)
		}
		unlock()
		if shared.locks.taken.Load() != 1 {
			t.Error("a store with NamespaceLeases: its lock was not taken")
		}
		// Taking the store's lock is timed as the store's "Lock".
		fams, err := reg.Gather()
		if err != nil {
			t.Fatal(err)
		}
		timed := false
		for _, f := range fams {
			for _, s := range f.GetMetric() {
				labels := map[string]string{}
				for _, l := range s.GetLabel() {
					labels[l.GetName()] = l.GetValue()
				}
				timed = timed || f.GetName() == instrument.CallDuration && labels["backend"] == "shared" && labels["op"] == "Lock" && s.GetHistogram().GetSampleCount() == 1
			}
		}
		if !timed {
			t.Error("taking the store's lock was not timed as its Lock")
		}
	})

	t.Run("job records", func(t *testing.T) {
		if got := sharedJobRecords(plain); got != nil {
			t.Errorf("a store without SharedJobs gave job records %T", got)
		}
		if got := sharedJobRecords(shared); got != shared.jobs {
			t.Errorf("a store with SharedJobs gave %v, want its records", got)
		}
	})

	t.Run("vector outbox", func(t *testing.T) {
		own := t.TempDir()
		box, err := openOutbox(ctx, &config{DataDir: own}, plain, "", log)
		if err != nil {
			t.Fatal(err)
		}
		if _, isFile := box.(*outbox.File); !isFile {
			t.Errorf("a store without VectorOutboxStore: outbox %T, want the data directory's journal", box)
		}
		if err := box.Close(); err != nil {
			t.Fatal(err)
		}
		box, err = openOutbox(ctx, &config{DataDir: own}, shared, "", log)
		if err != nil {
			t.Fatal(err)
		}
		if box != kgmem.SharedVectorOutbox(shared.box) {
			t.Errorf("a store with VectorOutboxStore: outbox %T, want the store's", box)
		}
		if id, err := serverid.Read(own); err != nil || shared.owner != id {
			t.Errorf("the shared outbox was opened as %q, want the server id %q (%v)", shared.owner, id, err)
		}
	})

	t.Run("API keys", func(t *testing.T) {
		own := t.TempDir()
		file := filepath.Join(own, keyStoreFile)
		// A key of an earlier embedded deployment, in the data directory.
		local, err := auth.OpenKeyRecords(ctx, file)
		if err != nil {
			t.Fatal(err)
		}
		key, _, err := auth.NewStore(local).Create(ctx, auth.CreateRequest{Name: "old", Right: auth.Read, Prefixes: []kgmem.Namespace{"acme"}})
		if err != nil {
			t.Fatal(err)
		}
		if err := local.Close(); err != nil {
			t.Fatal(err)
		}

		rec, err := sharedKeyRecords(ctx, plain, file)
		if err != nil {
			t.Fatal(err)
		}
		if !plain.closed.Load() {
			t.Error("a store without SharedKeys was left open")
		}
		if _, err := rec.Get(ctx, key.ID); err != nil {
			t.Errorf("a store without SharedKeys: the data directory's key: %v", err)
		}
		if err := rec.Close(); err != nil {
			t.Fatal(err)
		}

		rec, err = sharedKeyRecords(ctx, shared, file)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := rec.(sharedKeys); !ok {
			t.Fatalf("a store with SharedKeys: records %T, want the store's", rec)
		}
		if _, err := shared.keys.Get(ctx, key.ID); err != nil {
			t.Errorf("the data directory's key was not copied into the shared records: %v", err)
		}
	})
}
