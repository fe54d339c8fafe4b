package sqlite_test

import (
	"path/filepath"
	"testing"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/graph/graphtest"
	"github.com/kgmem/kgmem/graph/sqlite"
)

// openTemp opens a store, with opts, in a fresh temporary file, closed at
// cleanup.
func openTemp(t testing.TB, opts ...sqlite.Option) (*sqlite.Store, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "graph.db")
	s, err := sqlite.Open(t.Context(), path, opts...)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s, path
}

// openPair opens two stores on one new file, as two processes would.
func openPair(t testing.TB) (*sqlite.Store, *sqlite.Store) {
	t.Helper()
	a, path := openTemp(t)
	b, err := sqlite.Open(t.Context(), path)
	if err != nil {
		t.Fatalf("Open again: %v", err)
	}
	t.Cleanup(func() { _ = b.Close() })
	return a, b
}

func TestConformance(t *testing.T) {
	graphtest.Run(t, func(t *testing.T) kgmem.GraphStore {
		s, _ := openTemp(t)
		return s
	})
}

// TestConformanceFTS5 runs the suite with every search ranked by FTS5, the
// path of namespaces too large for the in-memory BM25 index.
func TestConformanceFTS5(t *testing.T) {
	graphtest.Run(t, func(t *testing.T) kgmem.GraphStore {
		s, _ := openTemp(t)
		sqlite.SearchThroughFTS5(s)
		return s
	})
}
