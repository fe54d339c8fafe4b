package auth

import (
	"context"
	"fmt"
	"time"
)

// StoredKey is a key as a KeyRecords backend keeps it: the key and the
// SHA-256 digest of its secret (never the secret).
type StoredKey struct {
	Key
	Digest Digest
}

// KeyRecords persists API keys. Store validates requests and mints keys on
// top of it. Implementations: the SQLite file of one server's data
// directory (OpenStore), and graph/neo4j's key records, which every replica
// of a deployment on one Neo4j shares. Both pass the suite in auth/authtest.
type KeyRecords interface {
	// Insert stores a new key; an id already stored is an error.
	Insert(ctx context.Context, k StoredKey) error
	// Get returns the key with id, or an error wrapping kgmem.ErrNotFound.
	Get(ctx context.Context, id string) (StoredKey, error)
	// All returns every key, revoked ones included, oldest first (by
	// creation time, then id).
	All(ctx context.Context) ([]StoredKey, error)
	// Revoke marks the key revoked at `at`, keeping an earlier revocation
	// time; an unknown id is an error wrapping kgmem.ErrNotFound.
	Revoke(ctx context.Context, id string, at time.Time) error
	// Count returns how many keys were ever stored, revoked ones included.
	Count(ctx context.Context) (int, error)
	// Close releases the records (a shared backend's connection is its
	// owner's to close).
	Close() error
}

// ParseStored rebuilds a StoredKey from fields a backend keeps as text: the
// digest as hex, times as RFC 3339 (StoredKey.Text writes them).
func ParseStored(k Key, digestHex, created string, revoked *string) (StoredKey, error) {
	d, err := hexDigest(digestHex)
	if err != nil {
		return StoredKey{}, fmt.Errorf("key %s: %w", k.ID, err)
	}
	if k.CreatedAt, err = time.Parse(time.RFC3339, created); err != nil {
		return StoredKey{}, fmt.Errorf("key %s created_at: %w", k.ID, err)
	}
	if revoked != nil {
		t, err := time.Parse(time.RFC3339, *revoked)
		if err != nil {
			return StoredKey{}, fmt.Errorf("key %s revoked_at: %w", k.ID, err)
		}
		k.RevokedAt = &t
	}
	return StoredKey{Key: k, Digest: d}, nil
}

// Text returns the fields ParseStored reads back: the digest as hex, the
// creation time as RFC 3339.
func (k StoredKey) Text() (digestHex, created string) {
	return k.Digest.Hex(), k.CreatedAt.UTC().Format(time.RFC3339)
}
