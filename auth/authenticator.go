package auth

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/kgmem/kgmem"
)

// ErrUnauthenticated marks a request whose credentials are missing, malformed,
// unknown or revoked: the API answers 401.
var ErrUnauthenticated = errors.New("unauthenticated")

// MinAdminKeyLen is the shortest admin key accepted.
const MinAdminKeyLen = 24

// Authenticator turns a presented key into a Principal: the admin key from the
// environment, or a key of the store.
type Authenticator struct {
	admin   *Digest
	store   *Store
	enabled atomic.Bool
	// start is when the authenticator was made; keylessUntil, measured
	// from it, is until when the store's last count of no key stands
	// (KeylessRecheck after it).
	start        time.Time
	keylessUntil atomic.Int64
}

// KeylessRecheck is how long a server that found no API key (and has no
// admin key) keeps that answer before counting the keys again: a key
// created through another server, or by `server keys create`, closes it
// within this long. A key created through this process's key store closes
// it at once.
const KeylessRecheck = time.Second

// NewAuthenticator checks adminKey (empty: no admin key) and combines it with
// store (nil: no stored keys).
func NewAuthenticator(adminKey string, store *Store) (*Authenticator, error) {
	a := &Authenticator{store: store, start: time.Now()}
	if adminKey != "" {
		if len(adminKey) < MinAdminKeyLen {
			return nil, fmt.Errorf("the admin key is %d characters; use at least %d random characters (e.g. openssl rand -hex 32)", len(adminKey), MinAdminKeyLen)
		}
		d := DigestOf(adminKey)
		a.admin = &d
		a.enabled.Store(true)
	}
	return a, nil
}

// Enabled reports whether authentication is enforced: an admin key is set or
// the store ever held a key. Once true it stays true. A store found empty
// is counted again after KeylessRecheck, not on every request; a key
// created through the same Store enables it at once.
func (a *Authenticator) Enabled(ctx context.Context) (bool, error) {
	if a.enabled.Load() {
		return true, nil
	}
	if a.store == nil {
		return false, nil
	}
	if a.store.created.Load() {
		a.enabled.Store(true)
		return true, nil
	}
	if time.Since(a.start) < time.Duration(a.keylessUntil.Load()) {
		return false, nil
	}
	n, err := a.store.Count(ctx)
	if err != nil {
		return false, fmt.Errorf("%w: key store: %w", kgmem.ErrUnavailable, err)
	}
	if n > 0 {
		a.enabled.Store(true)
		return true, nil
	}
	a.keylessUntil.Store(int64(time.Since(a.start) + KeylessRecheck))
	return false, nil
}

// Authenticate resolves a presented key. Any failure to recognise it is
// ErrUnauthenticated; a store failure is ErrUnavailable.
func (a *Authenticator) Authenticate(ctx context.Context, presented string) (Principal, error) {
	if presented == "" {
		return Principal{}, fmt.Errorf("%w: no API key", ErrUnauthenticated)
	}
	if a.admin != nil && a.admin.Equal(DigestOf(presented)) {
		return Principal{KeyID: AdminID, Name: "admin", Right: Admin}, nil
	}
	id, err := ParseKey(presented)
	if err != nil || a.store == nil {
		return Principal{}, fmt.Errorf("%w: not a valid API key", ErrUnauthenticated)
	}
	k, err := a.store.lookup(ctx, id)
	switch {
	case errors.Is(err, kgmem.ErrNotFound):
		return Principal{}, fmt.Errorf("%w: unknown API key", ErrUnauthenticated)
	case err != nil:
		return Principal{}, fmt.Errorf("%w: key store: %w", kgmem.ErrUnavailable, err)
	}
	if !k.Digest.Equal(DigestOf(presented)) {
		return Principal{}, fmt.Errorf("%w: unknown API key", ErrUnauthenticated)
	}
	if k.RevokedAt != nil {
		return Principal{}, fmt.Errorf("%w: API key %s is revoked", ErrUnauthenticated, k.ID)
	}
	return k.Key.Principal(), nil
}
