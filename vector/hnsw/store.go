package hnsw

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"sync"
	"time"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/internal/groupcommit"
	"github.com/kgmem/kgmem/internal/walcheckpoint"
	_ "modernc.org/sqlite" // registers the "sqlite" database/sql driver
)

// store persists the vectors in one SQLite file: the source the in-memory
// shards are loaded from.
type store struct {
	db  *sql.DB
	dim int
	// checkpoints, with Options.BackgroundCheckpoints, copies the WAL into
	// the file after commits on a connection of its own (db's connections
	// then never checkpoint); nil otherwise.
	checkpoints *walcheckpoint.Checkpointer
	// writing lets one of this process's writes at a time begin: waiting
	// for it is a Go lock, where waiting on the file's write lock is
	// SQLite's busy handler, which sleeps 1, 2, 5, 10… ms between tries
	// (concurrent ingests into other namespaces write the file at once).
	writing sync.Mutex
	// upsertOne and deleteOne write one record; prepared once, since the
	// driver parses a statement anew at every prepare.
	upsertOne, deleteOne *sql.Stmt
	// upserts writes concurrent upserts in shared transactions.
	upserts *groupcommit.Queue[[]kgmem.VectorRecord]
}

// maxUpsertGroup bounds the upserts one transaction writes together.
const maxUpsertGroup = 64

const schema = `
CREATE TABLE IF NOT EXISTS meta (
	key   TEXT PRIMARY KEY,
	value TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS vectors (
	namespace  TEXT    NOT NULL,
	id         TEXT    NOT NULL,
	kind       TEXT    NOT NULL,
	created_at INTEGER NOT NULL,
	vector     BLOB    NOT NULL,
	PRIMARY KEY (namespace, id)
);
CREATE INDEX IF NOT EXISTS vectors_namespace_kind ON vectors (namespace, kind);
`

// openStore opens (creating if needed) the SQLite file at path and checks
// that it holds vectors of dimension dim.
func openStore(ctx context.Context, path string, dim int, backgroundCheckpoints bool) (*store, error) {
	dsn := "file:" + (&url.URL{Path: path}).EscapedPath() +
		"?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)&_txlock=immediate"
	writer := dsn
	if backgroundCheckpoints {
		writer += "&_pragma=" + walcheckpoint.WriterPragma
	}
	db, err := sql.Open("sqlite", writer)
	if err != nil {
		return nil, fmt.Errorf("open vector store %s: %w", path, err)
	}
	s := &store{db: db, dim: dim}
	s.upserts = groupcommit.New(maxUpsertGroup, s.commitUpserts)
	if backgroundCheckpoints {
		cp, err := sql.Open("sqlite", dsn)
		if err != nil {
			return nil, errors.Join(fmt.Errorf("open vector store %s: %w", path, err), db.Close())
		}
		cp.SetMaxOpenConns(1)
		s.checkpoints = walcheckpoint.Start(cp)
	}
	if err := s.init(ctx, path); err != nil {
		return nil, errors.Join(err, s.close())
	}
	return s, nil
}

func (s *store) init(ctx context.Context, path string) error {
	if _, err := s.db.ExecContext(ctx, schema); err != nil {
		return fmt.Errorf("create vector store schema in %s: %w", path, err)
	}
	_, err := s.db.ExecContext(ctx, `INSERT INTO meta (key, value) VALUES ('dimension', ?) ON CONFLICT (key) DO NOTHING`, strconv.Itoa(s.dim))
	if err != nil {
		return fmt.Errorf("record dimension in %s: %w", path, err)
	}
	var stored string
	if err := s.db.QueryRowContext(ctx, `SELECT value FROM meta WHERE key = 'dimension'`).Scan(&stored); err != nil {
		return fmt.Errorf("read dimension of %s: %w", path, err)
	}
	if stored != strconv.Itoa(s.dim) {
		return fmt.Errorf("vector index %s holds dimension %s, opened with dimension %d: %w", path, stored, s.dim, kgmem.ErrDimensionMismatch)
	}
	if s.upsertOne, err = s.db.PrepareContext(ctx, `INSERT INTO vectors (namespace, id, kind, created_at, vector) VALUES (?, ?, ?, ?, ?)
		ON CONFLICT (namespace, id) DO UPDATE SET kind = excluded.kind, created_at = excluded.created_at, vector = excluded.vector`); err != nil {
		return fmt.Errorf("prepare upsert in %s: %w", path, err)
	}
	if s.deleteOne, err = s.db.PrepareContext(ctx, `DELETE FROM vectors WHERE namespace = ? AND id = ?`); err != nil {
		return fmt.Errorf("prepare delete in %s: %w", path, err)
	}
	return nil
}

