package neo4j_test

import (
	"context"
	"errors"
	"net/url"
	"testing"
	"time"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/graph/neo4j"
	"github.com/kgmem/kgmem/internal/faultproxy"
	"github.com/kgmem/kgmem/internal/testenv"
)

// hangBound is a deadline only a call that hangs reaches: the store's retry
// budget is the default 30 s, which a refused connection must not wait out.
const hangBound = 10 * time.Second

// TestRefusedConnectionFailsFast puts a proxy that refuses every connection
// between the store and Neo4j (as a stopped Neo4j does): reads and writes
// fail with ErrUnavailable instead of retrying for the whole 30 s budget.
// When the proxy forwards again, the calls succeed, although every pooled
// connection died with the cut.
func TestRefusedConnectionFailsFast(t *testing.T) {
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
	const ns = "outage/ns"
	defer func() { _, _ = s.PurgeNamespace(context.Background(), ns) }()
	calls := []struct {
		name string
		call func(context.Context) error
	}{
		{"ping", s.Ping},
		{"read", func(ctx context.Context) error { _, err := s.ListEpisodes(ctx, ns, kgmem.Page{Limit: 10}); return err }},
		{"write", func(ctx context.Context) error {
			return s.PutSettings(ctx, ns, kgmem.NamespaceSettings{})
		}},
	}
	for _, c := range calls {
		if err := c.call(t.Context()); err != nil {
			t.Fatalf("%s before the cut: %v", c.name, err)
		}
	}

	proxy.Cut()
	for _, c := range calls {
		t.Run(c.name+" while refused", func(t *testing.T) {
			ctx, cancel := context.WithTimeout(t.Context(), hangBound)
			defer cancel()
			err := c.call(ctx)
			if !errors.Is(err, kgmem.ErrUnavailable) || ctx.Err() != nil {
				t.Errorf("got %v (context: %v), want ErrUnavailable before the %s bound", err, ctx.Err(), hangBound)
			}
		})
	}

	if err := proxy.Restore(); err != nil {
		t.Fatal(err)
	}
	for _, c := range calls {
		t.Run(c.name+" after the restore", func(t *testing.T) {
			ctx, cancel := context.WithTimeout(t.Context(), hangBound)
			defer cancel()
			if err := c.call(ctx); err != nil {
				t.Errorf("got %v, want success on the dead pool's replacement", err)
			}
		})
	}
}
