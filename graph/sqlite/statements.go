package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/kgmem/kgmem"
	"golang.org/x/sync/singleflight"
)

// writeStmts are the statements Apply runs for every record, prepared once on
// the writer connection: parsing them anew for each record cost about as much
// as executing them.
type writeStmts struct {
	registerNS, entityExists, episodeExists *sql.Stmt
	upsertEntity, clearNames, addName       *sql.Stmt
	// insertEpisodes holds, by row count (episodeChunks), the statement
	// inserting that many episodes, unless stored, and returning the id and
	// rowid of each inserted (insertEpisodesQuery). A change set's episodes
	// go in a few of them (insertEpisodes in apply.go). They replaced one
	// statement over a JSON array of rows, whose JSON encoding, parsing and
	// fourteen extractions per row cost more than binding the values.
	insertEpisodes         map[int]*sql.Stmt
	upsertItem, addMention *sql.Stmt
	// storedFact reads what upsertFact compares of a stored fact,
	// insertFact inserts a new one, and updateFact, keyed by which of its
	// indexed column groups change, updates a stored one in place
	// (updateFactQuery).
	storedFact, insertFact *sql.Stmt
	updateFact             map[factIndexed]*sql.Stmt
	// nextVersion draws from the version counter, setVersion gives the
	// drawn value to a namespace (see bumpVersion).
	nextVersion, setVersion *sql.Stmt
	// getVersion reads a namespace's version (none: no row).
	getVersion *sql.Stmt
	// savepoint, release and rollbackTo bracket each change set of a group
	// commit (applyInSavepoint): three statements per change set, which
	// the driver parsed anew every time.
	savepoint, release, rollbackTo *sql.Stmt
	// getEpisodeVersion and setEpisodeVersion read and give a namespace's
	// episode version (episodecache.go).
	getEpisodeVersion, setEpisodeVersion *sql.Stmt
	// setDecay is keyed by record table: it overwrites one record's decay
	// columns (SetDecay).
	setDecay map[string]*sql.Stmt
	// ftsDelete and ftsInsert are keyed by FTS table name; each takes a
	// JSON array (of rowids; of [rowid, body] pairs) and writes a whole
	// change set's entries in one statement.
	ftsDelete, ftsInsert map[string]*sql.Stmt
	// reads caches the read statements, prepared on the reader pool.
	reads readStmts
}

// limitParam ends a query with a LIMIT taken from a parameter. The unary
// plus hides the bound value from SQLite's planner: since SQLite 3.54 a bare
// "LIMIT ?" lets the planner read the value, and marks the statement to be
// re-planned whenever the parameter is bound again — on every execution, so
// a cached statement was parsed and planned anew each time (a fifth of the
// CPU of an ingest with extraction). TestCachedReadsArePlannedOnce guards it.
const limitParam = `LIMIT +?`

// maxCachedReads bounds the read statements kept prepared. Read queries are
// built from a few fixed shapes (id lists padded to powers of two), so a
// search reuses a handful; any beyond the bound run unprepared.
const maxCachedReads = 256

// readStmts caches prepared read statements by query text. Parsing and
// planning a query cost as much as running it on the reads a search makes
// (30% of the engine's search CPU at #7 scale before this cache): the
// modernc driver prepares every query it is given anew.
type readStmts struct {
	mu    sync.Mutex
	stmts map[string]*sql.Stmt
	// preparing dedups prepareLater's background prepares; pending counts
	// those not done yet (waitPrepared).
	preparing singleflight.Group
	pending   sync.WaitGroup
}

// lookup returns the cached statement for query, or nil.
func (c *readStmts) lookup(query string) *sql.Stmt {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.stmts[query]
}

// prepareLater prepares query on db in the background, for callers that
// hold a pool connection and so must not wait for another (see
// cachedReader.QueryContext); the next use finds it cached.
func (c *readStmts) prepareLater(db *sql.DB, query string) {
	c.pending.Add(1)
	done := c.preparing.DoChan(query, func() (any, error) {
		_, _, err := c.get(context.Background(), db, query)
		return nil, err
	})
	go func() {
		<-done
		c.pending.Done()
	}()
}

// waitPrepared returns once every background prepare started so far is done.
func (c *readStmts) waitPrepared() { c.pending.Wait() }