// close closes the statements and the file.
func (s *store) close() error {
	var errs []error
	for _, st := range []*sql.Stmt{s.upsertOne, s.deleteOne} {
		if st != nil {
			errs = append(errs, st.Close())
		}
	}
	if err := s.checkpoints.Close(); err != nil {
		errs = append(errs, fmt.Errorf("close vector store: %w", err))
	}
	if err := s.db.Close(); err != nil {
		errs = append(errs, fmt.Errorf("close vector store: %w", err))
	}
	return errors.Join(errs...)
}

// upsert writes records, all or none, in a transaction it may share with
// concurrent upserts (internal/groupcommit). It returns once they are
// committed, even when ctx ends meanwhile; records whose context ended
// before their turn are not written.
func (s *store) upsert(ctx context.Context, records []kgmem.VectorRecord) error {
	return s.upserts.Do(ctx, records)
}

// commitUpserts writes a group of upserts in one transaction. When it fails
// with more than one upsert in it, each is written again on its own, so
// that an error is the failing upsert's alone. Statements run without the
// callers' cancellation, which would roll back the others' records too.
func (s *store) commitUpserts(group []*groupcommit.Request[[]kgmem.VectorRecord]) {
	live := make([]*groupcommit.Request[[]kgmem.VectorRecord], 0, len(group))
	for _, r := range group {
		if r.Err = r.Ctx.Err(); r.Err == nil {
			live = append(live, r)
		}
	}
	write := func(reqs ...*groupcommit.Request[[]kgmem.VectorRecord]) error {
		ctx := context.Background()
		return s.tx(ctx, "upsert vectors", func(tx *sql.Tx) error {
			stmt := tx.StmtContext(ctx, s.upsertOne)
			for _, req := range reqs {
				for _, r := range req.Item {
					if _, err := stmt.ExecContext(ctx, string(r.Namespace), r.ID, string(r.Kind), r.CreatedAt.UnixNano(), encodeVector(r.Vector)); err != nil {
						return fmt.Errorf("record %s: %w", r.ID, err)
					}
				}
			}
			return nil
		})
	}
	if len(live) == 0 {
		return
	}
	err := write(live...)
	if err == nil || len(live) == 1 {
		for _, r := range live {
			r.Err = err
		}
		return
	}
	for _, r := range live {
		r.Err = write(r)
	}
}

// delete removes ids of ns in one transaction.
func (s *store) delete(ctx context.Context, ns kgmem.Namespace, ids []string) error {
	return s.tx(ctx, "delete vectors", func(tx *sql.Tx) error {
		stmt := tx.StmtContext(ctx, s.deleteOne)
		for _, id := range ids {
			if _, err := stmt.ExecContext(ctx, string(ns), id); err != nil {
				return fmt.Errorf("record %s: %w", id, err)
			}
		}
		return nil
	})
}

// deleteNamespace removes every record of ns.
func (s *store) deleteNamespace(ctx context.Context, ns kgmem.Namespace) error {
	s.writing.Lock()
	defer s.writing.Unlock()
	if _, err := s.db.ExecContext(ctx, `DELETE FROM vectors WHERE namespace = ?`, string(ns)); err != nil {
		return fmt.Errorf("delete namespace %s: %w", ns, err)
	}
	s.checkpoints.Kick()
	return nil
}

// count counts the records of ns, of kind k when k is set.
func (s *store) count(ctx context.Context, ns kgmem.Namespace, k kgmem.Kind) (int, error) {
	q, args := `SELECT count(*) FROM vectors WHERE namespace = ?`, []any{string(ns)}
	if k != "" {
		q, args = q+` AND kind = ?`, append(args, string(k))
	}
	var n int
	if err := s.db.QueryRowContext(ctx, q, args...).Scan(&n); err != nil {
		return 0, fmt.Errorf("count vectors of %s: %w", ns, err)
	}
	return n, nil
}

