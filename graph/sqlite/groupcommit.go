package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync"

	"github.com/kgmem/kgmem"
)

// maxGroup bounds the change sets one transaction commits together.
const maxGroup = 64

// applyGroups commits concurrent Apply calls together: a committer,
// started when the first change set is queued and gone once the queue is
// empty, takes every change set queued meanwhile (up to maxGroup) into one
// transaction, each in a savepoint of its own so that one failing rolls back
// alone. Under load the single writer connection then commits once for many
// ingests instead of once for each (a goroutine dump under load had ten
// ingests waiting for the writer, each holding its namespace's lock,
// bench/README.md). The zero value is ready to use.
type applyGroups struct {
	mu         sync.Mutex
	queue      []*groupedApply
	committing bool
}

// groupedApply is one Apply call waiting in a group.
type groupedApply struct {
	ctx  context.Context
	cs   kgmem.ChangeSet
	a    *applier
	err  error
	done chan struct{}
}

// apply queues cs and returns once its group has committed, with its error.
// It waits for the commit even when ctx ends meanwhile, so that its answer
// says whether cs was written; a change set whose context ended before its
// turn is not written.
func (g *applyGroups) apply(ctx context.Context, s *Store, cs kgmem.ChangeSet) error {
	req := &groupedApply{ctx: ctx, cs: cs, done: make(chan struct{})}
	g.mu.Lock()
	g.queue = append(g.queue, req)
	if !g.committing {
		g.committing = true
		go g.commitQueued(s)
	}
	g.mu.Unlock()
	<-req.done
	return req.err
}

// commitQueued commits groups from the queue until it is empty.
func (g *applyGroups) commitQueued(s *Store) {
	for {
		g.mu.Lock()
		group := g.queue[:min(len(g.queue), maxGroup)]
		g.queue = g.queue[len(group):]
		if len(group) == 0 {
			g.committing = false
			g.mu.Unlock()
			return
		}
		g.mu.Unlock()
		s.commitGroup(group)
	}
}

// commitGroup writes the change sets of group in one transaction, each in
// a savepoint, and releases their callers. A caller whose context ended
// before its turn is not written. Statements run without the callers'
// cancellation: SQLite rolls the whole transaction back when a write
// statement is interrupted, which would undo the others' change sets.
func (s *Store) commitGroup(group []*groupedApply) {
	committed := false
	defer func() {
		for _, r := range group {
			if !committed {
				s.memo.written(r.cs.Namespace)
			}
			close(r.done)
		}
	}()
	ctx := context.Background()
	tx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		failAll(group, fmt.Errorf("begin: %w", wrapErr(err)))
		return
	}
	wrote := false
	for _, r := range group {
		if err := r.ctx.Err(); err != nil {
			r.err = err
			continue
		}
		if len(group) == 1 {
			// Alone in its transaction, a change set that fails is rolled
			// back with it: no savepoint needed (two statements fewer for
			// every ingest of an unhurried server).
			r.err = applyChangeSet(ctx, tx, s, r)
		} else {
			r.err = applyInSavepoint(ctx, tx, s, r)
		}
		wrote = wrote || r.err == nil
	}
	if !wrote {
		_ = tx.Rollback()
		return
	}
	// The versions each change set wrote go to the memo in commit order, so
	// the next search of its namespace need not read them back.
	err = s.memo.commit(tx.Commit, func(err error) {
		for _, r := range group {
			if err == nil && r.err == nil {
				s.memo.advanced(r.cs.Namespace, r.a.to, r.a.episodeVersion)
			} else {
				s.memo.written(r.cs.Namespace)
			}
		}
	})
	if err != nil {
		failAll(group, fmt.Errorf("commit: %w", wrapErr(err)))
		return
	}
	committed = true
	s.checkpoints.Kick()
	for _, r := range group {
		if r.err == nil {
			s.advanceViews(r.cs, r.a.from, r.a.to, r.a.threaded)
			// What was just written is likely to be searched for soon.
			s.episodes.fill(r.cs.Namespace, r.a.episodeVersion, r.a.insertedEpisodes)
		}
	}
}

// applyInSavepoint writes r's change set inside tx, all or nothing.
func applyInSavepoint(ctx context.Context, tx *sql.Tx, s *Store, r *groupedApply) error {
	if _, err := tx.StmtContext(ctx, s.ws.savepoint).ExecContext(ctx); err != nil {
		return fmt.Errorf("savepoint: %w", wrapErr(err))
	}
	if err := applyChangeSet(ctx, tx, s, r); err != nil {
		_, rbErr := tx.StmtContext(ctx, s.ws.rollbackTo).ExecContext(ctx)
		_, relErr := tx.StmtContext(ctx, s.ws.release).ExecContext(ctx)
		return errors.Join(err, rbErr, relErr)
	}
	if _, err := tx.StmtContext(ctx, s.ws.release).ExecContext(ctx); err != nil {
		return fmt.Errorf("release savepoint: %w", wrapErr(err))
	}
	return nil
}

// applyChangeSet writes r's change set inside tx; on an error part of it
// may be written, for the caller to roll back.
func applyChangeSet(ctx context.Context, tx *sql.Tx, s *Store, r *groupedApply) error {
	r.a = &applier{ctx: ctx, tx: tx, st: s.ws, ns: r.cs.Namespace, tok: nsToken(r.cs.Namespace), pre: wordPrefix(r.cs.Namespace),
		known: map[string]bool{}, fts: map[string]*ftsBatch{}}
	err := r.a.apply(r.cs)
	if err == nil {
		err = r.a.flushFTS()
	}
	if err == nil && len(r.a.insertedEpisodes) > 0 {
		err = tx.StmtContext(ctx, s.ws.getEpisodeVersion).QueryRowContext(ctx, r.cs.Namespace).Scan(&r.a.episodeVersion)
		if errNoRows(err) {
			err = nil
		}
	}
	return wrapErr(err)
}

// failAll gives every change set of group err: none was written.
func failAll(group []*groupedApply, err error) {
	for _, r := range group {
		r.err = err
	}
}
