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
	"github.com/kgmem/kgmem/outbox"
	"github.com/kgmem/kgmem/vector/hnsw"
	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
)

func TestClientOutcomesAreNotBackendErrors(t *testing.T) {
	ctx := context.Background()
	reg := prometheus.NewRegistry()
	e := instrument.New(reg)
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
	if n := failures(t, reg); n != 0 {
		t.Fatalf("not found and invalid input counted as %v backend errors", n)
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
	g := instrument.Graph(raw, "neo4j", instrument.New(reg))
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

// TestCallsAreTimed: every call, answered or failed, is counted with the
// time it took under its backend and operation.
func TestCallsAreTimed(t *testing.T) {
	ctx := context.Background()
	reg := prometheus.NewRegistry()
	raw, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "g.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	g := instrument.Graph(raw, "sqlite", instrument.New(reg))
	for range 2 {
		if _, err := g.ListEpisodes(ctx, "ns", kgmem.Page{Limit: 1}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := g.Fact(ctx, "ns", "fact_missing"); err == nil {
		t.Fatal("a missing fact was found")
	}
	for _, c := range []struct {
		op    string
		calls uint64
	}{{"ListEpisodes", 2}, {"Fact", 1}, {"Apply", 0}} {
		h := callHistogram(t, reg, "sqlite", c.op)
		if h.GetSampleCount() != c.calls || (c.calls > 0) != (h.GetSampleSum() > 0) {
			t.Errorf("%s: %d calls taking %vs, want %d calls", c.op, h.GetSampleCount(), h.GetSampleSum(), c.calls)
		}
	}
}

// callHistogram reads the call durations of backend's op (empty when
// absent).
func callHistogram(t *testing.T, reg *prometheus.Registry, backend, op string) *dto.Histogram {
	t.Helper()
	for _, m := range series(t, reg, instrument.CallDuration) {
		labels := map[string]string{}
		for _, l := range m.GetLabel() {
			labels[l.GetName()] = l.GetValue()
		}
		if labels["backend"] == backend && labels["op"] == op {
			return m.GetHistogram()
		}
	}
	return &dto.Histogram{}
}

// series are the series of the family name on reg.
func series(t *testing.T, reg *prometheus.Registry, name string) []*dto.Metric {
	t.Helper()
	fams, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range fams {
		if f.GetName() == name {
			return f.GetMetric()
		}
	}
	return nil
}

// failures is the sum of kgmem_backend_errors_total.
func failures(t *testing.T, reg *prometheus.Registry) float64 {
	var n float64
	for _, m := range series(t, reg, "kgmem_backend_errors_total") {
		n += m.GetCounter().GetValue()
	}
	return n
}

// count reads one series of kgmem_backend_errors_total (0 when absent).
func count(t *testing.T, reg *prometheus.Registry, backend, op, kind string) float64 {
	t.Helper()
	for _, m := range series(t, reg, "kgmem_backend_errors_total") {
		labels := map[string]string{}
		for _, l := range m.GetLabel() {
			labels[l.GetName()] = l.GetValue()
		}
		if labels["backend"] == backend && labels["op"] == op && labels["kind"] == kind {
			return m.GetCounter().GetValue()
		}
	}
	return 0
}

// journaling is a kgmem.JournalingOutbox that applies nothing.
type journaling struct {
	kgmem.VectorOutbox
	applied int
}

func (j *journaling) Reserve(ops []kgmem.VectorOp) []kgmem.QueuedVectorOp {
	return make([]kgmem.QueuedVectorOp, len(ops))
}

func (j *journaling) ApplyJournaled(ctx context.Context, cs kgmem.ChangeSet, ops []kgmem.QueuedVectorOp) error {
	j.applied++
	return nil
}

// TestOutboxIsTimedAndStaysJournaling: the engine writes an ingest's change
// set through a journaling outbox, so the wrapped outbox must stay one and
// time that write; a file outbox stays a plain one, its writes timed too.
func TestOutboxIsTimedAndStaysJournaling(t *testing.T) {
	ctx := context.Background()
	reg := prometheus.NewRegistry()
	m := instrument.New(reg)
	file, _, err := outbox.Open(filepath.Join(t.TempDir(), "vector.outbox"))
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()

	inner := &journaling{VectorOutbox: file}
	box, ok := instrument.Outbox(inner, "neo4j", m).(kgmem.JournalingOutbox)
	if !ok {
		t.Fatal("a journaling outbox was wrapped as a plain one")
	}
	if err := box.ApplyJournaled(ctx, kgmem.ChangeSet{Namespace: "ns"}, box.Reserve([]kgmem.VectorOp{{}})); err != nil || inner.applied != 1 {
		t.Fatalf("ApplyJournaled: %v, applied %d times", err, inner.applied)
	}
	if n := callHistogram(t, reg, "neo4j", "ApplyJournaled").GetSampleCount(); n != 1 {
		t.Errorf("ApplyJournaled timed %d times, want 1", n)
	}

	plain := instrument.Outbox(file, "file", m)
	if _, journals := plain.(kgmem.JournalingOutbox); journals {
		t.Fatal("a file outbox became a journaling one")
	}
	if _, err := plain.Add(ctx, []kgmem.VectorOp{{Op: kgmem.VectorDelete, Namespace: "ns", Kind: kgmem.KindEpisode, ID: "ep_1"}}); err != nil {
		t.Fatal(err)
	}
	if n := callHistogram(t, reg, "file", "OutboxAdd").GetSampleCount(); n != 1 || plain.Len() != 1 {
		t.Errorf("OutboxAdd timed %d times with %d queued, want 1 and 1", n, plain.Len())
	}
}
