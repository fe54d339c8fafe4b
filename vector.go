package kgmem

import (
	"context"
	"time"
)

// VectorIndex stores one embedding per searchable record (fact, entity, episode),
// keyed by the graph's id so writes are idempotent upserts. It is derived data:
// the GraphStore is the source of truth and can rebuild it.
//
// Ids are the graph's ids, which are unique across namespaces, so a backend
// may key records by id alone; every search is still filtered by namespace.
//
// Implementations: vector/hnsw (the embedded default) and vector/milvus. Both
// pass the conformance suite in vector/vectortest.
type VectorIndex interface {
	// Dimension is the vector length the index holds. Upserting or searching with
	// another length fails with ErrDimensionMismatch.
	Dimension() int
	// Upsert inserts or replaces records by id.
	Upsert(ctx context.Context, records []VectorRecord) error
	// Delete removes records of ns by id; absent ids are ignored.
	Delete(ctx context.Context, ns Namespace, ids []string) error
	// DeleteNamespace removes every record of ns.
	DeleteNamespace(ctx context.Context, ns Namespace) error
	// Search returns the K records of q.Namespace nearest to q.Vector by cosine
	// similarity, best first; Score is the cosine similarity in [-1, 1].
	Search(ctx context.Context, q VectorQuery) ([]Hit, error)
	// Count returns how many records ns holds, of kind k (empty: all kinds).
	Count(ctx context.Context, ns Namespace, k Kind) (int, error)
	// ListIDs pages through the records of ns in ascending id order (byte-wise):
	// those with id > page.After, at most page.Limit (0: 100, at most
	// MaxVectorPage). Consistency checks and reindexing use it to find vectors
	// whose graph record is gone.
	ListIDs(ctx context.Context, ns Namespace, page Page) ([]VectorKey, error)
	// Ping checks the backend is reachable.
	Ping(ctx context.Context) error
	// Close releases the index.
	Close() error
}

// VectorRecord is one embedding.
type VectorRecord struct {
	ID        string
	Namespace Namespace
	Kind      Kind
	Vector    []float32
	CreatedAt time.Time
}

// VectorKey names one stored vector: its record's kind and id.
type VectorKey struct {
	Kind Kind
	ID   string
}

// MaxVectorPage bounds VectorIndex.ListIDs pages (Milvus caps one query's
// result window at 16,384).
const MaxVectorPage = 10000

// VectorQuery is a filtered nearest-neighbour search.
type VectorQuery struct {
	Namespace Namespace
	Vector    []float32
	// Kinds restricts the search (empty: all kinds).
	Kinds []Kind
	// K bounds the hits.
	K int
	// KEach applies K to each kind searched rather than to all of them
	// together: the K nearest of every kind, best first overall, as one
	// search per kind would find them, in one call (one round trip to a
	// remote index instead of one per kind).
	KEach bool
}