// get returns the statement for query prepared on db, preparing it on first
// use; ok is false when the cache is full (run the query unprepared). The
// lock is not held while preparing, which waits for a pool connection: a
// caller holding one (a read transaction) must never wait on the lock.
func (c *readStmts) get(ctx context.Context, db *sql.DB, query string) (st *sql.Stmt, ok bool, err error) {
	if st := c.lookup(query); st != nil {
		return st, true, nil
	}
	c.mu.Lock()
	full := len(c.stmts) >= maxCachedReads
	c.mu.Unlock()
	if full {
		return nil, false, nil
	}
	if st, err = db.PrepareContext(ctx, query); err != nil {
		return nil, false, wrapErr(err)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if old := c.stmts[query]; old != nil || len(c.stmts) >= maxCachedReads {
		_ = st.Close() // another caller cached it meanwhile, or filled the cache
		return old, old != nil, nil
	}
	if c.stmts == nil {
		c.stmts = map[string]*sql.Stmt{}
	}
	c.stmts[query] = st
	return st, true, nil
}

// close closes every cached statement, once the background prepares
// started so far are done: one still running would open a pool connection
// (and the file's -wal and -shm) after the Store's Close returned, and
// cache a statement nothing closes.
func (c *readStmts) close() error {
	c.waitPrepared()
	c.mu.Lock()
	defer c.mu.Unlock()
	var errs []error
	for _, st := range c.stmts {
		errs = append(errs, st.Close())
	}
	clear(c.stmts)
	return errors.Join(errs...)
}

// cachedReader runs queries through the read statement cache: on the reader
// pool itself, or inside a read transaction begun on it.
type cachedReader struct {
	s *Store
	q querier
}

// cached returns a querier for q (the reader pool or a transaction on it)
// that prepares each query once.
func (s *Store) cached(q querier) querier { return cachedReader{s: s, q: q} }

// QueryContext runs query through its cached statement.
func (c cachedReader) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	if tx, isTx := c.q.(*sql.Tx); isTx {
		// A transaction holds a pool connection: preparing on the pool
		// could wait for one forever once every connection is held so. It
		// uses a statement already cached (re-prepared on its connection if
		// need be, closed with it), or runs the query on its connection
		// while the statement is prepared on the pool for next time.
		if st := c.s.ws.reads.lookup(query); st != nil {
			return tx.StmtContext(ctx, st).QueryContext(ctx, args...)
		}
		c.s.ws.reads.prepareLater(c.s.r, query)
		return tx.QueryContext(ctx, query, args...)
	}
	st, ok, err := c.s.ws.reads.get(ctx, c.s.r, query)
	if err != nil {
		return nil, err
	}
	if !ok {
		return c.q.QueryContext(ctx, query, args...)
	}
	return st.QueryContext(ctx, args...)
}

