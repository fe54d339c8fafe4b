package neo4j

import (
	"context"
	"time"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"
)

// DeleteKeys removes the API keys of the store's scope (test cleanup).
func (s *Store) DeleteKeys(ctx context.Context) error {
	return s.write(ctx, func(tx neo4j.ManagedTransaction) error {
		_, err := run(ctx, tx, `MATCH (k:`+labelKey+` {scope: $scope}) DELETE k`, map[string]any{"scope": s.cfg.Scope})
		return err
	})
}

// HoldLockAsDeadServer takes ns's write lock for lease as a server that
// then dies: nobody renews or releases it.
func (s *Store) HoldLockAsDeadServer(ctx context.Context, ns string, lease time.Duration) error {
	return s.write(ctx, func(tx neo4j.ManagedTransaction) error {
		_, err := run(ctx, tx, qTakeLock, map[string]any{"scope": s.cfg.Scope, "ns": ns, "token": "dead-server", "lease": lease.Milliseconds()})
		return err
	})
}

// DeleteJobs deletes the background jobs of the store's scope.
func (s *Store) DeleteJobs(ctx context.Context) error {
	return s.write(ctx, func(tx neo4j.ManagedTransaction) error {
		_, err := run(ctx, tx, `MATCH (j) WHERE (j:`+labelJob+` OR j:`+labelJobSeq+`) AND j.scope = $scope DELETE j`, map[string]any{"scope": s.cfg.Scope})
		return err
	})
}

// UnmarkLearningTimeMigration removes the schema node's mark that the
// database's forgetting curves were moved to learning time, as a database
// written before that migration lacks it.
func (s *Store) UnmarkLearningTimeMigration(ctx context.Context) error {
	return s.write(ctx, func(tx neo4j.ManagedTransaction) error {
		_, err := run(ctx, tx, "MATCH (v:KgmemSchema {name: 'kgmem'}) REMOVE v."+flagDecayFromLearning, nil)
		return err
	})
}

// Read runs one read query through the store's retrying read path.
func (s *Store) Read(ctx context.Context, query string) error {
	_, err := s.read(ctx, query, nil)
	return err
}

// WriteTransactions counts the write transactions the store has run.
func (s *Store) WriteTransactions() int64 { return s.writes.Load() }

// StoredVectorOps counts the vector outbox's nodes of the store's scope.
func (s *Store) StoredVectorOps(ctx context.Context) (int64, error) {
	byNS, err := s.QueuedVectorWrites(ctx)
	var n int64
	for _, c := range byNS {
		n += int64(c)
	}
	return n, err
}
