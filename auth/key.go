package auth

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base32"
	"encoding/hex"
	"fmt"
	"strings"

	"github.com/kgmem/kgmem"
)

// KeyPrefix starts every kgmem API key, so secret scanners and people can
// recognise one.
const KeyPrefix = "kgm_"

const (
	idBytes     = 6  // 12 hex digits
	secretBytes = 32 // 256 bits
)

var secretEncoding = base32.StdEncoding.WithPadding(base32.NoPadding)

// secretLen is the length of the encoded secret.
var secretLen = secretEncoding.EncodedLen(secretBytes)

// Digest is the SHA-256 of a whole key: what the store keeps instead of the key.
type Digest [sha256.Size]byte

// DigestOf hashes a key (or the admin key).
func DigestOf(key string) Digest { return sha256.Sum256([]byte(key)) }

// Equal compares two digests in constant time.
func (d Digest) Equal(o Digest) bool { return subtle.ConstantTimeCompare(d[:], o[:]) == 1 }

// Hex renders the digest for storage.
func (d Digest) Hex() string { return hex.EncodeToString(d[:]) }

// newKey returns a fresh key and its id.
func newKey() (id, key string, err error) {
	raw := make([]byte, idBytes+secretBytes)
	if _, err := rand.Read(raw); err != nil {
		return "", "", fmt.Errorf("generate key: %w", err)
	}
	id = hex.EncodeToString(raw[:idBytes])
	return id, KeyPrefix + id + "_" + strings.ToLower(secretEncoding.EncodeToString(raw[idBytes:])), nil
}

// ParseKey checks that s has the shape of a kgmem key and returns its id. It
// says nothing about whether the key exists; the error never echoes s.
func ParseKey(s string) (id string, err error) {
	rest, ok := strings.CutPrefix(s, KeyPrefix)
	if !ok {
		return "", kgmem.Invalidf("key", "does not start with %q", KeyPrefix)
	}
	id, secret, ok := strings.Cut(rest, "_")
	if !ok {
		return "", kgmem.Invalidf("key", "has no secret part")
	}
	if len(id) != 2*idBytes || !isLowerHex(id) {
		return "", kgmem.Invalidf("key", "id must be %d lowercase hex digits", 2*idBytes)
	}
	if len(secret) != secretLen {
		return "", kgmem.Invalidf("key", "secret must be %d characters, got %d", secretLen, len(secret))
	}
	if _, err := secretEncoding.DecodeString(strings.ToUpper(secret)); err != nil || strings.ToLower(secret) != secret {
		return "", kgmem.Invalidf("key", "secret is not lowercase base32")
	}
	return id, nil
}

// ValidID reports whether id has the shape of a key id.
func ValidID(id string) bool { return len(id) == 2*idBytes && isLowerHex(id) }

func isLowerHex(s string) bool {
	for _, r := range s {
		if !(r >= '0' && r <= '9' || r >= 'a' && r <= 'f') {
			return false
		}
	}
	return true
}
