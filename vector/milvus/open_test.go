package milvus_test

import (
	"context"
	"errors"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/milvus-io/milvus-sdk-go/v2/client"
	"github.com/milvus-io/milvus-sdk-go/v2/entity"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/internal/testenv"
	"github.com/kgmem/kgmem/vector/milvus"
)

func TestReopenDimensionMismatch(t *testing.T) {
	addr := testenv.MilvusAddr(t)
	c := testCtx(t)
	first := openFresh(t, milvus.Config{Dim: 8})
	rec := kgmem.VectorRecord{ID: "keep", Namespace: "reopen", Kind: kgmem.KindFact, Vector: []float32{1, 2, 3, 4, 5, 6, 7, 8}}
	if err := first.Upsert(c, []kgmem.VectorRecord{rec}); err != nil {
		t.Fatal(err)
	}

	_, err := milvus.Open(c, milvus.Config{Address: addr, Collection: first.Collection(), Dim: 16})
	if !errors.Is(err, kgmem.ErrDimensionMismatch) || !errors.Is(err, kgmem.ErrConflict) {
		t.Fatalf("reopen with dim 16: got %v, want ErrDimensionMismatch", err)
	}
	if msg := err.Error(); !strings.Contains(msg, "8") || !strings.Contains(msg, "16") {
		t.Errorf("mismatch error %q should name both dimensions", msg)
	}

	// The same dimension reopens the data that is there.
	again, err := milvus.Open(c, milvus.Config{Address: addr, Collection: first.Collection(), Dim: 8})
	if err != nil {
		t.Fatalf("reopen with dim 8: %v", err)
	}
	defer again.Close()
	if n, err := again.Count(c, "reopen", ""); err != nil || n != 1 {
		t.Errorf("Count after reopen = %d, %v; want 1", n, err)
	}
}

// rawClient connects an SDK client to the test Milvus, for what the tests
// set up or inspect behind the Index's back; it is closed when the test ends.
func rawClient(t *testing.T, c context.Context) client.Client {
	t.Helper()
	cl, err := client.NewClient(c, client.Config{Address: testenv.MilvusAddr(t)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cl.Close() })
	return cl
}

func TestOpenRefusesForeignCollection(t *testing.T) {
	addr := testenv.MilvusAddr(t)
	c := testCtx(t)
	cl := rawClient(t, c)
	name := freshCollection(t)
	// AutoID int64 keys: not a collection kgmem can upsert into.
	sch := entity.NewSchema().WithName(name).WithAutoID(true).
		WithField(entity.NewField().WithName("pk").WithDataType(entity.FieldTypeInt64).WithIsPrimaryKey(true).WithIsAutoID(true)).
		WithField(entity.NewField().WithName("vector").WithDataType(entity.FieldTypeFloatVector).WithDim(8))
	if err := cl.CreateCollection(c, sch, 1); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cl.DropCollection(context.Background(), name) })
	_, err := milvus.Open(c, milvus.Config{Address: addr, Collection: name, Dim: 8})
	if !errors.Is(err, kgmem.ErrConflict) || errors.Is(err, kgmem.ErrDimensionMismatch) {
		t.Errorf("Open of a foreign collection: got %v, want ErrConflict", err)
	}
}

func TestOpenUnavailable(t *testing.T) {
	// A port that was just free: nothing listens there.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	start := time.Now()
	_, err = milvus.Open(context.Background(), milvus.Config{Address: addr, Dim: 8, DialTimeout: time.Second})
	if !errors.Is(err, kgmem.ErrUnavailable) {
		t.Errorf("Open(%s): got %v, want ErrUnavailable", addr, err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("Open took %s despite a 1s dial timeout", d)
	}
}

func TestOpenInvalidConfig(t *testing.T) {
	_, err := milvus.Open(context.Background(), milvus.Config{Address: "127.0.0.1:1", Dim: 0})
	if !errors.Is(err, kgmem.ErrInvalid) {
		t.Errorf("Open with dim 0: got %v, want ErrInvalid", err)
	}
}

func TestPingAfterOpen(t *testing.T) {
	ix := openFresh(t, milvus.Config{Dim: 4, ConsistencyLevel: milvus.Bounded})
	if err := ix.Ping(testCtx(t)); err != nil {
		t.Errorf("Ping: %v", err)
	}
	if ix.Dimension() != 4 {
		t.Errorf("Dimension() = %d, want 4", ix.Dimension())
	}
}

// TestOpenIndexesFilterFields checks that Open gives the namespace and kind
// fields scalar indexes (every search filters on both), also on a collection
// created without them, and that searches answer the same on the upgraded
// collection.
func TestOpenIndexesFilterFields(t *testing.T) {
	addr := testenv.MilvusAddr(t)
	c := testCtx(t)
	cl := rawClient(t, c)
	ix := openFresh(t, milvus.Config{Dim: 4})
	name := ix.Collection()
	scalar := []struct{ field, index string }{{"namespace", "kgmem_namespace"}, {"kind", "kgmem_kind"}}
	hasIndexes := func(when string) {
		t.Helper()
		for _, s := range scalar {
			idxs, err := cl.DescribeIndex(c, name, s.field, client.WithIndexName(s.index))
			if err != nil || len(idxs) != 1 {
				t.Errorf("%s: index %s on %s: %v, %v; want one", when, s.index, s.field, idxs, err)
			}
		}
	}
	hasIndexes("fresh collection")

	recs := []kgmem.VectorRecord{
		{ID: "f1", Namespace: "idx/a", Kind: kgmem.KindFact, Vector: []float32{1, 0, 0, 0}},
		{ID: "e1", Namespace: "idx/a", Kind: kgmem.KindEntity, Vector: []float32{1, 0.1, 0, 0}},
		{ID: "f2", Namespace: "idx/b", Kind: kgmem.KindFact, Vector: []float32{1, 0, 0, 0}},
	}
	if err := ix.Upsert(c, recs); err != nil {
		t.Fatal(err)
	}
	search := func(when string) {
		t.Helper()
		hits, err := ix.Search(c, kgmem.VectorQuery{Namespace: "idx/a", Vector: []float32{1, 0, 0, 0}, Kinds: []kgmem.Kind{kgmem.KindFact}, K: 5})
		if err != nil || len(hits) != 1 || hits[0].ID != "f1" || hits[0].Kind != kgmem.KindFact {
			t.Errorf("%s: search idx/a facts = %+v, %v; want f1 alone", when, hits, err)
		}
	}
	search("fresh collection")

	// A collection an earlier kgmem created has no scalar index: drop them
	// (Milvus drops an index only from a released collection) and reopen.
	if err := cl.ReleaseCollection(c, name); err != nil {
		t.Fatal(err)
	}
	for _, s := range scalar {
		if err := cl.DropIndex(c, name, s.field, client.WithIndexName(s.index)); err != nil {
			t.Fatalf("drop index %s: %v", s.index, err)
		}
	}
	again, err := milvus.Open(c, milvus.Config{Address: addr, Collection: name, Dim: 4})
	if err != nil {
		t.Fatalf("reopen without scalar indexes: %v", err)
	}
	defer again.Close()
	hasIndexes("reopened")
	ix = again
	search("reopened")
}
