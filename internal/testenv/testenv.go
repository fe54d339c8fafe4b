// Package testenv locates the real Neo4j and Milvus servers that integration
// tests run against. scripts/test.sh starts both and exports their addresses.
// Outside CI a missing server skips the test; in CI (CI set) it fails it, so a
// broken service start can never pass as green.
package testenv

import (
	"os"
	"testing"
)

// Environment variables set by scripts/test.sh.
const (
	Neo4jURIVar   = "KGMEM_TEST_NEO4J_URI"
	MilvusAddrVar = "KGMEM_TEST_MILVUS_ADDR"
	ciVar         = "CI"
)

// Neo4jURI returns the Bolt URI of the test Neo4j (auth disabled).
func Neo4jURI(t testing.TB) string { return require(t, Neo4jURIVar, "Neo4j") }

// MilvusAddr returns the host:port of the test Milvus.
func MilvusAddr(t testing.TB) string { return require(t, MilvusAddrVar, "Milvus") }

// Neo4jURIIfAvailable returns the test Neo4j's URI, or "" when none is
// configured outside CI (in CI a missing server fails the test). For suites
// that run on every available backend.
func Neo4jURIIfAvailable(t testing.TB) string { return optional(t, Neo4jURIVar, "Neo4j") }

// MilvusAddrIfAvailable is Neo4jURIIfAvailable for Milvus.
func MilvusAddrIfAvailable(t testing.TB) string { return optional(t, MilvusAddrVar, "Milvus") }

func optional(t testing.TB, name, what string) string {
	t.Helper()
	v := os.Getenv(name)
	if v == "" && os.Getenv(ciVar) != "" {
		t.Fatal(what + " is required in CI: " + name + " is unset; run the suite with scripts/test.sh")
	}
	return v
}

func require(t testing.TB, name, what string) string {
	t.Helper()
	if v := os.Getenv(name); v != "" {
		return v
	}
	msg := what + " integration test needs " + name + "; run the suite with scripts/test.sh, which starts " + what
	if os.Getenv(ciVar) != "" {
		t.Fatal(msg)
	}
	t.Skip(msg)
	return ""
}
