// Package sqlite is the embedded kgmem.GraphStore: one SQLite file (pure Go,
// modernc.org/sqlite) with FTS5 full-text tables, no server to run.
//
// Layout: tables keyed by (namespace, id) with an integer rowid that also keys
// the FTS5 tables; every query filters by namespace first, through an index
// whose leading column is the namespace. Times are INTEGER unix milliseconds in
// UTC (NULL for the zero time); maps and lists are JSON text.
//
// Durability: WAL journal with synchronous=NORMAL. Every Apply is one
// transaction, so a crash never leaves half a ChangeSet; in WAL mode NORMAL
// keeps the file consistent on power loss too and only risks the last
// transactions before the loss, while sparing an fsync per commit (the WAL is
// synced at checkpoints). What such a loss costs is the last few messages, and
// ingestion is idempotent (episode ids derive from the client's message ids),
// so a client that re-sends them repairs it: the right default for an
// embedded memory.
//
// Search: three FTS5 tables (fact text; episode content prefixed with the
// speaker; entity names and aliases), unicode61 tokenizer with diacritics
// folded and Porter stemming. Every indexed and searched word is glued to a
// per-namespace prefix, so posting lists and BM25 document frequencies are
// per namespace and a search costs what its namespace holds, not what the
// file holds. Query text is split into plain words by Go code, never parsed
// as FTS5 syntax. Very common query terms are pruned when that provably
// cannot change the top hits (MaxScore bound, full query as fallback).
//
// Concurrency: one writer connection (SQLite allows one writer at a time;
// transactions start IMMEDIATE so they queue on busy_timeout instead of
// failing on lock upgrade) and a pool of query-only reader connections that WAL
// lets run beside it. Several Stores, in one process or several, may open the
// same file; one opened Exclusive has it alone (versions.go).
package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/graph/topology"
	"github.com/kgmem/kgmem/internal/groupcommit"
	"github.com/kgmem/kgmem/internal/nscache"
	"github.com/kgmem/kgmem/internal/walcheckpoint"
	"github.com/kgmem/kgmem/lexical"
	sqlite3 "modernc.org/sqlite"
	sqlite3lib "modernc.org/sqlite/lib"
)

// busyTimeoutMillis is how long a connection waits for a lock held by another
// connection before failing with kgmem.ErrUnavailable.
const busyTimeoutMillis = 10_000

// readerMmapBytes is how much of the database file each reader maps into
// memory: SQLite's largest mapping (SQLITE_MAX_MMAP_SIZE, just under 2 GiB).
// Pages of the mapped part are read in place instead of copied through a
// read system call, which cost a large store's searches a third of their
// CPU. Mapped pages are the kernel's file cache: they count in the resident
// set, but the kernel drops them under memory pressure.
const readerMmapBytes = 2147418112

// Store is a kgmem.GraphStore in one SQLite file. It is safe for concurrent use.
type Store struct {
	w  *sql.DB // the single writer connection
	r  *sql.DB // query-only readers
	ws *writeStmts
	// topo keeps namespaces' graph shapes for graph expansion (topology.go).
	topo *nscache.Cache[*topology.Topology]
	// names keeps namespaces' entity names for entity linking (entitynames.go).
	names *nscache.Cache[*entityNames]
	// lex keeps namespaces' BM25 indexes per kind for search (lexical.go).
	lex *nscache.Cache[*lexical.Index]
	// seeds is true when a fresh namespace's first write caches its views
	// (seedViews); a WriteOnly Store seeds none.
	seeds bool
	// entityFacts keeps namespaces' facts by the entities at their ends
	// for ListFacts of an entity (entityfacts.go).
	entityFacts *nscache.Cache[*entityFacts]
	// threads keeps namespaces' thread orders for ThreadNeighbors
	// (threadorder.go).
	threads *nscache.Cache[*threadOrder]
	// dfs caches search terms' document frequencies (prune.go).
	dfs dfCache
	// episodes keeps recently loaded episodes for Episodes (episodecache.go).
	episodes *episodeCache
	// own is the Store's hold on its file; memo, for an Exclusive Store,
	// the namespaces' versions (versions.go).
	own  *ownership
	memo *versionMemo
	// groups commits concurrent Applies together (groupcommit.go).
	groups *groupcommit.Queue[*pendingApply]
	// checkpoints, with BackgroundCheckpoints, copies the WAL into the file
	// after commits on a connection of its own; nil otherwise.
	checkpoints *walcheckpoint.Checkpointer
}

var _ kgmem.GraphStore = (*Store)(nil)

