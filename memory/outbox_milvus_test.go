package memory_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"testing"
	"time"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/embed"
	"github.com/kgmem/kgmem/internal/faultproxy"
	"github.com/kgmem/kgmem/internal/testenv"
	"github.com/kgmem/kgmem/vector/milvus"
)

// TestMilvusOutage runs the fault scenario against the real Milvus: the
// engine talks to it through a loopback proxy that the test breaks after the
// third message and restores after the deletes and the degraded search, once
// refusing connections (a stopped server) and once accepting them without
// answering (a hung one). The final checks read Milvus through a second,
// direct client at Strong consistency. Then it damages the vectors both ways
// and checks that the consistency check sees it and a reindex repairs it.
// The shared server itself is never touched.
func TestMilvusOutage(t *testing.T) {
	addr := testenv.MilvusAddr(t)
	for _, tt := range []struct {
		name string
		fail func(*faultproxy.Proxy)
	}{
		{"refused", (*faultproxy.Proxy).Cut},
		{"hanging", (*faultproxy.Proxy).Hang},
	} {
		t.Run(tt.name, func(t *testing.T) {
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
			faultScenario(t, f, direct, func() { tt.fail(proxy) }, func() {
				if err := proxy.Restore(); err != nil {
					t.Fatal(err)
				}
			})
			if tt.name == "refused" {
				damageAndReindex(t, f, proxied)
			}
		})
	}
}

// damageAndReindex deletes one record's vector and adds a vector without a
// record, through the engine's own index, and checks that the consistency
// check reports both and a reindex repairs them.
func damageAndReindex(t *testing.T, f *faultEngine, ix kgmem.VectorIndex) {
	ctx := context.Background()
	const ns = kgmem.Namespace("fault/a")
	keys := listAll(t, ix, ns)
	lost := keys[len(keys)/2]
	if err := ix.Delete(ctx, ns, []string{lost.ID}); err != nil {
		t.Fatal(err)
	}
	vec, _ := embed.NewHashing(256).Embed(ctx, []string{"a ghost"})
	if err := ix.Upsert(ctx, []kgmem.VectorRecord{{ID: "fact_ghost", Namespace: ns, Kind: kgmem.KindFact, Vector: vec[0]}}); err != nil {
		t.Fatal(err)
	}
	report, err := f.engine.CheckConsistency(ctx, ns)
	if err != nil {
		t.Fatal(err)
	}
	if report.MissingVectors != 1 || report.OrphanVectors != 1 || report.Missing[0] != lost || report.Orphans[0].ID != "fact_ghost" {
		t.Fatalf("after damage: %+v, want %v missing and fact_ghost orphaned", report, lost)
	}
	st, err := f.engine.Reindex(ctx, ns)
	if err != nil {
		t.Fatal(err)
	}
	if st.OrphansDeleted != 1 || st.Upserted != len(keys) {
		t.Errorf("reindex: %+v, want %d upserted and 1 orphan deleted", st, len(keys))
	}
	if report, err = f.engine.CheckConsistency(ctx, ns); err != nil || !report.Consistent() || report.Vectors != len(keys) {
		t.Errorf("after reindex: %+v (%v), want consistent with %d vectors", report, err, len(keys))
	}
}
