package auth

import (
	"fmt"
	"strings"

	"github.com/kgmem/kgmem"
)

// Right is what a key may do in the namespaces it covers.
type Right string

// Rights, from least to most.
const (
	// Read allows lists, gets, search and reading settings.
	Read Right = "read"
	// Write allows everything Read does plus ingest, facts, feedback, pins,
	// restore, settings and sweeps.
	Write Right = "write"
	// Admin allows everything: purges, metrics and key management. Only the
	// admin key holds it.
	Admin Right = "admin"
)

func (r Right) level() int {
	switch r {
	case Read:
		return 1
	case Write:
		return 2
	case Admin:
		return 3
	}
	return 0
}

// ParseRight accepts "read" and "write" (a stored key is never admin).
func ParseRight(s string) (Right, error) {
	switch r := Right(s); r {
	case Read, Write:
		return r, nil
	}
	return "", kgmem.Invalidf("right", "is %q; use read or write", s)
}

// Includes reports whether holding r grants want.
func (r Right) Includes(want Right) bool { return r.level() >= want.level() && want.level() > 0 }

// Covers reports whether the namespace prefix covers ns, segment by segment:
// "acme" covers "acme" and "acme/users", not "acmex".
func Covers(prefix, ns kgmem.Namespace) bool { return prefix.Covers(ns) }

// Principal is who a request is: a stored key or the admin.
type Principal struct {
	// KeyID names the key ("admin" for the admin key).
	KeyID string
	// Name is the key's label.
	Name string
	// Right is the key's right over its prefixes.
	Right Right
	// Prefixes are the namespace prefixes the key covers (none for the admin,
	// who covers every namespace).
	Prefixes []kgmem.Namespace
}

// AdminID is the KeyID of the admin principal.
const AdminID = "admin"

// IsAdmin reports whether p is the admin key.
func (p Principal) IsAdmin() bool { return p.Right == Admin }

// Allows reports whether p may exercise want in ns.
func (p Principal) Allows(ns kgmem.Namespace, want Right) bool {
	if !p.Right.Includes(want) {
		return false
	}
	if p.IsAdmin() {
		return true
	}
	for _, prefix := range p.Prefixes {
		if Covers(prefix, ns) {
			return true
		}
	}
	return false
}

// ParsePrefixes validates a comma-separated list of namespace prefixes.
func ParsePrefixes(s string) ([]kgmem.Namespace, error) {
	var out []kgmem.Namespace
	for i, raw := range strings.Split(s, ",") {
		ns, err := kgmem.ParseNamespace(strings.TrimSpace(raw))
		if err != nil {
			return nil, fmt.Errorf("namespace prefix %d: %w", i+1, err)
		}
		out = append(out, ns)
	}
	return out, nil
}