// Open opens (creating if needed) the store in the SQLite file at path and
// brings its schema up to date. Close it when done. By default several
// Stores, in one process or several, may have the file open; see Exclusive.
func Open(ctx context.Context, path string, opts ...Option) (s *Store, err error) {
	if path == "" || path == ":memory:" || strings.ContainsAny(path, "?#") {
		return nil, kgmem.Invalidf("path", "must be a file path without '?' or '#', got %q", path)
	}
	o := options{episodeCacheBytes: episodeCacheBudget}
	for _, opt := range opts {
		opt(&o)
	}
	own, err := own(path, o.exclusive)
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			_ = own.release()
		}
	}()
	common := []string{
		fmt.Sprintf("busy_timeout(%d)", busyTimeoutMillis),
		"foreign_keys(1)",
		"temp_store(memory)",
		"cache_size(-32000)", // 32 MB page cache per connection
	}
	writer := []string{"journal_mode(WAL)", "synchronous(NORMAL)"}
	if o.backgroundCheckpoints {
		writer = append(writer, walcheckpoint.WriterPragma) // s.checkpoints runs them
	}
	w, err := openPool(path, slices.Concat(common, writer), "immediate", 1)
	if err != nil {
		return nil, err
	}
	if err := migrateWhenFree(ctx, w); err != nil {
		_ = w.Close()
		return nil, fmt.Errorf("sqlite: open %s: %w", path, err)
	}
	ws, err := prepareWrites(ctx, w)
	if err != nil {
		_ = w.Close()
		return nil, fmt.Errorf("sqlite: open %s: %w", path, err)
	}
	readers := max(4, runtime.GOMAXPROCS(0))
	r, err := openPool(path, slices.Concat(common, []string{"query_only(1)", fmt.Sprintf("mmap_size(%d)", readerMmapBytes)}), "deferred", readers)
	if err != nil {
		_ = ws.close()
		_ = w.Close()
		return nil, err
	}
	// Graph versions are drawn from one counter (graph_versions), so they
	// only grow: a view one version ahead of a search is served.
	grows := nscache.VersionsGrow()
	s = &Store{w: w, r: r, ws: ws, topo: topology.NewCache(grows),
		names:       nscache.New[*entityNames](entityNamesBudget, entityNamesRefreshAbove, grows),
		lex:         nscache.New[*lexical.Index](lexicalBudget, lexicalRefreshAbove, grows),
		entityFacts: nscache.New[*entityFacts](entityFactsBudget, entityFactsRefreshAbove, grows),
		threads:     nscache.New[*threadOrder](threadOrderBudget, threadOrderRefreshAbove, grows),
		episodes:    newEpisodeCache(o.episodeCacheBytes), own: own, seeds: !o.writeOnly}
	s.groups = newApplyGroups(s)
	if o.exclusive {
		s.memo = newVersionMemo()
	}
	if o.backgroundCheckpoints {
		cp, err := openPool(path, slices.Concat(common, []string{"synchronous(NORMAL)"}), "deferred", 1)
		if err != nil {
			_ = s.Close()
			return nil, err
		}
		s.checkpoints = walcheckpoint.Start(cp)
	}
	if err := s.Ping(ctx); err != nil {
		_ = s.Close()
		return nil, fmt.Errorf("sqlite: open %s: %w", path, err)
	}
	return s, nil
}

// migrateWhenFree runs migrate, trying again for up to the busy timeout
// while it fails with SQLITE_BUSY: when several connections open a new file
// at once, SQLite can refuse a BEGIN IMMEDIATE without calling the busy
// handler while another of them switches the file to WAL mode.
func migrateWhenFree(ctx context.Context, db *sql.DB) error {
	deadline := time.Now().Add(busyTimeoutMillis * time.Millisecond)
	for wait := time.Millisecond; ; wait = min(2*wait, 100*time.Millisecond) {
		err := migrate(ctx, db)
		if err == nil || !errors.Is(err, kgmem.ErrUnavailable) || time.Now().After(deadline) {
			return err
		}
		select {
		case <-ctx.Done():
			return errors.Join(err, ctx.Err())
		case <-time.After(wait):
		}
	}
}

// openPool opens a database/sql pool on path whose every connection runs pragmas.
func openPool(path string, pragmas []string, txlock string, conns int) (*sql.DB, error) {
	q := url.Values{}
	for _, p := range pragmas {
		q.Add("_pragma", p)
	}
	q.Set("_txlock", txlock)
	db, err := sql.Open("sqlite", path+"?"+q.Encode())
	if err != nil {
		return nil, fmt.Errorf("sqlite: open %s: %w", path, err)
	}
	db.SetMaxOpenConns(conns)
	db.SetMaxIdleConns(conns)
	db.SetConnMaxIdleTime(0)
	return db, nil
}

// Ping checks both connection pools answer.
func (s *Store) Ping(ctx context.Context) error {
	if err := s.w.PingContext(ctx); err != nil {
		return fmt.Errorf("sqlite: ping writer: %w", wrapErr(err))
	}
	if err := s.r.PingContext(ctx); err != nil {
		return fmt.Errorf("sqlite: ping readers: %w", wrapErr(err))
	}
	return nil
}

// Close records query-planner statistics (PRAGMA optimize, cheap and
// incremental), closes both connection pools and lets other Stores open
// the file.
func (s *Store) Close() error {
	_, optErr := s.w.Exec(`PRAGMA optimize`)
	err := errors.Join(optErr, s.checkpoints.Close(), s.ws.close(), s.r.Close(), s.w.Close())
	return errors.Join(err, s.own.release())
}

// wrapErr marks lock timeouts as kgmem.ErrUnavailable so callers can retry.
func wrapErr(err error) error {
	var se *sqlite3.Error
	if errors.As(err, &se) {
		switch se.Code() & 0xff {
		case sqlite3lib.SQLITE_BUSY, sqlite3lib.SQLITE_LOCKED:
			return fmt.Errorf("%w: %w", kgmem.ErrUnavailable, err)
		}
	}
	return err
}

// checkNamespace validates a namespace argument.
func checkNamespace(ns kgmem.Namespace) error {
	if _, err := kgmem.ParseNamespace(string(ns)); err != nil {
		return fmt.Errorf("sqlite: %w", err)
	}
	return nil
}
