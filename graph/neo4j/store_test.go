package neo4j_test

import (
	"context"
	"errors"
	"testing"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/auth"
	"github.com/kgmem/kgmem/auth/authtest"
	"github.com/kgmem/kgmem/graph/graphtest"
	"github.com/kgmem/kgmem/graph/neo4j"
	"github.com/kgmem/kgmem/internal/testenv"
	"github.com/kgmem/kgmem/jobs/jobstest"
)

// openStore opens a store on the test server in a fresh scope, so that every
// test sees an empty store although they share one database, and purges
// what the test wrote when it ends.
func openStore(t testing.TB) *neo4j.Store {
	t.Helper()
	return openScope(t, "t"+kgmem.NewID("")[1:])
}

// openScope opens a store on the test server in the given scope and purges
// what the test wrote when it ends.
func openScope(t testing.TB, scope string) *neo4j.Store {
	t.Helper()
	uri := testenv.Neo4jURI(t)
	s, err := neo4j.Open(t.Context(), neo4j.Config{URI: uri, Scope: scope})
	if err != nil {
		t.Fatalf("Open(%s): %v", uri, err)
	}
	t.Cleanup(func() {
		ctx := context.Background()
		nss, err := s.Namespaces(ctx)
		if err != nil {
			t.Errorf("cleanup: %v", err)
		}
		for _, ns := range nss {
			if _, err := s.PurgeNamespace(ctx, ns); err != nil {
				t.Errorf("cleanup: purge %s: %v", ns, err)
			}
		}
		if err := s.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return s
}

func TestConformance(t *testing.T) {
	graphtest.Run(t, func(t *testing.T) kgmem.GraphStore { return openStore(t) })
}

func TestOpenUnreachable(t *testing.T) {
	// Nothing listens on port 1 of the loopback interface.
	_, err := neo4j.Open(t.Context(), neo4j.Config{URI: "bolt://127.0.0.1:1"})
	if !errors.Is(err, kgmem.ErrUnavailable) {
		t.Fatalf("Open of a closed port: got %v, want an error wrapping ErrUnavailable", err)
	}
}

func TestOpenBadConfig(t *testing.T) {
	tests := []struct {
		name string
		cfg  neo4j.Config
	}{
		{"ScopeWithSlash", neo4j.Config{Scope: "a/b"}},
		{"ScopeWithColon", neo4j.Config{Scope: "a:b"}},
		{"NegativeFanOut", neo4j.Config{MaxTraversalFanOut: -1}},
		{"NegativeDepth", neo4j.Config{MaxTraversalDepth: -1}},
		{"BadScheme", neo4j.Config{URI: "http://127.0.0.1:7474"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := neo4j.Open(t.Context(), tc.cfg)
			if !errors.Is(err, kgmem.ErrInvalid) {
				t.Fatalf("Open(%+v): got %v, want an error wrapping ErrInvalid", tc.cfg, err)
			}
		})
	}
}

func errorsIsInvalid(err error) bool { return errors.Is(err, kgmem.ErrInvalid) }

func TestClosedStoreUnavailable(t *testing.T) {
	s, err := neo4j.Open(t.Context(), neo4j.Config{URI: testenv.Neo4jURI(t), Scope: "closed"})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Ping(t.Context()); err != nil {
		t.Fatalf("Ping: %v", err)
	}
	if err := s.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if err := s.Ping(t.Context()); !errors.Is(err, kgmem.ErrUnavailable) {
		t.Fatalf("Ping after Close: got %v, want an error wrapping ErrUnavailable", err)
	}
}

// TestKeyRecords runs the key records suite on Neo4j: two stores on one
// scope are two replicas sharing the database.
func TestKeyRecords(t *testing.T) {
	authtest.Run(t, func(t *testing.T) (auth.KeyRecords, auth.KeyRecords) {
		scope := "k" + kgmem.NewID("")[1:]
		a, b := openScope(t, scope), openScope(t, scope)
		t.Cleanup(func() { _ = a.DeleteKeys(context.Background()) })
		return a.Keys(), b.Keys()
	})
}

func TestJobRecords(t *testing.T) {
	jobstest.Run(t, func(t *testing.T) (kgmem.JobRecords, kgmem.JobRecords) {
		scope := "j" + kgmem.NewID("")[1:]
		a, b := openScope(t, scope), openScope(t, scope)
		t.Cleanup(func() { _ = a.DeleteJobs(context.Background()) })
		return a.Jobs(), b.Jobs()
	})
}