// load calls fn for every record of ns, stopping at fn's first error. The
// records' vectors share one buffer: fn must copy what it keeps.
func (s *store) load(ctx context.Context, ns kgmem.Namespace, fn func(r kgmem.VectorRecord) error) error {
	rows, err := s.db.QueryContext(ctx, `SELECT id, kind, created_at, vector FROM vectors WHERE namespace = ?`, string(ns))
	if err != nil {
		return fmt.Errorf("load vectors of %s: %w", ns, err)
	}
	defer rows.Close()
	buf := make([]float32, s.dim)
	for rows.Next() {
		var (
			r    = kgmem.VectorRecord{Namespace: ns}
			kind string
			at   int64
			blob []byte
		)
		if err := rows.Scan(&r.ID, &kind, &at, &blob); err != nil {
			return fmt.Errorf("load vectors of %s: %w", ns, err)
		}
		r.Kind, r.CreatedAt = kgmem.Kind(kind), time.Unix(0, at).UTC()
		if r.Vector, err = decodeVector(buf, blob); err != nil {
			return fmt.Errorf("load vector %s of %s: %w", r.ID, ns, err)
		}
		if err := fn(r); err != nil {
			return fmt.Errorf("load vector %s of %s: %w", r.ID, ns, err)
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("load vectors of %s: %w", ns, err)
	}
	return nil
}

// ListIDs pages through the records of ns in ascending id order, read from
// the SQLite store (the primary key (namespace, id) serves the range scan).
func (x *Index) ListIDs(ctx context.Context, ns kgmem.Namespace, page kgmem.Page) ([]kgmem.VectorKey, error) {
	limit, err := kgmem.CheckVectorPage(ns, page)
	if err != nil {
		return nil, fmt.Errorf("list vector ids: %w", err)
	}
	return x.store.listIDs(ctx, ns, page.After, limit)
}

// listIDs returns up to limit keys of ns with id > after, in id order.
func (s *store) listIDs(ctx context.Context, ns kgmem.Namespace, after string, limit int) ([]kgmem.VectorKey, error) {
	// "LIMIT +?": SQLite re-plans a statement whose bare LIMIT parameter is
	// bound anew.
	rows, err := s.db.QueryContext(ctx, `SELECT id, kind FROM vectors WHERE namespace = ? AND id > ? ORDER BY id LIMIT +?`, string(ns), after, limit)
	if err != nil {
		return nil, fmt.Errorf("list vector ids of %s: %w", ns, err)
	}
	defer rows.Close()
	out := []kgmem.VectorKey{}
	for rows.Next() {
		var k kgmem.VectorKey
		var kind string
		if err := rows.Scan(&k.ID, &kind); err != nil {
			return nil, fmt.Errorf("list vector ids of %s: %w", ns, err)
		}
		k.Kind = kgmem.Kind(kind)
		out = append(out, k)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list vector ids of %s: %w", ns, err)
	}
	return out, nil
}

// ping checks the database answers.
func (s *store) ping(ctx context.Context) error {
	if err := s.db.PingContext(ctx); err != nil {
		return fmt.Errorf("ping vector store: %w: %w", kgmem.ErrUnavailable, err)
	}
	return nil
}

// tx runs fn in a transaction, committing when it returns nil.
func (s *store) tx(ctx context.Context, what string, fn func(tx *sql.Tx) error) (err error) {
	s.writing.Lock()
	defer s.writing.Unlock()
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("%s: begin: %w", what, err)
	}
	defer func() {
		if err != nil {
			err = errors.Join(fmt.Errorf("%s: %w", what, err), rollback(tx))
		}
	}()
	if err := fn(tx); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	s.checkpoints.Kick()
	return nil
}

func rollback(tx *sql.Tx) error {
	if err := tx.Rollback(); err != nil && !errors.Is(err, sql.ErrTxDone) {
		return fmt.Errorf("rollback: %w", err)
	}
	return nil
}
