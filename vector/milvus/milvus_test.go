package milvus_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	mrand "math/rand/v2"
	"slices"
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
	// Session again with every search ranked by Milvus, as on a server whose
	// interim index is off: its own writes are laid over what Milvus ranks.
	t.Run("Session/ranked by Milvus", func(t *testing.T) {
		vectortest.Run(t, func(t *testing.T, dim int) kgmem.VectorIndex {
			return openFresh(t, milvus.Config{Dim: dim, ConsistencyLevel: milvus.Session, ExactBelow: -1})
		})
	})
}

// testenvAddr returns the test Milvus address.
func testenvAddr(t testing.TB) string { return testenv.MilvusAddr(t) }

// TestKEachSearchedByMilvus: a KEach query too large to rank in this
// process (exact search off) is one Milvus search per kind, and finds for
// each kind what a search of that kind alone finds.
func TestKEachSearchedByMilvus(t *testing.T) {
	const dim, k = 8, 2
	ctx := testCtx(t)
	ix := openFresh(t, milvus.Config{Dim: dim, ConsistencyLevel: milvus.Session, ExactBelow: -1})
	ns := kgmem.Namespace("keach/ns")
	rng := mrand.New(mrand.NewPCG(7, 7))
	var recs []kgmem.VectorRecord
	for i := range 24 {
		v := make([]float32, dim)
		for j := range v {
			v[j] = rng.Float32() - 0.5
		}
		recs = append(recs, kgmem.VectorRecord{ID: fmt.Sprintf("r%d", i), Namespace: ns, Kind: kgmem.AllKinds()[i%len(kgmem.AllKinds())], Vector: v})
	}
	if err := ix.Upsert(ctx, recs); err != nil {
		t.Fatal(err)
	}
	q := recs[0].Vector
	hits, err := ix.Search(ctx, kgmem.VectorQuery{Namespace: ns, Vector: q, K: k, KEach: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) != k*len(kgmem.AllKinds()) {
		t.Fatalf("%d hits %v, want %d of each of %d kinds", len(hits), hits, k, len(kgmem.AllKinds()))
	}
	for _, kind := range kgmem.AllKinds() {
		alone, err := ix.Search(ctx, kgmem.VectorQuery{Namespace: ns, Vector: q, K: k, Kinds: []kgmem.Kind{kind}})
		if err != nil {
			t.Fatal(err)
		}
		var got, want []string
		for _, h := range hits {
			if h.Kind == kind {
				got = append(got, h.ID)
			}
		}
		for _, h := range alone {
			want = append(want, h.ID)
		}
		if !slices.Equal(got, want) {
			t.Errorf("kind %s: %v, want %v as a search of it alone", kind, got, want)
		}
	}
}
