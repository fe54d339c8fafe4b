package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"regexp"
)

// schemaVersion is the layout this package writes, kept in PRAGMA user_version.
// Bump it and append a step to migrations when the layout changes.
const schemaVersion = 11

// ftsTokenizer is the tokenizer of every full-text table: Unicode word
// boundaries, diacritics folded ("Zürich" finds "Zurich"), case folded, and
// Porter stemming so "leads" finds "lead" and "leading". Stemming is English
// only; on other languages it leaves most words alone, which is harmless.
const ftsTokenizer = `porter unicode61 remove_diacritics 2`

// migrations returns, at index i, the statements that take the schema from
// version i to i+1. Every statement is idempotent (an ADD COLUMN, which
// SQLite cannot make so, is skipped by migrate when the column exists).
func migrations() [][]string {
	return [][]string{{
		// Every namespace that holds a record or settings; kept by Apply,
		// PutSettings and PurgeNamespace so Namespaces never scans the records.
		`CREATE TABLE IF NOT EXISTS namespaces (
		namespace TEXT PRIMARY KEY
	) WITHOUT ROWID`,

		`CREATE TABLE IF NOT EXISTS entities (
		rid            INTEGER PRIMARY KEY,
		namespace      TEXT NOT NULL,
		id             TEXT NOT NULL,
		name           TEXT NOT NULL,
		type           TEXT NOT NULL,
		summary        TEXT NOT NULL,
		aliases        TEXT NOT NULL,
		names_lower    TEXT NOT NULL,
		attributes     TEXT,
		created_at     INTEGER,
		updated_at     INTEGER,
		stability      REAL NOT NULL DEFAULT 0,
		reinforced_at  INTEGER,
		reinforcements INTEGER NOT NULL DEFAULT 0,
		pinned         INTEGER NOT NULL DEFAULT 0,
		forgotten_at   INTEGER,
		UNIQUE (namespace, id)
	)`,
		`CREATE INDEX IF NOT EXISTS entities_type ON entities (namespace, type, id)`,
		// The normalised name and every normalised alias of each entity.
		`CREATE TABLE IF NOT EXISTS entity_names (
		namespace TEXT NOT NULL,
		norm      TEXT NOT NULL,
		entity_id TEXT NOT NULL,
		PRIMARY KEY (namespace, norm, entity_id)
	) WITHOUT ROWID`,
		`CREATE INDEX IF NOT EXISTS entity_names_entity ON entity_names (namespace, entity_id)`,

		`CREATE TABLE IF NOT EXISTS facts (
		rid            INTEGER PRIMARY KEY,
		namespace      TEXT NOT NULL,
		id             TEXT NOT NULL,
		subject_id     TEXT NOT NULL,
		predicate      TEXT NOT NULL,
		object_id      TEXT NOT NULL,
		text           TEXT NOT NULL,
		confidence     REAL NOT NULL,
		importance     INTEGER NOT NULL,
		episodes       TEXT NOT NULL,
		attributes     TEXT,
		valid_at       INTEGER,
		invalid_at     INTEGER,
		created_at     INTEGER,
		expired_at     INTEGER,
		stability      REAL NOT NULL DEFAULT 0,
		reinforced_at  INTEGER,
		reinforcements INTEGER NOT NULL DEFAULT 0,
		pinned         INTEGER NOT NULL DEFAULT 0,
		forgotten_at   INTEGER,
		UNIQUE (namespace, id),
		FOREIGN KEY (namespace, subject_id) REFERENCES entities (namespace, id),
		FOREIGN KEY (namespace, object_id) REFERENCES entities (namespace, id)
	)`,
		// Traversal takes the most important facts of an entity first: these
		// indexes serve that order directly, and the foreign-key checks.
		`CREATE INDEX IF NOT EXISTS facts_subject ON facts (namespace, subject_id, importance DESC, id)`,
		`CREATE INDEX IF NOT EXISTS facts_object ON facts (namespace, object_id, importance DESC, id)`,
		`CREATE INDEX IF NOT EXISTS facts_predicate ON facts (namespace, predicate, id)`,

		`CREATE TABLE IF NOT EXISTS episodes (
		rid            INTEGER PRIMARY KEY,
		namespace      TEXT NOT NULL,
		id             TEXT NOT NULL,
		thread_id      TEXT NOT NULL,
		message_id     TEXT NOT NULL,
		role           TEXT NOT NULL,
		name           TEXT NOT NULL,
		content        TEXT NOT NULL,
		timestamp      INTEGER,
		metadata       TEXT,
		created_at     INTEGER,
		stability      REAL NOT NULL DEFAULT 0,
		reinforced_at  INTEGER,
		reinforcements INTEGER NOT NULL DEFAULT 0,
		pinned         INTEGER NOT NULL DEFAULT 0,
		forgotten_at   INTEGER,
		UNIQUE (namespace, id)
	)`,

		`CREATE TABLE IF NOT EXISTS mentions (
		namespace  TEXT NOT NULL,
		episode_id TEXT NOT NULL,
		entity_id  TEXT NOT NULL,
		PRIMARY KEY (namespace, episode_id, entity_id),
		FOREIGN KEY (namespace, episode_id) REFERENCES episodes (namespace, id),
		FOREIGN KEY (namespace, entity_id) REFERENCES entities (namespace, id)
	) WITHOUT ROWID`,
		`CREATE INDEX IF NOT EXISTS mentions_entity ON mentions (namespace, entity_id)`,

		`CREATE TABLE IF NOT EXISTS settings (
		namespace TEXT PRIMARY KEY,
		body      TEXT NOT NULL
	) WITHOUT ROWID`,

		// Full-text tables. rowid is the rid of the record; ns holds the
		// namespace's token (nsToken) and body the record's words, each glued to
		// the namespace's prefix (wordPrefix), so that posting lists and BM25
		// statistics are per namespace. Contentless: the text lives in the
		// record tables only.
		`CREATE VIRTUAL TABLE IF NOT EXISTS fact_fts USING fts5 (ns, body, content='', contentless_delete=1, tokenize='` + ftsTokenizer + `')`,
		`CREATE VIRTUAL TABLE IF NOT EXISTS episode_fts USING fts5 (ns, body, content='', contentless_delete=1, tokenize='` + ftsTokenizer + `')`,
		`CREATE VIRTUAL TABLE IF NOT EXISTS entity_fts USING fts5 (ns, body, content='', contentless_delete=1, tokenize='` + ftsTokenizer + `')`,
	}, {
		// Version 2: a thread in order (timestamp, then storage order), for
		// ThreadNeighbors.
		`CREATE INDEX IF NOT EXISTS episodes_thread ON episodes (namespace, thread_id, coalesce(timestamp, 0), rid)`,
	}, {
		// Version 3: the same order on the plain column, which SQLite can
		// seek into (a range on the expression index was a scan of the
		// thread). Episodes without a timestamp have no thread neighbours.
		`DROP INDEX IF EXISTS episodes_thread`,
		`CREATE INDEX IF NOT EXISTS episodes_thread_ts ON episodes (namespace, thread_id, timestamp, rid)`,
	}, {
		// Version 4: the slices of a hub entity's facts that integration
		// reads per triple (ListFacts by entity and predicate, or between two
		// entities) as index range scans in id order, which stop at the page
		// limit rather than reading all of a hub's facts.
		`CREATE INDEX IF NOT EXISTS facts_subject_predicate ON facts (namespace, subject_id, predicate, id)`,
		`CREATE INDEX IF NOT EXISTS facts_object_predicate ON facts (namespace, object_id, predicate, id)`,
		`CREATE INDEX IF NOT EXISTS facts_pair ON facts (namespace, subject_id, object_id, id)`,
	}, {
		// Version 5: a version per namespace, raised by every write that can
		// change its graph, so readers (of this process or another) can tell
		// whether what they keep in memory of it (see topology.go) is
		// current. Versions come from one counter over all namespaces, the
		// row of the empty namespace (never a valid one), so a purged and
		// re-created namespace never repeats an old version.
		`CREATE TABLE IF NOT EXISTS graph_versions (
		namespace TEXT PRIMARY KEY,
		version   INTEGER NOT NULL
	) WITHOUT ROWID`,
		// Namespaces written before this step start at version 1; a
		// namespace without a row (none written, or purged) reads as 0.
		`INSERT OR IGNORE INTO graph_versions (namespace, version) SELECT namespace, 1 FROM namespaces`,
		`INSERT OR IGNORE INTO graph_versions (namespace, version) VALUES ('', 1)`,
	}, {
		// Version 6: items, JSON documents addressed by (namespace, key)
		// and overwritten by key (kgmem.Item), with their search entries.
		`CREATE TABLE IF NOT EXISTS items (
		rid            INTEGER PRIMARY KEY,
		namespace      TEXT NOT NULL,
		id             TEXT NOT NULL,
		key            TEXT NOT NULL,
		value          TEXT NOT NULL,
		text           TEXT NOT NULL,
		fact_ids       TEXT NOT NULL DEFAULT '[]',
		created_at     INTEGER,
		updated_at     INTEGER,
		stability      REAL NOT NULL DEFAULT 0,
		reinforced_at  INTEGER,
		reinforcements INTEGER NOT NULL DEFAULT 0,
		pinned         INTEGER NOT NULL DEFAULT 0,
		forgotten_at   INTEGER,
		UNIQUE (namespace, id)
	)`,
		`CREATE VIRTUAL TABLE IF NOT EXISTS item_fts USING fts5 (ns, body, content='', contentless_delete=1, tokenize='` + ftsTokenizer + `')`,
	}, {
		// Version 7: a version per namespace raised by every write that
		// changes a stored episode (a decay update, a purge), from the
		// counter of graph versions, so that a Store can tell whether the
		// episodes it keeps in memory are current (episodecache.go). A
		// namespace without a row reads as 0.
		`CREATE TABLE IF NOT EXISTS episode_versions (
		namespace TEXT PRIMARY KEY,
		version   INTEGER NOT NULL
	) WITHOUT ROWID`,
	}, {
		// Version 8: a namespace's latest instant (LatestTime) as two index
		// seeks instead of a read of all its episodes and facts.
		`CREATE INDEX IF NOT EXISTS episodes_timestamp ON episodes (namespace, timestamp)`,
		`CREATE INDEX IF NOT EXISTS facts_latest ON facts (namespace, ` + factLatest + `)`,
	}, {
		// Version 9: mentions without their index by entity. No query reads
		// mentions by entity (none reads them at all: they are the graph's
		// record of which message named whom, deleted with their
		// namespace), and keeping that index cost every extracting write
		// (BenchmarkApplyExtractedBatch).
		`DROP INDEX IF EXISTS mentions_entity`,
	}, decayFromLearning(), {
		// Version 11: an item's TTL (minutes, NULL for none) and expiry
		// (NULL: never), and the expiries each namespace's sweep reads.
		`ALTER TABLE items ADD COLUMN ttl_minutes REAL`,
		`ALTER TABLE items ADD COLUMN expires_at INTEGER`,
		`CREATE INDEX IF NOT EXISTS items_expires ON items (namespace, expires_at) WHERE expires_at IS NOT NULL`,
	}}
}

