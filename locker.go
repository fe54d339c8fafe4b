package kgmem

import "context"

// NamespaceLocker serialises the writes to each namespace: a write reads
// what it builds on (entity resolution, the facts it may invalidate), then
// writes, and no other write of the namespace may run in between.
//
// Implementations: internal/nslock.Local, exact per-namespace locks for
// the writers of one process, and graph/neo4j's lease lock, for every
// server on one Neo4j database (internal/nslock.Chain takes the first,
// then the second).
type NamespaceLocker interface {
	// Lock blocks until the caller holds ns's lock, or ctx ends (an error
	// wrapping ctx.Err(); a backend failure wraps ErrUnavailable), and
	// returns the function that releases it.
	Lock(ctx context.Context, ns Namespace) (unlock func(), err error)
}
