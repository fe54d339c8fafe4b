package kgmem

import "context"

// VectorOpKind says what a queued vector write was meant to do.
type VectorOpKind string

// The vector write operations an outbox records.
const (
	// VectorUpsert: the record was added or changed in the graph.
	VectorUpsert VectorOpKind = "upsert"
	// VectorDelete: the record was deleted from the graph.
	VectorDelete VectorOpKind = "delete"
	// VectorPurge: the whole namespace was purged from the graph (Kind and ID empty).
	VectorPurge VectorOpKind = "purge"
)

// VectorOp names one vector write that failed after its graph write and must
// be retried. It holds no vector: the retry re-reads the record from the graph
// (the source of truth) and re-embeds it, so a replay after a long outage
// writes current data, and a record deleted meanwhile becomes a delete.
type VectorOp struct {
	Namespace Namespace    `json:"ns"`
	Kind      Kind         `json:"kind,omitempty"`
	ID        string       `json:"id,omitempty"`
	Op        VectorOpKind `json:"op"`
}

// QueuedVectorOp is a VectorOp in an outbox, with its position in the queue.
type QueuedVectorOp struct {
	Seq uint64 `json:"seq"`
	VectorOp
}

// VectorOutbox is the durable queue of vector writes not yet known to be
// applied. The engine adds a write's ops before its graph write (write-ahead)
// and marks them done once the vector index has them, so a crash or an outage
// anywhere in between leaves them queued for the retry loop.
// Implementations: outbox.File (a journal in the data directory) and
// outbox.Memory (no durability, for tests and tools).
type VectorOutbox interface {
	// Add queues ops and returns their sequence numbers. Added ops survive a
	// crash of the process at once (they are written to the file before Add
	// returns) and a crash of the machine once Sync returns.
	Add(ctx context.Context, ops []VectorOp) ([]uint64, error)
	// Sync makes every op added so far durable (fsync).
	Sync(ctx context.Context) error
	// Pending returns up to limit queued ops, oldest first, without removing them.
	Pending(limit int) []QueuedVectorOp
	// Done removes the ops with these sequence numbers (they were applied;
	// unknown numbers are ignored). It need not be durable: an op whose Done
	// is lost in a crash is applied again, which is harmless.
	Done(seqs []uint64) error
	// Len is the number of queued ops.
	Len() int
}