// prepareWrites prepares every write statement on db.
func prepareWrites(ctx context.Context, db *sql.DB) (*writeStmts, error) {
	w := &writeStmts{ftsDelete: map[string]*sql.Stmt{}, ftsInsert: map[string]*sql.Stmt{}, setDecay: map[string]*sql.Stmt{},
		insertEpisodes: map[int]*sql.Stmt{}, updateFact: map[factIndexed]*sql.Stmt{}}
	var errs []error
	prep := func(query string) *sql.Stmt {
		st, err := db.PrepareContext(ctx, query)
		if err != nil {
			errs = append(errs, fmt.Errorf("prepare %.40q: %w", query, wrapErr(err)))
		}
		return st
	}
	w.registerNS = prep(`INSERT OR IGNORE INTO namespaces (namespace) VALUES (?)`)
	w.entityExists = prep(`SELECT 1 FROM entities WHERE namespace = ? AND id = ?`)
	w.episodeExists = prep(`SELECT 1 FROM episodes WHERE namespace = ? AND id = ?`)
	w.upsertEntity = prep(`
		INSERT INTO entities (namespace, id, name, type, summary, aliases, names_lower, attributes, created_at, updated_at,
			stability, reinforced_at, reinforcements, pinned, forgotten_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (namespace, id) DO UPDATE SET
			name = excluded.name, type = excluded.type, summary = excluded.summary, aliases = excluded.aliases,
			names_lower = excluded.names_lower, attributes = excluded.attributes,
			created_at = excluded.created_at, updated_at = excluded.updated_at,
			stability = excluded.stability, reinforced_at = excluded.reinforced_at,
			reinforcements = excluded.reinforcements, pinned = excluded.pinned, forgotten_at = excluded.forgotten_at
		RETURNING rid`)
	w.clearNames = prep(`DELETE FROM entity_names WHERE namespace = ? AND entity_id = ?`)
	w.addName = prep(`INSERT OR IGNORE INTO entity_names (namespace, norm, entity_id) VALUES (?, ?, ?)`)
	for _, n := range episodeChunks {
		w.insertEpisodes[n] = prep(insertEpisodesQuery(n))
	}
	w.storedFact = prep(`SELECT rid, subject_id, predicate, object_id, text, importance, valid_at, invalid_at
		FROM facts WHERE namespace = ? AND id = ?`)
	insertCols := slices.Concat([]string{"namespace", "id", "subject_id", "predicate", "object_id", "importance", "valid_at", "invalid_at"},
		factUnindexed)
	w.insertFact = prep(`INSERT INTO facts (` + strings.Join(insertCols, ", ") + `)
		VALUES (?` + strings.Repeat(", ?", len(insertCols)-1) + `) RETURNING rid`)
	for changed := range factIndexedAll + 1 {
		w.updateFact[changed] = prep(updateFactQuery(changed))
	}
	w.upsertItem = prep(`
		INSERT INTO items (namespace, id, key, value, text, fact_ids, created_at, updated_at,
			stability, reinforced_at, reinforcements, pinned, forgotten_at, ttl_minutes, expires_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (namespace, id) DO UPDATE SET
			key = excluded.key, value = excluded.value, text = excluded.text, fact_ids = excluded.fact_ids,
			created_at = excluded.created_at, updated_at = excluded.updated_at,
			stability = excluded.stability, reinforced_at = excluded.reinforced_at,
			reinforcements = excluded.reinforcements, pinned = excluded.pinned, forgotten_at = excluded.forgotten_at,
			ttl_minutes = excluded.ttl_minutes, expires_at = excluded.expires_at
		RETURNING rid`)
	w.addMention = prep(`INSERT OR IGNORE INTO mentions (namespace, episode_id, entity_id) VALUES (?, ?, ?)`)
	w.nextVersion = prep(`UPDATE graph_versions SET version = version + 1 WHERE namespace = '' RETURNING version`)
	w.getVersion = prep(`SELECT version FROM graph_versions WHERE namespace = ?`)
	w.savepoint, w.release, w.rollbackTo = prep(`SAVEPOINT apply`), prep(`RELEASE apply`), prep(`ROLLBACK TO apply`)
	w.setVersion = prep(`INSERT INTO graph_versions (namespace, version) VALUES (?, ?)
		ON CONFLICT (namespace) DO UPDATE SET version = excluded.version`)
	w.getEpisodeVersion = prep(`SELECT version FROM episode_versions WHERE namespace = ?`)
	w.setEpisodeVersion = prep(`INSERT INTO episode_versions (namespace, version) VALUES (?, ?)
		ON CONFLICT (namespace) DO UPDATE SET version = excluded.version`)
	for _, src := range ftsSources() {
		w.setDecay[src.records] = prep(`UPDATE ` + src.records + ` SET stability = ?, reinforced_at = ?, reinforcements = ?,
			pinned = ?, forgotten_at = ? WHERE namespace = ? AND id = ?`)
		w.ftsDelete[src.fts] = prep(`DELETE FROM ` + src.fts + ` WHERE rowid IN (SELECT value FROM json_each(?))`)
		w.ftsInsert[src.fts] = prep(`INSERT INTO ` + src.fts + ` (rowid, ns, body)
			SELECT value ->> 0, value ->> 1, value ->> 2 FROM jsonb_each(?)`)
	}
	if err := errors.Join(errs...); err != nil {
		_ = w.close()
		return nil, err
	}
	return w, nil
}

// episodeColumns is the number of columns of an episode row after the
// namespace (insertEpisodes).
const episodeColumns = 14

// episodeRowArgs are the parameters of one episode row: its namespace,
// then its columns.
const episodeRowArgs = 1 + episodeColumns

// episodeChunks are the row counts of the prepared episode inserts, largest
// first: a change set's episodes go in as many of the largest as fit, then
// the smaller ones, so 500 take eleven statements and one takes one.
var episodeChunks = []int{64, 16, 4, 1}

