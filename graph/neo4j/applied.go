package neo4j

import (
	"context"
	"log/slog"
	"sync"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"
)

// appliedOps holds the vector outbox's ops that were applied and whose
// nodes are still to be deleted. A write's ops are applied under its
// namespace's lock, whose release follows at once: the release deletes
// them in its own transaction (lock.go), which spares the database a
// transaction per write. With no lock held by this store, nobody would
// release one soon, and a delete in the background takes them instead; so
// does a release that failed, and so do appliedBacklog of them waiting.
type appliedOps struct {
	mu   sync.Mutex
	seqs []int64
	// held counts the namespace locks this store holds: each of their
	// releases takes what is queued.
	held int
	// flushing is set while a background delete runs.
	flushing bool
}

// add queues seqs for deletion: for the next release when a lock is held,
// else for a background delete.
func (a *appliedOps) add(s *Store, seqs []int64, log *slog.Logger) {
	if len(seqs) == 0 {
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	a.seqs = append(a.seqs, seqs...)
	a.flushLocked(s, log)
}

// hold records that a lock was taken.
func (a *appliedOps) hold() {
	a.mu.Lock()
	a.held++
	a.mu.Unlock()
}

// take removes and returns what is queued, for a release to delete.
func (a *appliedOps) take() []int64 {
	a.mu.Lock()
	defer a.mu.Unlock()
	seqs := a.seqs
	a.seqs = nil
	return seqs
}

// released records that a lock was released; failed holds the seqs its
// release took and did not delete.
func (a *appliedOps) released(s *Store, failed []int64, log *slog.Logger) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.held--
	a.seqs = append(a.seqs, failed...)
	a.flushLocked(s, log)
}

// appliedBacklog is how many applied ops wait for a release at most: a
// lock held long (an extraction's integration holds it through its LLM
// calls) does not keep more of them in memory, nor in the database.
const appliedBacklog = 256

// flushLocked starts a background delete of what is queued when no held
// lock's release will take it soon, and none runs. a.mu is held.
func (a *appliedOps) flushLocked(s *Store, log *slog.Logger) {
	if a.flushing || len(a.seqs) == 0 || a.held > 0 && len(a.seqs) < appliedBacklog {
		return
	}
	a.flushing = true
	s.background.Add(1)
	go func() {
		defer s.background.Done()
		for {
			a.mu.Lock()
			seqs := a.seqs
			a.seqs = nil
			if len(seqs) == 0 {
				a.flushing = false
				a.mu.Unlock()
				return
			}
			a.mu.Unlock()
			ctx, cancel := context.WithTimeout(context.Background(), outboxDoneLimit)
			err := s.write(ctx, func(tx neo4j.ManagedTransaction) error { return deleteApplied(ctx, tx, s.cfg.Scope, seqs) })
			cancel()
			if err != nil {
				log.Warn("marking vector writes applied failed; they will be applied again", "ops", len(seqs), "error", err)
			}
		}
	}()
}

// deleteApplied deletes the outbox nodes of seqs in tx.
func deleteApplied(ctx context.Context, tx neo4j.ManagedTransaction, scope string, seqs []int64) error {
	_, err := run(ctx, tx, qDeleteApplied, map[string]any{"scope": scope, "seqs": seqs})
	return err
}
