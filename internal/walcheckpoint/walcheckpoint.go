// Package walcheckpoint runs the WAL checkpoints of a SQLite database in the
// background, on a connection of their own.
//
// By default SQLite checkpoints inside the commit that grows the WAL past
// 1,000 pages: the committing connection copies the pages into the database
// file and fsyncs it before its commit returns, and a store with a single
// writer stops writing meanwhile. With wal_autocheckpoint(0) on the writer and a
// Checkpointer kicked after each commit, the writer goes on while the
// checkpoint copies and syncs. A checkpoint is PASSIVE, as SQLite's own: it
// copies what no reader still needs and never blocks the writer or readers.
// Durability does not change: a commit is in the WAL either way.
package walcheckpoint

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync"
	"time"
)

// WriterPragma turns off the checkpoints a connection would run in its own
// commits; give it to the writer's connections (as a _pragma DSN value).
const WriterPragma = "wal_autocheckpoint(0)"

// MinInterval is the least time between two checkpoints: under a stream of
// commits, about as often as SQLite's default of one per 1,000 pages (4 MB)
// at the rate the embedded store writes an import, without an fsync per
// commit.
const MinInterval = 250 * time.Millisecond

// Checkpointer checkpoints one database when kicked, at most every
// MinInterval. Its methods are safe for concurrent use.
type Checkpointer struct {
	db   *sql.DB
	kick chan struct{}
	stop chan struct{}
	done chan struct{}

	mu      sync.Mutex
	lastErr error // of the last checkpoint that failed, until one succeeds
	runs    int

	closing  sync.Once
	closeErr error
}

// Start checkpoints the database db is open on (a pool it owns from now on
// and closes in Close; one connection is enough) whenever Kick is called.
func Start(db *sql.DB) *Checkpointer {
	c := &Checkpointer{db: db, kick: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{})}
	go c.loop()
	return c
}

// Kick asks for a checkpoint soon. It never blocks: kicks arriving while
// one is pending or running are covered by the next checkpoint. A nil
// Checkpointer (a store without one) ignores it.
func (c *Checkpointer) Kick() {
	if c == nil {
		return
	}
	select {
	case c.kick <- struct{}{}:
	default:
	}
}

// Runs returns how many checkpoints have completed.
func (c *Checkpointer) Runs() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.runs
}

// Close stops the checkpoints, runs a last one, closes the pool and returns
// the error of the last checkpoint if it failed. Later calls return the
// same; on a nil Checkpointer it does nothing.
func (c *Checkpointer) Close() error {
	if c == nil {
		return nil
	}
	c.closing.Do(func() {
		close(c.stop)
		<-c.done
		c.checkpoint()
		c.mu.Lock()
		err := c.lastErr
		c.mu.Unlock()
		c.closeErr = errors.Join(err, c.db.Close())
	})
	return c.closeErr
}

func (c *Checkpointer) loop() {
	defer close(c.done)
	var last time.Time
	for {
		select {
		case <-c.stop:
			return
		case <-c.kick:
		}
		if wait := MinInterval - time.Since(last); wait > 0 {
			select {
			case <-c.stop:
				return
			case <-time.After(wait):
			}
		}
		c.checkpoint()
		last = time.Now()
	}
}

// checkpoint runs one PASSIVE checkpoint. A failure is kept for Close and
// retried at the next kick: the pages stay in the WAL meanwhile.
func (c *Checkpointer) checkpoint() {
	var busy, logFrames, copied int
	err := c.db.QueryRowContext(context.Background(), `PRAGMA wal_checkpoint(PASSIVE)`).Scan(&busy, &logFrames, &copied)
	c.mu.Lock()
	defer c.mu.Unlock()
	if err != nil {
		c.lastErr = fmt.Errorf("wal checkpoint: %w", err)
		return
	}
	c.lastErr = nil
	c.runs++
}
