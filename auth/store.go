package auth

import (
	"context"
	"encoding/hex"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"github.com/kgmem/kgmem"
)

// Key is a stored API key: everything but the secret.
type Key struct {
	ID        string            `json:"id"`
	Name      string            `json:"name"`
	Right     Right             `json:"right"`
	Prefixes  []kgmem.Namespace `json:"prefixes"`
	CreatedAt time.Time         `json:"created_at"`
	RevokedAt *time.Time        `json:"revoked_at,omitempty"`
}

// Principal is the identity a request made with this key has.
func (k Key) Principal() Principal {
	return Principal{KeyID: k.ID, Name: k.Name, Right: k.Right, Prefixes: k.Prefixes}
}

// Store creates, lists and revokes API keys over KeyRecords, which keep
// them hashed.
type Store struct {
	rec KeyRecords
	// created is set once a key was created through this Store: the
	// Authenticators over it enforce keys at once.
	created atomic.Bool
}

// NewStore returns a Store over rec.
func NewStore(rec KeyRecords) *Store { return &Store{rec: rec} }

// Close closes the records.
func (s *Store) Close() error { return s.rec.Close() }

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
	switch {
	case strings.TrimSpace(req.Name) == "":
		return Key{}, "", kgmem.Invalidf("name", "is required")
	case req.Right != Read && req.Right != Write:
		return Key{}, "", kgmem.Invalidf("right", "is %q; use read or write", req.Right)
	case len(req.Prefixes) == 0:
		return Key{}, "", kgmem.Invalidf("prefixes", "needs at least one namespace prefix")
	}
	for i, p := range req.Prefixes {
		if _, err := kgmem.ParseNamespace(string(p)); err != nil {
			return Key{}, "", fmt.Errorf("prefix %d: %w", i+1, err)
		}
	}
	id, plain, err := newKey()
	if err != nil {
		return Key{}, "", err
	}
	k := Key{ID: id, Name: req.Name, Right: req.Right, Prefixes: req.Prefixes, CreatedAt: time.Now().UTC().Truncate(time.Second)}
	if err := s.rec.Insert(ctx, StoredKey{Key: k, Digest: DigestOf(plain)}); err != nil {
		return Key{}, "", err
	}
	s.created.Store(true)
	return k, plain, nil
}

// List returns every key, revoked ones included, oldest first.
func (s *Store) List(ctx context.Context) ([]Key, error) {
	all, err := s.rec.All(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]Key, len(all))
	for i, k := range all {
		out[i] = k.Key
	}
	return out, nil
}

// Revoke marks a key revoked: it stops working on the next request of
// every server reading these records (the server reads them on every
// request). Revoking an unknown id is ErrNotFound; revoking a revoked key
// is a no-op.
func (s *Store) Revoke(ctx context.Context, id string) error {
	if !ValidID(id) {
		return kgmem.Invalidf("id", "is not a key id (12 hex digits)")
	}
	return s.rec.Revoke(ctx, id, time.Now().UTC().Truncate(time.Second))
}

// Count returns how many keys were ever created, revoked ones included: a
// store that ever held a key keeps the server closed.
func (s *Store) Count(ctx context.Context) (int, error) { return s.rec.Count(ctx) }

// lookup returns the key with id.
func (s *Store) lookup(ctx context.Context, id string) (StoredKey, error) { return s.rec.Get(ctx, id) }

func hexDigest(s string) (Digest, error) {
	var d Digest
	raw, err := hex.DecodeString(s)
	if err != nil || len(raw) != len(d) {
		return d, fmt.Errorf("stored digest %q is not %d bytes of hex", s, len(d))
	}
	copy(d[:], raw)
	return d, nil
}
