package walcheckpoint_test

import (
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kgmem/kgmem/internal/walcheckpoint"
	_ "modernc.org/sqlite"
)

// open opens path in WAL mode with the given extra pragmas, one connection.
func open(t *testing.T, path string, pragmas ...string) *sql.DB {
	t.Helper()
	dsn := "file:" + path + "?_pragma=journal_mode(WAL)&_pragma=busy_timeout(10000)"
	for _, p := range pragmas {
		dsn += "&_pragma=" + p
	}
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	return db
}

// openWriter opens path as a writer that leaves checkpoints to a
// Checkpointer (WriterPragma), with the table writePages fills; it is
// closed at the end of the test.
func openWriter(t *testing.T, path string) *sql.DB {
	t.Helper()
	w := open(t, path, walcheckpoint.WriterPragma)
	t.Cleanup(func() { _ = w.Close() })
	if _, err := w.Exec(`CREATE TABLE t (k INTEGER PRIMARY KEY, v TEXT)`); err != nil {
		t.Fatal(err)
	}
	return w
}

// writePages commits n rows of 4 KB each, one commit per row: 5,000 pages,
// past the 1,000 at which SQLite would checkpoint in a commit by default.
func writePages(t *testing.T, db *sql.DB, from, n int) {
	t.Helper()
	for i := from; i < from+n; i++ {
		if _, err := db.Exec(`INSERT INTO t (k, v) VALUES (?, ?)`, i, strings.Repeat("x", 4000)); err != nil {
			t.Fatal(err)
		}
	}
}

func fileSize(t *testing.T, path string) int64 {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Size()
}

// TestWriterLeavesCheckpointsToTheCheckpointer: a writer with WriterPragma
// commits past SQLite's checkpoint threshold without copying anything into
// the database file; a kick has the Checkpointer copy it, and Close runs a
// last checkpoint for what came after.
func TestWriterLeavesCheckpointsToTheCheckpointer(t *testing.T) {
	path := filepath.Join(t.TempDir(), "db.sqlite")
	w := openWriter(t, path)
	writePages(t, w, 0, 1500)
	if size := fileSize(t, path); size > 64<<10 {
		t.Fatalf("the writer checkpointed: the database file holds %d bytes", size)
	}

	c := walcheckpoint.Start(open(t, path))
	if c.Runs() != 0 {
		t.Fatal("checkpointed before a kick")
	}
	c.Kick()
	c.Kick() // coalesced with the first
	deadline := time.Now().Add(10 * time.Second)
	for c.Runs() == 0 || fileSize(t, path) < 1500*4000 {
		if time.Now().After(deadline) {
			t.Fatalf("no checkpoint 10 s after a kick: %d runs, file %d bytes", c.Runs(), fileSize(t, path))
		}
		time.Sleep(10 * time.Millisecond)
	}

	// Measured before the last writes: a checkpoint still running from the
	// kicks may move some of them into the file before Close.
	before := fileSize(t, path)
	writePages(t, w, 1500, 500)
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if after := fileSize(t, path); after < before+500*4000 {
		t.Fatalf("Close did not checkpoint the last writes: file %d bytes, then %d", before, after)
	}
	var n int
	if err := w.QueryRow(`SELECT count(*) FROM t`).Scan(&n); err != nil || n != 2000 {
		t.Fatalf("rows after the checkpoints: %d, %v", n, err)
	}
}

// TestKickNeverBlocks: kicks from many writers while a checkpoint runs
// return at once and are covered by the next checkpoint; Close may be
// called again.
func TestKickNeverBlocks(t *testing.T) {
	path := filepath.Join(t.TempDir(), "db.sqlite")
	openWriter(t, path) // the database the checkpoints run on
	c := walcheckpoint.Start(open(t, path))
	done := make(chan struct{})
	go func() {
		defer close(done)
		for range 10000 {
			c.Kick()
		}
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("10,000 kicks did not return within 10 s")
	}
	for range 2 { // and Close twice
		if err := c.Close(); err != nil {
			t.Fatal(fmt.Errorf("close: %w", err))
		}
	}
}
