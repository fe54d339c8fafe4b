package auth

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/internal/sqlitefile"
)

// sqliteKeys keeps keys in an SQLite file (the server's data directory
// holds it as keys.db). The server and the `server keys` subcommand may open
// it at the same time.
type sqliteKeys struct {
	db *sql.DB
	// count and get are prepared once: an open server asks count at every
	// request (Authenticator.Enabled) and a keyed one get, and preparing
	// them each time cost more than running them.
	count, get *sql.Stmt
}

// OpenStore opens (creating if needed) the key store in the SQLite file at path.
func OpenStore(ctx context.Context, path string) (*Store, error) {
	rec, err := OpenKeyRecords(ctx, path)
	if err != nil {
		return nil, err
	}
	return NewStore(rec), nil
}

// OpenKeyRecords opens (creating if needed) the key records in the SQLite
// file at path.
func OpenKeyRecords(ctx context.Context, path string) (KeyRecords, error) {
	const schema = `CREATE TABLE IF NOT EXISTS api_keys (
		id TEXT PRIMARY KEY,
		name TEXT NOT NULL,
		digest TEXT NOT NULL,
		rights TEXT NOT NULL,
		prefixes TEXT NOT NULL,
		created_at TEXT NOT NULL,
		revoked_at TEXT
	)`
	db, err := sqlitefile.Open(ctx, path, schema)
	if err != nil {
		return nil, fmt.Errorf("open key store: %w", err)
	}
	s := &sqliteKeys{db: db}
	if s.count, err = db.PrepareContext(ctx, `SELECT count(*) FROM api_keys`); err == nil {
		s.get, err = db.PrepareContext(ctx, `SELECT `+keyCols+` FROM api_keys WHERE id = ?`)
	}
	if err != nil {
		return nil, errors.Join(fmt.Errorf("open key store: prepare: %w", err), s.Close())
	}
	return s, nil
}

func (s *sqliteKeys) Close() error {
	var errs []error
	for _, st := range []*sql.Stmt{s.count, s.get} {
		if st != nil {
			errs = append(errs, st.Close())
		}
	}
	return errors.Join(append(errs, s.db.Close())...)
}

func (s *sqliteKeys) Insert(ctx context.Context, k StoredKey) error {
	digest, created := k.Text()
	_, err := s.db.ExecContext(ctx, `INSERT INTO api_keys (id, name, digest, rights, prefixes, created_at) VALUES (?, ?, ?, ?, ?, ?)`,
		k.ID, k.Name, digest, string(k.Right), joinPrefixes(k.Prefixes), created)
	if err != nil {
		return fmt.Errorf("store key: %w", err)
	}
	return nil
}

const keyCols = `id, name, digest, rights, prefixes, created_at, revoked_at`

func (s *sqliteKeys) All(ctx context.Context) ([]StoredKey, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT `+keyCols+` FROM api_keys ORDER BY created_at, id`)
	if err != nil {
		return nil, fmt.Errorf("list keys: %w", err)
	}
	defer rows.Close()
	var out []StoredKey
	for rows.Next() {
		k, err := scanKey(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, k)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list keys: %w", err)
	}
	return out, nil
}

func (s *sqliteKeys) Revoke(ctx context.Context, id string, at time.Time) error {
	res, err := s.db.ExecContext(ctx, `UPDATE api_keys SET revoked_at = COALESCE(revoked_at, ?) WHERE id = ?`, at.UTC().Format(time.RFC3339), id)
	if err != nil {
		return fmt.Errorf("revoke key %s: %w", id, err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return fmt.Errorf("revoke key %s: %w", id, err)
	} else if n == 0 {
		return fmt.Errorf("key %s: %w", id, kgmem.ErrNotFound)
	}
	return nil
}

func (s *sqliteKeys) Count(ctx context.Context) (int, error) {
	var n int
	if err := s.count.QueryRowContext(ctx).Scan(&n); err != nil {
		return 0, fmt.Errorf("count keys: %w", err)
	}
	return n, nil
}

func (s *sqliteKeys) Get(ctx context.Context, id string) (StoredKey, error) {
	k, err := scanKey(s.get.QueryRowContext(ctx, id))
	if errors.Is(err, sql.ErrNoRows) {
		return StoredKey{}, fmt.Errorf("key %s: %w", id, kgmem.ErrNotFound)
	}
	return k, err
}

type scanner interface{ Scan(dest ...any) error }

func scanKey(r scanner) (StoredKey, error) {
	var k Key
	var digest, right, prefixes, created string
	var revoked sql.NullString
	if err := r.Scan(&k.ID, &k.Name, &digest, &right, &prefixes, &created, &revoked); err != nil {
		return StoredKey{}, fmt.Errorf("read key: %w", err)
	}
	k.Right, k.Prefixes = Right(right), SplitPrefixes(prefixes)
	var rev *string
	if revoked.Valid {
		rev = &revoked.String
	}
	return ParseStored(k, digest, created, rev)
}

// joinPrefixes is how the SQLite records keep a key's prefixes: comma-separated.
func joinPrefixes(ps []kgmem.Namespace) string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = string(p)
	}
	return strings.Join(out, ",")
}

// SplitPrefixes reads prefixes kept comma-separated (no namespace holds a comma).
func SplitPrefixes(s string) []kgmem.Namespace {
	var out []kgmem.Namespace
	for p := range strings.SplitSeq(s, ",") {
		out = append(out, kgmem.Namespace(p))
	}
	return out
}