// insertEpisodesQuery inserts n episode rows, each its namespace and then
// its episodeColumns, and returns the id and rowid of each row inserted: a
// row whose id is stored, or repeats an earlier row's, is left out. The
// parameters are anonymous: the driver looks up the name of each parameter
// it binds, which for numbered ones (?NNN) is a walk of the statement's
// list of them — quadratic in a statement of hundreds.
func insertEpisodesQuery(n int) string {
	row := "(?" + strings.Repeat(", ?", episodeColumns) + ")"
	return `INSERT INTO episodes (namespace, id, thread_id, message_id, role, name, content, timestamp, metadata, created_at,
		stability, reinforced_at, reinforcements, pinned, forgotten_at) VALUES ` +
		strings.Repeat(row+", ", n-1) + row + ` ON CONFLICT (namespace, id) DO NOTHING RETURNING id, rid`
}

// factUnindexed are the columns of facts no index covers, set by every
// insert and update of a fact in this order (upsertFact's common values).
var factUnindexed = []string{"text", "confidence", "episodes", "attributes", "created_at", "expired_at",
	"stability", "reinforced_at", "reinforcements", "pinned", "forgotten_at"}

// factIndexed says which groups of a fact's indexed columns an update
// changes; each group's columns are set only when it does.
type factIndexed uint8

const (
	// factEndsChanged: subject_id, predicate and object_id, which most
	// indexes cover.
	factEndsChanged factIndexed = 1 << iota
	// factImportanceChanged: importance (facts_subject, facts_object).
	factImportanceChanged
	// factValidityChanged: valid_at and invalid_at (facts_latest).
	factValidityChanged
	// factIndexedAll is every group.
	factIndexedAll = factEndsChanged | factImportanceChanged | factValidityChanged
)

// updateFactQuery updates one fact, by rowid, setting factUnindexed and
// the groups changed says changed: its parameters are factUnindexed's
// values, each changed group's in the order of the constants above, then
// the rowid.
func updateFactQuery(changed factIndexed) string {
	cols := slices.Clone(factUnindexed)
	if changed&factEndsChanged != 0 {
		cols = append(cols, "subject_id", "predicate", "object_id")
	}
	if changed&factImportanceChanged != 0 {
		cols = append(cols, "importance")
	}
	if changed&factValidityChanged != 0 {
		cols = append(cols, "valid_at", "invalid_at")
	}
	return `UPDATE facts SET ` + strings.Join(cols, " = ?, ") + ` = ? WHERE rid = ?`
}

// close closes every prepared statement.
func (w *writeStmts) close() error {
	all := []*sql.Stmt{w.registerNS, w.entityExists, w.episodeExists, w.upsertEntity, w.clearNames, w.addName,
		w.storedFact, w.insertFact, w.upsertItem, w.addMention, w.nextVersion, w.setVersion, w.getVersion,
		w.savepoint, w.release, w.rollbackTo,
		w.getEpisodeVersion, w.setEpisodeVersion}
	for _, st := range w.setDecay {
		all = append(all, st)
	}
	for _, st := range w.insertEpisodes {
		all = append(all, st)
	}
	for _, st := range w.updateFact {
		all = append(all, st)
	}
	for _, st := range w.ftsDelete {
		all = append(all, st)
	}
	for _, st := range w.ftsInsert {
		all = append(all, st)
	}
	errs := []error{w.reads.close()}
	for _, st := range all {
		if st != nil {
			errs = append(errs, st.Close())
		}
	}
	return errors.Join(errs...)
}

// bumpVersion gives ns the next graph version, inside the write transaction
// tx: every write that can change what Neighborhood walks calls it.
func (w *writeStmts) bumpVersion(ctx context.Context, tx *sql.Tx, ns kgmem.Namespace) error {
	_, _, err := w.advanceVersion(ctx, tx, ns)
	return err
}

// advanceVersion is bumpVersion, returning the version ns had (0: none)
// and the one it gets, so that the caller can advance the views cached at
// the first to the second once tx commits.
func (w *writeStmts) advanceVersion(ctx context.Context, tx *sql.Tx, ns kgmem.Namespace) (from, to int64, err error) {
	err = tx.StmtContext(ctx, w.getVersion).QueryRowContext(ctx, ns).Scan(&from)
	if err != nil && !errNoRows(err) {
		return 0, 0, fmt.Errorf("graph version of %s: %w", ns, err)
	}
	if err := tx.StmtContext(ctx, w.nextVersion).QueryRowContext(ctx).Scan(&to); err != nil {
		return 0, 0, fmt.Errorf("graph version: %w", err)
	}
	if _, err := tx.StmtContext(ctx, w.setVersion).ExecContext(ctx, ns, to); err != nil {
		return 0, 0, fmt.Errorf("graph version of %s: %w", ns, err)
	}
	return from, to, nil
}
