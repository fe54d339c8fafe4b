package memory_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"testing"
	"time"

	"github.com/kgmem/kgmem/internal/faultproxy"
	"github.com/kgmem/kgmem/internal/testenv"
	"github.com/kgmem/kgmem/vector/milvus"
)

// TestMilvusOutage runs the fault scenario against the real Milvus: the
// engine talks to it through a loopback proxy that the test cuts after the
// third message (every connection dropped, new ones refused) and restores
// after the deletes and the degraded search. The final checks read Milvus
// through a second, direct client at Strong consistency. The shared server
// itself is never touched.
func TestMilvusOutage(t *testing.T) {
	addr := testenv.MilvusAddr(t)
	proxy, err := faultproxy.Start(addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = proxy.Close() })
	var b [6]byte
	if _, err := rand.Read(b[:]); err != nil {
		t.Fatal(err)
	}
	collection := "kgmem_test_outage_" + hex.EncodeToString(b[:])
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	direct, err := milvus.Open(ctx, milvus.Config{Address: addr, Collection: collection, Dim: 256, ConsistencyLevel: milvus.Strong})
	if err != nil {
		t.Fatalf("open Milvus at %s: %v", addr, err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if err := direct.Drop(ctx); err != nil {
			t.Errorf("drop %s: %v", collection, err)
		}
		_ = direct.Close()
	})
	proxied, err := milvus.Open(ctx, milvus.Config{Address: proxy.Addr(), Collection: collection, Dim: 256, ConsistencyLevel: milvus.Session})
	if err != nil {
		t.Fatalf("open Milvus through the proxy: %v", err)
	}
	t.Cleanup(func() { _ = proxied.Close() })

	f := newFaultEngine(t, t.TempDir(), proxied, faultScript(t))
	faultScenario(t, f, direct, proxy.Cut, func() {
		if err := proxy.Restore(); err != nil {
			t.Fatal(err)
		}
	})
}
