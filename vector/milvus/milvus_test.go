package milvus_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"testing"
	"time"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/internal/testenv"
	"github.com/kgmem/kgmem/vector/milvus"
	"github.com/kgmem/kgmem/vector/vectortest"
)

// testCtx bounds one test's calls to the server.
func testCtx(t testing.TB) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// freshCollection returns a collection name no other test uses.
func freshCollection(t testing.TB) string {
	t.Helper()
	var b [6]byte
	if _, err := rand.Read(b[:]); err != nil {
		t.Fatal(err)
	}
	return "kgmem_test_" + hex.EncodeToString(b[:])
}

// openFresh opens an index on a fresh collection of the test Milvus and drops
// the collection when the test ends.
func openFresh(t testing.TB, cfg milvus.Config) *milvus.Index {
	t.Helper()
	cfg.Address = testenv.MilvusAddr(t)
	if cfg.Collection == "" {
		cfg.Collection = freshCollection(t)
	}
	ix, err := milvus.Open(testCtx(t), cfg)
	if err != nil {
		t.Fatalf("Open(%s, dim %d): %v", cfg.Collection, cfg.Dim, err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if err := ix.Drop(ctx); err != nil {
			t.Errorf("drop %s: %v", cfg.Collection, err)
		}
		if err := ix.Close(); err != nil {
			t.Errorf("close: %v", err)
		}
	})
	return ix
}

func TestConformance(t *testing.T) {
	testenv.MilvusAddr(t)
	// Strong is the default; Session (read-your-own-writes in this process,
	// ~50x faster reads) must pass the same suite to be a safe choice.
	for _, level := range []milvus.Consistency{milvus.Strong, milvus.Session} {
		t.Run(level.String(), func(t *testing.T) {
			vectortest.Run(t, func(t *testing.T, dim int) kgmem.VectorIndex {
				return openFresh(t, milvus.Config{Dim: dim, ConsistencyLevel: level})
			})
		})
	}
}

// testenvAddr returns the test Milvus address.
func testenvAddr(t testing.TB) string { return testenv.MilvusAddr(t) }
