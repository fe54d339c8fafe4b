package auth_test

import (
	"context"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/auth"
	"github.com/kgmem/kgmem/internal/polltest"
)

// countingRecords counts the key counts asked of its records.
type countingRecords struct {
	auth.KeyRecords
	counts atomic.Int32
}

func (c *countingRecords) Count(ctx context.Context) (int, error) {
	c.counts.Add(1)
	return c.KeyRecords.Count(ctx)
}

// TestKeylessServerCountsKeysOnce: a server without keys answers whether
// any exists from what it counted last, for KeylessRecheck, instead of
// asking its key store on every request (a Neo4j query per request with
// replicas); a key created through its own key store closes it at once,
// one created elsewhere (another replica, `server keys create`) within
// KeylessRecheck.
func TestKeylessServerCountsKeysOnce(t *testing.T) {
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "keys.db")
	open := func() *countingRecords {
		rec, err := auth.OpenKeyRecords(ctx, path)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = rec.Close() })
		return &countingRecords{KeyRecords: rec}
	}
	enabled := func(a *auth.Authenticator) bool {
		t.Helper()
		on, err := a.Enabled(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return on
	}
	rec := open()
	st := auth.NewStore(rec)
	a, err := auth.NewAuthenticator("", st)
	if err != nil {
		t.Fatal(err)
	}
	for range 100 {
		if enabled(a) {
			t.Fatal("enabled without a key")
		}
	}
	if n := rec.counts.Load(); n != 1 {
		t.Errorf("100 requests counted the keys %d times; want once", n)
	}
	if _, _, err := st.Create(ctx, auth.CreateRequest{Name: "here", Right: auth.Read, Prefixes: []kgmem.Namespace{"a"}}); err != nil {
		t.Fatal(err)
	}
	if !enabled(a) {
		t.Error("a key created through the server's own key store left it open")
	}

	// Another replica, or `server keys create`: a key store of its own
	// over the same records.
	emptyPath := filepath.Join(t.TempDir(), "keys.db")
	openAt := func(path string) auth.KeyRecords {
		rec, err := auth.OpenKeyRecords(ctx, path)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = rec.Close() })
		return rec
	}
	b, err := auth.NewAuthenticator("", auth.NewStore(openAt(emptyPath)))
	if err != nil {
		t.Fatal(err)
	}
	if enabled(b) {
		t.Fatal("enabled without a key")
	}
	if _, _, err := auth.NewStore(openAt(emptyPath)).Create(ctx, auth.CreateRequest{Name: "there", Right: auth.Read, Prefixes: []kgmem.Namespace{"a"}}); err != nil {
		t.Fatal(err)
	}
	polltest.Until(t, 20*auth.KeylessRecheck, "a key created elsewhere closes the open server", func() bool { return enabled(b) })
}
