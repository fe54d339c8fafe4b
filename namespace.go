package kgmem

import (
	"errors"
	"strings"
)

// Namespace scopes every record, read and write: a slash-separated path such as
// "acme/users/u42". Nothing is ever returned across namespaces, and a namespace
// does not include its children ("acme" and "acme/users" are unrelated scopes).
type Namespace string

// Namespace limits.
const (
	MaxNamespaceDepth   = 8
	MaxNamespaceSegment = 64
)

// ParseNamespace validates s: 1–8 segments separated by "/", each 1–64 characters
// of [A-Za-z0-9_.-], never "." or "..".
func ParseNamespace(s string) (Namespace, error) {
	if s == "" {
		return "", Invalidf("namespace", "is required")
	}
	segments := strings.Split(s, "/")
	if len(segments) > MaxNamespaceDepth {
		return "", Invalidf("namespace", "has %d segments, at most %d allowed", len(segments), MaxNamespaceDepth)
	}
	for i, seg := range segments {
		switch {
		case seg == "":
			return "", Invalidf("namespace", "segment %d is empty (no leading, trailing or double slashes)", i+1)
		case seg == "." || seg == "..":
			return "", Invalidf("namespace", "segment %d must not be %q", i+1, seg)
		case len(seg) > MaxNamespaceSegment:
			return "", Invalidf("namespace", "segment %d is %d characters, at most %d allowed", i+1, len(seg), MaxNamespaceSegment)
		}
		for _, r := range seg {
			if !isNamespaceRune(r) {
				return "", Invalidf("namespace", "segment %d contains %q; only letters, digits, '_', '.' and '-' are allowed", i+1, r)
			}
		}
	}
	return Namespace(s), nil
}

func isNamespaceRune(r rune) bool {
	return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '.' || r == '-'
}

// String returns the namespace path.
func (n Namespace) String() string { return string(n) }

// Covers reports whether ns is n or below it, segment by segment: "acme"
// covers "acme" and "acme/users", not "acmex". The empty namespace covers
// nothing.
func (n Namespace) Covers(ns Namespace) bool {
	p, s := string(n), string(ns)
	if p == "" {
		return false
	}
	return s == p || strings.HasPrefix(s, p+"/")
}

// ParseNamespaceField is ParseNamespace for a request field named other
// than "namespace" ("namespace_prefix", "prefix"): its errors name field.
func ParseNamespaceField(field, s string) (Namespace, error) {
	ns, err := ParseNamespace(s)
	var fe *FieldError
	if errors.As(err, &fe) {
		return "", &FieldError{Field: field, Reason: fe.Reason, Kind: fe.Kind}
	}
	return ns, err
}
