package instrument

import (
	"context"

	"github.com/kgmem/kgmem"
)

// Locks wraps the namespace locks a backend keeps (kgmem.NamespaceLeases,
// such as Neo4j's lease locks), timing each Lock, the wait for the lock
// included, as op "Lock" under backend, and counting its failures as Graph
// does. Releases are not timed: a store may finish them after unlock
// returns.
func Locks(l kgmem.NamespaceLocker, backend string, m *Metrics) kgmem.NamespaceLocker {
	return &locks{l: l, backend: backend, m: m}
}

type locks struct {
	l       kgmem.NamespaceLocker
	backend string
	m       *Metrics
}

func (l *locks) Lock(ctx context.Context, ns kgmem.Namespace) (func(), error) {
	done := l.m.start(l.backend, "Lock")
	unlock, err := l.l.Lock(ctx, ns)
	return unlock, done(err)
}
