package neo4j_test

import (
	"context"
	"errors"
	"log/slog"
	"net/url"
	"testing"
	"time"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/graph/neo4j"
	"github.com/kgmem/kgmem/internal/faultproxy"
	"github.com/kgmem/kgmem/internal/testenv"
)

// TestStalledServerKeepsTheDeadline puts a proxy between the store and
// Neo4j that accepts connections but never answers (a stalled Neo4j):
// reads and writes, whether they start during the stall or were in flight
// when it began, must end by their context's deadline with that deadline
// or ErrUnavailable, not run on past it (writes ran 48 s against a 40 s
// deadline).
func TestStalledServerKeepsTheDeadline(t *testing.T) {
	u, err := url.Parse(testenv.Neo4jURI(t))
	if err != nil {
		t.Fatal(err)
	}
	proxy, err := faultproxy.Start(u.Host)
	if err != nil {
		t.Fatal(err)
	}
	defer proxy.Close()
	scope := "t" + kgmem.NewID("")[1:]
	s, err := neo4j.Open(t.Context(), neo4j.Config{URI: "bolt://" + proxy.Addr(), Scope: scope})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	const ns = "stall/ns"
	defer func() {
		_ = proxy.Restore()
		_, _ = s.PurgeNamespace(context.Background(), ns)
	}()
	calls := []struct {
		name string
		call func(context.Context) error
	}{
		{"ping", s.Ping},
		{"read", func(ctx context.Context) error { _, err := s.ListEpisodes(ctx, ns, kgmem.Page{Limit: 10}); return err }},
		{"write", func(ctx context.Context) error { return s.PutSettings(ctx, ns, kgmem.NamespaceSettings{}) }},
	}
	for _, c := range calls {
		if err := c.call(t.Context()); err != nil {
			t.Fatalf("%s before the stall: %v", c.name, err)
		}
	}
	proxy.Hang()
	const deadline = 3 * time.Second
	for _, c := range calls {
		t.Run(c.name+" while stalled", func(t *testing.T) {
			ctx, cancel := context.WithTimeout(t.Context(), deadline)
			defer cancel()
			done := make(chan error, 1)
			go func() { done <- c.call(ctx) }()
			select {
			case err := <-done:
				if err == nil || !(errors.Is(err, context.DeadlineExceeded) || errors.Is(err, kgmem.ErrUnavailable)) {
					t.Errorf("got %v, want the deadline or ErrUnavailable", err)
				}
			case <-time.After(hangBound):
				t.Fatalf("the call ran %s past its %s deadline", hangBound, deadline)
			}
		})
	}
}

// releaseBound is a bound only an unlock that waits on a stalled server
// reaches: the release of a lock is given 5 s.
const releaseBound = 2 * time.Second

// TestStalledServerLockReleaseKeepsTheDeadline: a write that holds its
// namespace's lock when Neo4j stalls, and meets its deadline there, must
// not be held past it by the lock's release (the release goes on in the
// background and expires by itself if it cannot be written). Before, the
// unlock waited up to 5 s more on the stalled server, and the request ran
// past its write deadline.
func TestStalledServerLockReleaseKeepsTheDeadline(t *testing.T) {
	u, err := url.Parse(testenv.Neo4jURI(t))
	if err != nil {
		t.Fatal(err)
	}
	proxy, err := faultproxy.Start(u.Host)
	if err != nil {
		t.Fatal(err)
	}
	defer proxy.Close()
	s, err := neo4j.Open(t.Context(), neo4j.Config{URI: "bolt://" + proxy.Addr(), Scope: "t" + kgmem.NewID("")[1:]})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		_ = proxy.Restore()
		_ = s.Close()
	}()
	locks := s.NamespaceLocks(0, slog.New(slog.DiscardHandler))
	ctx, cancel := context.WithTimeout(t.Context(), time.Second)
	defer cancel()
	unlock, err := locks.Lock(ctx, "stall/lock")
	if err != nil {
		t.Fatal(err)
	}
	proxy.Hang()
	<-ctx.Done() // the write ran into its deadline on the stalled server
	released := make(chan struct{})
	go func() { unlock(); close(released) }()
	select {
	case <-released:
	case <-time.After(releaseBound):
		t.Fatalf("unlock held its caller %s past the caller's deadline", releaseBound)
	}
}
