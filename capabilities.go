package kgmem

import (
	"context"
	"log/slog"
	"time"
)

// Optional capabilities of a backend. A GraphStore (or VectorIndex) may
// implement any of the interfaces below; the server discovers them by type
// assertion, as database/sql discovers a driver's optional interfaces, and
// never by the backend's name. A backend that several servers share
// (graph/neo4j) implements SharedJobs, NamespaceLeases and
// VectorOutboxStore, and those servers then share their background jobs,
// their namespace write locks and their queue of vector writes; a new
// backend gets the same multi-server support by implementing them. A
// backend that implements none is run by one server, which keeps those in
// its data directory.

// SharedJobs is a graph store that keeps background ingest jobs for every
// server on it: a job accepted by one server, left behind when that server
// dies, is claimed by another.
type SharedJobs interface {
	// Jobs returns the job records kept in the store's database.
	Jobs() JobRecords
}

// NamespaceLeases is a graph store that locks a namespace for every server
// on it, under a lease the holder renews: what a NamespaceLocker local to
// one process cannot do.
type NamespaceLeases interface {
	// NamespaceLocks returns the store's namespace locks; lease 0 takes the
	// store's default, log nil slog.Default().
	NamespaceLocks(lease time.Duration, log *slog.Logger) NamespaceLocker
}

// VectorOutboxStore is a graph store that keeps the queue of vector writes
// to retry (VectorOutbox) for every server on it, so that the writes a
// server queued are retried by another if it stops for good.
type VectorOutboxStore interface {
	// OpenVectorOutbox opens the queue as owner (a stable server id) and
	// starts adopting the writes of servers that stopped; lease 0 takes the
	// store's default, log nil slog.Default(). The caller closes it.
	OpenVectorOutbox(ctx context.Context, owner string, lease time.Duration, log *slog.Logger) (SharedVectorOutbox, error)
	// QueuedVectorWrites counts the writes queued by every server, by
	// namespace, without opening the queue or taking any over.
	QueuedVectorWrites(ctx context.Context) (map[Namespace]int, error)
}

// SharedVectorOutbox is a VectorOutbox shared by several servers.
type SharedVectorOutbox interface {
	VectorOutbox
	// Adopted is signalled when writes of another server were taken over,
	// to be retried now.
	Adopted() <-chan struct{}
	// Close stops adopting; the queued writes stay for this owner's next
	// start, or for another server.
	Close() error
}

// JournalingOutbox is a VectorOutbox kept in the engine's graph store's
// own database (graph/neo4j's): it journals a change set's vector ops in
// the change set's own transaction, so that the ops are committed exactly
// when the change is, and a write costs the database one transaction
// instead of two. The engine uses it only as the outbox of that same
// store.
type JournalingOutbox interface {
	VectorOutbox
	// Reserve numbers ops for ApplyJournaled; nothing is queued yet.
	Reserve(ops []VectorOp) []QueuedVectorOp
	// ApplyJournaled writes cs as GraphStore.Apply does and adds ops (from
	// Reserve) to the outbox in the same transaction. On an error the ops
	// are queued only when the transaction may have committed all the same
	// (its answer was lost: ErrUnavailable, or the context ended).
	ApplyJournaled(ctx context.Context, cs ChangeSet, ops []QueuedVectorOp) error
}

// InProcessStore is a store that runs inside this process (an embedded
// database): its calls spend this process's CPU rather than wait on a
// network, so a search's parts are not worth running in parallel once the
// cores are busy.
type InProcessStore interface {
	// RunsInProcess reports whether the store runs inside this process.
	RunsInProcess() bool
}

// RunsInProcess reports whether every one of stores runs inside this
// process (implements InProcessStore and says so); false for none.
func RunsInProcess(stores ...any) bool {
	for _, s := range stores {
		if p, ok := s.(InProcessStore); !ok || !p.RunsInProcess() {
			return false
		}
	}
	return len(stores) > 0
}
