// Package sqlitefile opens the small, durable SQLite files the server keeps
// beside its data (the API key store, the background job store): WAL, every
// commit synced, and a busy timeout so the server and a CLI subcommand may
// open the same file at once.
package sqlitefile

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"

	_ "modernc.org/sqlite" // the "sqlite" database/sql driver
)

// BusyTimeoutMillis is how long a statement waits for another connection's
// write lock before failing with SQLITE_BUSY.
const BusyTimeoutMillis = 10000

// Connections is how many connections a file's pool opens at most, and keeps
// open when idle: database/sql keeps two idle by default, so under more
// concurrent requests than that (the key store is read on every request of
// a server without keys) it opened and closed a SQLite connection, parsing
// the schema again, for most queries.
const Connections = 8

// Open opens (creating if needed) the SQLite file at path with WAL,
// synchronous=FULL and the busy timeout, then runs schema (idempotent
// statements). On error nothing stays open.
func Open(ctx context.Context, path, schema string) (*sql.DB, error) {
	q := url.Values{}
	for _, p := range []string{"journal_mode(WAL)", "synchronous(FULL)", fmt.Sprintf("busy_timeout(%d)", BusyTimeoutMillis)} {
		q.Add("_pragma", p)
	}
	db, err := sql.Open("sqlite", path+"?"+q.Encode())
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	db.SetMaxOpenConns(Connections)
	db.SetMaxIdleConns(Connections)
	if _, err := db.ExecContext(ctx, schema); err != nil {
		_ = db.Close()
		return nil, fmt.Errorf("create schema in %s: %w", path, err)
	}
	return db, nil
}