// decayFromLearning is version 10: the forgetting curve starts when kgmem
// learned a record, not at its message's (world) time. Records stored
// before, whose curve started at a back-dated message time, restart it at
// their creation, and those the sweep forgot because of that back-dating
// come back (the next sweep decides again, by the new rule). Readers of
// the file see new graph and episode versions.
func decayFromLearning() []string {
	var out []string
	for _, table := range []string{"episodes", "facts", "entities", "items"} {
		out = append(out, `UPDATE `+table+` SET reinforced_at = created_at, forgotten_at = NULL
		WHERE created_at IS NOT NULL AND reinforced_at < created_at`)
	}
	return append(out,
		`UPDATE graph_versions SET version = version + 1 WHERE namespace = ''`,
		`UPDATE graph_versions SET version = (SELECT version FROM graph_versions WHERE namespace = '') WHERE namespace <> ''`,
		`INSERT INTO episode_versions (namespace, version) SELECT namespace, (SELECT version FROM graph_versions WHERE namespace = '') FROM namespaces WHERE true
		ON CONFLICT (namespace) DO UPDATE SET version = excluded.version`)
}

// migrate brings the schema of db up to schemaVersion in one immediate
// transaction, so concurrent openers of a new file wait for each other.
func migrate(ctx context.Context, db *sql.DB) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("begin: %w", wrapErr(err))
	}
	defer func() { _ = tx.Rollback() }()
	var version int
	if err := tx.QueryRowContext(ctx, `PRAGMA user_version`).Scan(&version); err != nil {
		return fmt.Errorf("read schema version: %w", wrapErr(err))
	}
	if version > schemaVersion {
		return fmt.Errorf("database schema version %d is newer than this build's %d", version, schemaVersion)
	}
	for v := version; v < schemaVersion; v++ {
		for _, stmt := range migrations()[v] {
			if done, err := columnExists(ctx, tx, stmt); err != nil || done {
				if err != nil {
					return fmt.Errorf("schema step %d: %w", v+1, err)
				}
				continue
			}
			if _, err := tx.ExecContext(ctx, stmt); err != nil {
				return fmt.Errorf("schema step %d: %w", v+1, wrapErr(err))
			}
		}
	}
	if version != schemaVersion {
		// PRAGMA takes no parameters; schemaVersion is a constant.
		if _, err := tx.ExecContext(ctx, fmt.Sprintf(`PRAGMA user_version = %d`, schemaVersion)); err != nil {
			return fmt.Errorf("write schema version: %w", wrapErr(err))
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("commit schema: %w", wrapErr(err))
	}
	return nil
}

// addColumn matches a migration's ALTER TABLE … ADD COLUMN statement.
var addColumn = regexp.MustCompile(`^ALTER TABLE (\w+) ADD COLUMN (\w+)`)

// columnExists reports whether stmt adds a column the table already has.
func columnExists(ctx context.Context, tx *sql.Tx, stmt string) (bool, error) {
	m := addColumn.FindStringSubmatch(stmt)
	if m == nil {
		return false, nil
	}
	var n int
	if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM pragma_table_info(?) WHERE name = ?`, m[1], m[2]).Scan(&n); err != nil {
		return false, fmt.Errorf("read the columns of %s: %w", m[1], wrapErr(err))
	}
	return n > 0, nil
}
