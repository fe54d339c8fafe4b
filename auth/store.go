package auth

import (
	"context"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/internal/sqlitefile"
)

// Key is a stored API key: everything but the secret.
type Key struct {
	ID        string            `json:"id"`
	Name      string            `json:"name"`
	Right     Right             `json:"right"`
	Prefixes  []kgmem.Namespace `json:"prefixes"`
	CreatedAt time.Time         `json:"created_at"`
	RevokedAt *time.Time        `json:"revoked_at,omitempty"`
	digest    Digest
}

// Principal is the identity a request made with this key has.
func (k Key) Principal() Principal {
	return Principal{KeyID: k.ID, Name: k.Name, Right: k.Right, Prefixes: k.Prefixes}
}

// Store keeps API keys, hashed, in an SQLite file (the server's data
// directory holds it as keys.db). The server and the `server keys` subcommand
// may open it at the same time.
type Store struct {
	db *sql.DB
}

// OpenStore opens (creating if needed) the key store at path.
func OpenStore(ctx context.Context, path string) (*Store, error) {
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
	return &Store{db: db}, nil
}

// Close closes the store.
func (s *Store) Close() error { return s.db.Close() }

// CreateRequest describes a key to create.
type CreateRequest struct {
	// Name labels the key (who or what uses it).
	Name string
	// Right is Read or Write.
	Right Right
	// Prefixes are the namespace prefixes the key covers (at least one).
	Prefixes []kgmem.Namespace
}

// Create stores a new key and returns it with its plaintext, which is shown
// once and cannot be recovered.
func (s *Store) Create(ctx context.Context, req CreateRequest) (Key, string, error) {
	if strings.TrimSpace(req.Name) == "" {
		return Key{}, "", kgmem.Invalidf("name", "is required")
	}
	if req.Right != Read && req.Right != Write {
		return Key{}, "", kgmem.Invalidf("right", "is %q; use read or write", req.Right)
	}
	if len(req.Prefixes) == 0 {
		return Key{}, "", kgmem.Invalidf("prefixes", "needs at least one namespace prefix")
	}
	prefixes := make([]string, len(req.Prefixes))
	for i, p := range req.Prefixes {
		if _, err := kgmem.ParseNamespace(string(p)); err != nil {
			return Key{}, "", fmt.Errorf("prefix %d: %w", i+1, err)
		}
		prefixes[i] = string(p)
	}
	id, plain, err := newKey()
	if err != nil {
		return Key{}, "", err
	}
	k := Key{ID: id, Name: req.Name, Right: req.Right, Prefixes: req.Prefixes, CreatedAt: time.Now().UTC().Truncate(time.Second), digest: DigestOf(plain)}
	_, err = s.db.ExecContext(ctx, `INSERT INTO api_keys (id, name, digest, rights, prefixes, created_at) VALUES (?, ?, ?, ?, ?, ?)`,
		k.ID, k.Name, k.digest.Hex(), string(k.Right), strings.Join(prefixes, ","), k.CreatedAt.Format(time.RFC3339))
	if err != nil {
		return Key{}, "", fmt.Errorf("store key: %w", err)
	}
	return k, plain, nil
}

// List returns every key, revoked ones included, oldest first.
func (s *Store) List(ctx context.Context) ([]Key, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT id, name, digest, rights, prefixes, created_at, revoked_at FROM api_keys ORDER BY created_at, id`)
	if err != nil {
		return nil, fmt.Errorf("list keys: %w", err)
	}
	defer rows.Close()
	var out []Key
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

// Revoke marks a key revoked: it stops working at once (the server reads the
// store on every request). Revoking an unknown id is ErrNotFound; revoking a
// revoked key is a no-op.
func (s *Store) Revoke(ctx context.Context, id string) error {
	if !ValidID(id) {
		return kgmem.Invalidf("id", "is not a key id (12 hex digits)")
	}
	res, err := s.db.ExecContext(ctx, `UPDATE api_keys SET revoked_at = COALESCE(revoked_at, ?) WHERE id = ?`, time.Now().UTC().Format(time.RFC3339), id)
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

// Count returns how many keys were ever created, revoked ones included: a
// store that ever held a key keeps the server closed.
func (s *Store) Count(ctx context.Context) (int, error) {
	var n int
	if err := s.db.QueryRowContext(ctx, `SELECT count(*) FROM api_keys`).Scan(&n); err != nil {
		return 0, fmt.Errorf("count keys: %w", err)
	}
	return n, nil
}

// lookup returns the key with id.
func (s *Store) lookup(ctx context.Context, id string) (Key, error) {
	row := s.db.QueryRowContext(ctx, `SELECT id, name, digest, rights, prefixes, created_at, revoked_at FROM api_keys WHERE id = ?`, id)
	k, err := scanKey(row)
	if errors.Is(err, sql.ErrNoRows) {
		return Key{}, fmt.Errorf("key %s: %w", id, kgmem.ErrNotFound)
	}
	return k, err
}

type scanner interface{ Scan(dest ...any) error }

func scanKey(r scanner) (Key, error) {
	var k Key
	var digest, right, prefixes, created string
	var revoked sql.NullString
	if err := r.Scan(&k.ID, &k.Name, &digest, &right, &prefixes, &created, &revoked); err != nil {
		return Key{}, fmt.Errorf("read key: %w", err)
	}
	raw, err := hexDigest(digest)
	if err != nil {
		return Key{}, fmt.Errorf("key %s: %w", k.ID, err)
	}
	k.digest, k.Right = raw, Right(right)
	for _, p := range strings.Split(prefixes, ",") {
		k.Prefixes = append(k.Prefixes, kgmem.Namespace(p))
	}
	if k.CreatedAt, err = time.Parse(time.RFC3339, created); err != nil {
		return Key{}, fmt.Errorf("key %s created_at: %w", k.ID, err)
	}
	if revoked.Valid {
		t, err := time.Parse(time.RFC3339, revoked.String)
		if err != nil {
			return Key{}, fmt.Errorf("key %s revoked_at: %w", k.ID, err)
		}
		k.RevokedAt = &t
	}
	return k, nil
}

func hexDigest(s string) (Digest, error) {
	var d Digest
	raw, err := hex.DecodeString(s)
	if err != nil || len(raw) != len(d) {
		return d, fmt.Errorf("stored digest %q is not %d bytes of hex", s, len(d))
	}
	copy(d[:], raw)
	return d, nil
}
