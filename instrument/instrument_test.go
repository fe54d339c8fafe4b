package instrument_test

import (
	"context"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/graph/neo4j"
	"github.com/kgmem/kgmem/graph/sqlite"
	"github.com/kgmem/kgmem/instrument"
	"github.com/kgmem/kgmem/internal/faultproxy"
	"github.com/kgmem/kgmem/internal/testenv"
	"github.com/kgmem/kgmem/vector/hnsw"
	"github.com/prometheus/client_golang/prometheus"
)

func TestClientOutcomesAreNotBackendErrors(t *testing.T) {
	ctx := context.Background()
	reg := prometheus.NewRegistry()
	e := instrument.NewErrors(reg)
	raw, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "g.db"))
	if err != nil {
		t.Fatal(err)
	}
	g := instrument.Graph(raw, "sqlite", e)
	if _, err := g.Fact(ctx, "ns", "fact_missing"); err == nil {
		t.Fatal("a missing fact was found")
	}
	if err := g.Apply(ctx, kgmem.ChangeSet{Namespace: "bad//ns"}); err == nil {
		t.Fatal("an invalid change set was applied")
	}
	if fams, _ := reg.Gather(); len(fams) != 0 {
		t.Fatalf("not found and invalid input counted as backend errors: %v", fams)
	}
	// A closed store is a backend failure.
	_ = raw.Close()
	if _, err := g.ListEpisodes(ctx, "ns", kgmem.Page{Limit: 1}); err == nil {
		t.Fatal("a closed store answered")
	}
	kind := instrument.Kind(func() error { _, err := raw.ListEpisodes(ctx, "ns", kgmem.Page{Limit: 1}); return err }())
	if got := count(t, reg, "sqlite", "ListEpisodes", kind); got != 1 {
		t.Fatalf("closed store: counted %v, want 1 under kind %q", got, kind)
	}

	v, err := hnsw.Open(ctx, filepath.Join(t.TempDir(), "v.db"), 8, hnsw.Options{})
	if err != nil {
		t.Fatal(err)
	}
	vi := instrument.Vectors(v, "hnsw", e)
	if _, err := vi.Search(ctx, kgmem.VectorQuery{Namespace: "ns", Vector: []float32{1, 2}, K: 1}); err == nil {
		t.Fatal("a wrong-dimension search succeeded")
	}
	if vi.Dimension() != 8 {
		t.Fatalf("Dimension %d", vi.Dimension())
	}
	_ = vi.Close()
}

// TestNeo4jOutageIsCounted cuts the connection to the real Neo4j and checks
// that the failures land under kind "unavailable".
func TestNeo4jOutageIsCounted(t *testing.T) {
	u, err := url.Parse(testenv.Neo4jURI(t))
	if err != nil {
		t.Fatal(err)
	}
	proxy, err := faultproxy.Start(u.Host)
	if err != nil {
		t.Fatal(err)
	}
	defer proxy.Close()
	ctx := context.Background()
	scope := "instr" + strings.ReplaceAll(kgmem.NewID("t"), "_", "")
	raw, err := neo4j.Open(ctx, neo4j.Config{URI: "bolt://" + proxy.Addr(), Scope: scope, MaxRetryTime: time.Second, ConnectTimeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	reg := prometheus.NewRegistry()
	g := instrument.Graph(raw, "neo4j", instrument.NewErrors(reg))
	if err := g.Ping(ctx); err != nil {
		t.Fatal(err)
	}
	proxy.Cut()
	if err := g.Ping(ctx); err == nil {
		t.Fatal("Ping through a cut connection succeeded")
	}
	if got := count(t, reg, "neo4j", "Ping", "unavailable"); got != 1 {
		t.Fatalf("unavailable Pings counted %v, want 1", got)
	}
}

// count reads one series of kgmem_backend_errors_total (0 when absent).
func count(t *testing.T, reg *prometheus.Registry, backend, op, kind string) float64 {
	t.Helper()
	fams, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range fams {
		for _, m := range f.GetMetric() {
			labels := map[string]string{}
			for _, l := range m.GetLabel() {
				labels[l.GetName()] = l.GetValue()
			}
			if labels["backend"] == backend && labels["op"] == op && labels["kind"] == kind {
				return m.GetCounter().GetValue()
			}
		}
	}
	return 0
}
