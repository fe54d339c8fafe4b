package milvus_test

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/internal/faultproxy"
	"github.com/kgmem/kgmem/internal/polltest"
	"github.com/kgmem/kgmem/internal/testenv"
	"github.com/kgmem/kgmem/vector/milvus"
)

// TestResilientOpensWithoutMilvus opens a Resilient index while Milvus
// refuses connections (a proxy in front of it, cut): the open succeeds
// quickly, every call fails with kgmem.ErrUnavailable naming Milvus, and a
// bad configuration is still refused. Once the proxy forwards again, Run
// connects, calls Connected, creates the collection (it did not exist) and
// calls CollectionLost then CollectionCreated; dropping the collection under
// it makes it do so again and the index works afterwards.
func TestResilientOpensWithoutMilvus(t *testing.T) {
	addr := testenv.MilvusAddr(t)
	proxy, err := faultproxy.Start(addr)
	if err != nil {
		t.Fatal(err)
	}
	defer proxy.Close()
	proxy.Cut()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	if _, err := milvus.OpenResilient(ctx, milvus.Config{Address: proxy.Addr()}, milvus.ResilientOptions{}); !errors.Is(err, kgmem.ErrInvalid) {
		t.Errorf("open without a dimension: %v, want ErrInvalid", err)
	}
	name := "resilient_" + strings.ReplaceAll(kgmem.NewID(""), "_", "")
	cfg := milvus.Config{Address: proxy.Addr(), Collection: name, Dim: 4}
	ix, err := milvus.OpenResilient(ctx, cfg, milvus.ResilientOptions{CheckInterval: 200 * time.Millisecond, MinBackoff: 50 * time.Millisecond, MaxBackoff: 200 * time.Millisecond})
	if err != nil {
		t.Fatalf("open with Milvus refused: %v", err)
	}
	defer ix.Close()
	rec := kgmem.VectorRecord{ID: "r1", Namespace: "res", Kind: kgmem.KindFact, Vector: []float32{1, 0, 0, 0}}
	if err := ix.Upsert(ctx, []kgmem.VectorRecord{rec}); !errors.Is(err, kgmem.ErrUnavailable) || !strings.Contains(err.Error(), "milvus") {
		t.Errorf("upsert with Milvus refused: %v, want ErrUnavailable naming milvus", err)
	}
	if err := ix.Ping(ctx); !errors.Is(err, kgmem.ErrUnavailable) {
		t.Errorf("ping with Milvus refused: %v, want ErrUnavailable", err)
	}

	var connected, lost, created atomic.Int32
	runCtx, stop := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		ix.Run(runCtx, milvus.Hooks{
			Connected:         func() { connected.Add(1) },
			CollectionLost:    func() { lost.Add(1) },
			CollectionCreated: func() { created.Add(1) },
		})
	}()
	defer func() { stop(); <-done }()
	if err := proxy.Restore(); err != nil {
		t.Fatal(err)
	}
	polltest.Until(t, 2*time.Minute, "the index to connect and create its collection", func() bool {
		return connected.Load() >= 1 && created.Load() == 1 && lost.Load() == 1
	})
	if err := ix.Upsert(ctx, []kgmem.VectorRecord{rec}); err != nil {
		t.Fatalf("upsert once connected: %v", err)
	}

	// Lost under it: dropped, as by a Milvus restarted empty.
	direct, err := milvus.Open(ctx, milvus.Config{Address: addr, Collection: name, Dim: 4})
	if err != nil {
		t.Fatal(err)
	}
	defer direct.Close()
	if err := direct.Drop(ctx); err != nil {
		t.Fatal(err)
	}
	polltest.Until(t, 2*time.Minute, "the lost collection recreated", func() bool { return created.Load() == 2 && lost.Load() == 2 })
	if err := ix.Upsert(ctx, []kgmem.VectorRecord{rec}); err != nil {
		t.Fatalf("upsert after the collection was recreated: %v", err)
	}
	if err := ix.Ping(ctx); err != nil {
		t.Errorf("ping after the collection was recreated: %v", err)
	}
	again, err := milvus.Open(ctx, milvus.Config{Address: addr, Collection: name, Dim: 4})
	if err != nil {
		t.Fatal(err)
	}
	defer again.Close()
	_ = again.Drop(ctx)
}
