package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/internal/groupcommit"
)

// maxGroup bounds the change sets one transaction commits together.
const maxGroup = 64

// The graph's single writer connection commits concurrent Apply calls
// together (internal/groupcommit), each change set all or nothing, so that
// one failing rolls back alone, and ingests do not queue one by one for
// the writer while holding their namespaces' locks.

// pendingApply is one Apply call's change set and, once written, what its
// writing left for the views to advance.
type pendingApply struct {
	cs kgmem.ChangeSet
	// indexed holds the search entry bodies of cs's texts (searchBodies).
	indexed map[string]string
	a       *applier
}

// groupedApply is one Apply call waiting in a group.
type groupedApply = groupcommit.Request[*pendingApply]

// newApplyGroups returns s's queue of Apply calls.
func newApplyGroups(s *Store) *groupcommit.Queue[*pendingApply] {
	return groupcommit.New(maxGroup, s.commitGroup)
}

// commitGroup writes the change sets of group in one transaction, each all
// or nothing, and gives each its error. A caller whose context ended
// before its turn is not written. Statements run without the callers'
// cancellation: SQLite rolls the whole transaction back when a write
// statement is interrupted, which would undo the others' change sets.
func (s *Store) commitGroup(group []*groupedApply) {
	committed := false
	defer func() {
		if !committed {
			for _, r := range group {
				s.memo.written(r.Item.cs.Namespace)
			}
		}
	}()
	ctx := context.Background()
	// Change sets seldom fail: a group is first written without a
	// savepoint per change set (two statements each). When one fails, that
	// transaction is rolled back and the group written again with them, so
	// that the failing change set is rolled back alone.
	tx, wrote, err := s.writeGroup(ctx, group, false)
	if errors.Is(err, errRetryInSavepoints) {
		tx, wrote, err = s.writeGroup(ctx, group, true)
	}
	if err != nil {
		failAll(group, err)
		return
	}
	if !wrote {
		_ = tx.Rollback()
		return
	}
	// The cached views (BM25 indexes, thread orders, episodes) advance to
	// what the group wrote before the memo publishes the new versions, so
	// that a search which reads a new version finds its views at it. The
	// other way round, a search between the two found its namespace's views
	// one version behind and read them whole from the file again (about 2 %
	// of the server's CPU under scripts/profile-load.sh). Without a memo, searches
	// read the versions from the file, and the views advance after the
	// commit.
	advance := func() {
		for _, r := range group {
			if p := r.Item; r.Err == nil {
				s.advanceViews(p.cs, p.a)
				// What was just written is likely to be searched for soon.
				s.episodes.fill(p.cs.Namespace, p.a.episodeVersion, p.a.insertedEpisodes)
			}
		}
	}
	advanced := false
	// The versions each change set wrote go to the memo in commit order, so
	// the next search of its namespace need not read them back.
	err = s.memo.commit(tx.Commit, func(err error) {
		if err == nil {
			advance()
			advanced = true
		}
		for _, r := range group {
			if err == nil && r.Err == nil {
				s.memo.advanced(r.Item.cs.Namespace, r.Item.a.to, r.Item.a.episodeVersion)
			} else {
				s.memo.written(r.Item.cs.Namespace)
			}
		}
	})
	if err != nil {
		failAll(group, fmt.Errorf("commit: %w", wrapErr(err)))
		return
	}
	committed = true
	s.checkpoints.Kick()
	if !advanced {
		advance()
	}
}

// errRetryInSavepoints: a change set of a group written without savepoints
// failed, and the transaction was rolled back.
var errRetryInSavepoints = errors.New("a change set of the group failed")

// writeGroup begins a transaction and writes the change sets of group in
// it, each in a savepoint of its own with inSavepoints, and gives each its
// error; wrote says whether any was written. Without savepoints, a failing
// change set of a group of more than one rolls the transaction back and
// ends the call with errRetryInSavepoints. A change set whose context has
// ended is not written.
func (s *Store) writeGroup(ctx context.Context, group []*groupedApply, inSavepoints bool) (tx *sql.Tx, wrote bool, err error) {
	tx, err = s.w.BeginTx(ctx, nil)
	if err != nil {
		return nil, false, fmt.Errorf("begin: %w", wrapErr(err))
	}
	// Without savepoints, the search entries of a group's change sets are
	// written together at its end (writeFTS says why).
	deferFTS := !inSavepoints && len(group) > 1
	var written []*applier
	for _, r := range group {
		if r.Err = r.Ctx.Err(); r.Err != nil {
			continue
		}
		if inSavepoints {
			r.Err = applyInSavepoint(ctx, tx, s, r.Item)
		} else if r.Err = applyChangeSet(ctx, tx, s, r.Item, !deferFTS); r.Err != nil && len(group) > 1 {
			_ = tx.Rollback()
			return nil, false, errRetryInSavepoints
		}
		if r.Err == nil {
			written = append(written, r.Item.a)
		}
	}
	if deferFTS && len(written) > 0 {
		if err := writeFTS(ctx, tx, s.ws, written...); err != nil {
			_ = tx.Rollback()
			return nil, false, errRetryInSavepoints
		}
	}
	return tx, len(written) > 0, nil
}

// applyInSavepoint writes r's change set inside tx, all or nothing.
func applyInSavepoint(ctx context.Context, tx *sql.Tx, s *Store, r *pendingApply) error {
	if _, err := tx.StmtContext(ctx, s.ws.savepoint).ExecContext(ctx); err != nil {
		return fmt.Errorf("savepoint: %w", wrapErr(err))
	}
	if err := applyChangeSet(ctx, tx, s, r, true); err != nil {
		_, rbErr := tx.StmtContext(ctx, s.ws.rollbackTo).ExecContext(ctx)
		_, relErr := tx.StmtContext(ctx, s.ws.release).ExecContext(ctx)
		return errors.Join(err, rbErr, relErr)
	}
	if _, err := tx.StmtContext(ctx, s.ws.release).ExecContext(ctx); err != nil {
		return fmt.Errorf("release savepoint: %w", wrapErr(err))
	}
	return nil
}

// applyChangeSet writes r's change set inside tx, and its search entries
// with withFTS (else the caller writes them: writeFTS); on an error part of
// it may be written, for the caller to roll back.
func applyChangeSet(ctx context.Context, tx *sql.Tx, s *Store, r *pendingApply, withFTS bool) error {
	r.a = &applier{ctx: ctx, tx: tx, st: s.ws, ns: r.cs.Namespace, tok: nsToken(r.cs.Namespace), pre: wordPrefix(r.cs.Namespace),
		indexed: r.indexed, known: map[string]bool{}, fts: map[string]*ftsBatch{}}
	err := r.a.apply(r.cs)
	if err == nil && withFTS {
		err = writeFTS(ctx, tx, s.ws, r.a)
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
		r.Err = err
	}
}
