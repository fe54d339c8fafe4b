package sqlitefile

import (
	"context"
	"path/filepath"
	"sync"
	"testing"
)

// TestOpen checks the settings every caller relies on, that the schema runs
// and is idempotent across opens, and that a bad schema leaves nothing open.
func TestOpen(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "x.db")
	const schema = `CREATE TABLE IF NOT EXISTS kv (k TEXT PRIMARY KEY, v TEXT)`
	db, err := Open(ctx, path, schema)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.ExecContext(ctx, `INSERT INTO kv VALUES ('a', '1')`); err != nil {
		t.Fatal(err)
	}
	pragmas := []struct {
		name string
		want string
	}{
		{"journal_mode", "wal"},
		{"synchronous", "2"}, // FULL
		{"busy_timeout", "10000"},
	}
	for _, p := range pragmas {
		var got string
		if err := db.QueryRowContext(ctx, "PRAGMA "+p.name).Scan(&got); err != nil || got != p.want {
			t.Errorf("PRAGMA %s = %q (%v), want %q", p.name, got, err, p.want)
		}
	}
	// Concurrent queries reuse the pool's connections instead of opening new ones.
	var wg sync.WaitGroup
	for range 4 * Connections {
		wg.Go(func() {
			for range 20 {
				var n int
				if err := db.QueryRowContext(ctx, `SELECT count(*) FROM kv`).Scan(&n); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	if st := db.Stats(); st.MaxOpenConnections != Connections || st.MaxIdleClosed != 0 || st.OpenConnections > Connections {
		t.Errorf("pool after concurrent queries: %+v; want at most %d connections, none closed as surplus idle", st, Connections)
	}
	_ = db.Close()

	again, err := Open(ctx, path, schema)
	if err != nil {
		t.Fatalf("second open: %v", err)
	}
	var v string
	if err := again.QueryRowContext(ctx, `SELECT v FROM kv WHERE k = 'a'`).Scan(&v); err != nil || v != "1" {
		t.Errorf("row after reopen: %q, %v", v, err)
	}
	_ = again.Close()

	if _, err := Open(ctx, path, `CREATE TABLE kv (k TEXT)`); err == nil {
		t.Error("a failing schema statement opened the file")
	}
}
