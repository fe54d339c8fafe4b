package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	kgclient "github.com/kgmem/kgmem/client"
	"github.com/kgmem/kgmem/graph/sqlite"
	"github.com/kgmem/kgmem/internal/gcheadroom"
	"github.com/kgmem/kgmem/internal/testenv"
)

// TestLoadShort is the CI-sized load run: 10 clients for 5 s of mixed ingest
// and search against an in-process server. No request may get a 5xx or go
// unanswered, and after the run (and the purge of what it wrote) the server's
// goroutines and heap must return to their baseline.
func TestLoadShort(t *testing.T) {
	d := 5 * time.Second
	if v := os.Getenv("KGMEM_LOAD_DURATION"); v != "" {
		var err error
		if d, err = time.ParseDuration(v); err != nil {
			t.Fatal(err)
		}
	}
	var log bytes.Buffer
	rep, err := Run(context.Background(), Config{Clients: 10, Duration: d, IngestShare: 0.3, Namespaces: 5, Settle: 30 * time.Second, Seed: 1}, &log)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	rep.print(&out)
	t.Log("\n" + out.String())
	if err := rep.verdict(); err != nil {
		t.Fatal(err)
	}
	for _, op := range []string{"ingest", "search"} {
		st := rep.Ops[op]
		if st.Requests == 0 || st.Statuses["200"]+st.Statuses["201"] != st.Requests {
			t.Errorf("%s: %+v, want every request answered 200/201", op, st)
		}
	}
	if rep.Errors4xx != 0 || rep.Purged != 5 {
		t.Errorf("4xx %d, purged %d namespaces", rep.Errors4xx, rep.Purged)
	}
	if rep.Peak.Goroutines <= rep.Baseline.Goroutines {
		t.Errorf("peak goroutines %d not above the baseline %d: the sampler saw no load", rep.Peak.Goroutines, rep.Baseline.Goroutines)
	}
	if runtime.GOOS == "linux" && (rep.CPUMsPerRequest <= 0 || !strings.Contains(out.String(), "server CPU")) {
		t.Errorf("CPU per request %v: the process's CPU counter was not read", rep.CPUMsPerRequest)
	}
	if rep.KiBAllocatedPerRequest <= 0 || !strings.Contains(out.String(), "server heap allocations") {
		t.Errorf("KiB allocated per request %v: the process's allocation counter was not read", rep.KiBAllocatedPerRequest)
	}
	// Every request reads the graph store; the searches ask the vector index.
	calls := map[string]BackendLoad{}
	for _, b := range rep.Backends {
		calls[b.Backend] = b
	}
	for _, backend := range []string{"sqlite", "hnsw"} {
		b := calls[backend]
		if b.CallsPerRequest <= 0 || len(b.Ops) == 0 || !strings.Contains(out.String(), backend+": ") {
			t.Errorf("%s: %+v, want its calls per request reported", backend, b)
		}
	}
	if calls["sqlite"].CallsPerRequest < 1 {
		t.Errorf("%.2f graph store calls per request, want at least one", calls["sqlite"].CallsPerRequest)
	}
}

func TestLoadFlags(t *testing.T) {
	for _, args := range [][]string{{"-clients", "0"}, {"-duration", "0s"}, {"-ingest", "1.5"}, {"-namespaces", "0"}, {"-settle", "-1s"}, {"-url", "http://127.0.0.1:1,"}, {"extra"},
		{"-gc-headroom-mib", "-1"}, {"-gc-headroom-mib", "1048577"}, {"-cpuprofile", filepath.Join(t.TempDir(), "missing", "cpu.pprof")}} {
		err := run(context.Background(), args, &bytes.Buffer{}, &bytes.Buffer{})
		if err == nil {
			t.Errorf("load %q succeeded, want an error", args)
		} else if !strings.Contains(err.Error(), strings.TrimPrefix(args[0], "-")) {
			t.Errorf("load %q: %v does not name %s", args, err, args[0])
		}
	}
}

// TestLoadProfilesItself runs a tiny load with -cpuprofile: the profile is
// written (gzipped protobuf), and the collector's setting the run changed
// for the clients is restored when it ends.
func TestLoadProfilesItself(t *testing.T) {
	path := filepath.Join(t.TempDir(), "load.pprof")
	before := gcheadroom.GCPercent()
	args := []string{"-clients", "2", "-duration", "500ms", "-namespaces", "1", "-settle", "0", "-cpuprofile", path}
	if err := run(context.Background(), args, io.Discard, io.Discard); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(raw) < 2 || raw[0] != 0x1f || raw[1] != 0x8b {
		t.Errorf("%s holds %d bytes, not a gzipped profile", path, len(raw))
	}
	if after := gcheadroom.GCPercent(); after != before {
		t.Errorf("GC percent %d after the run, %d before", after, before)
	}
}

// TestInProcessOwnsItsStore checks that the in-process server opens its
// graph store as cmd/server does, Exclusive: while it runs, another store
// cannot open the file (and the server keeps its versions in memory).
func TestInProcessOwnsItsStore(t *testing.T) {
	dir := t.TempDir()
	srv, err := startInProcess(t.Context(), dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.stop() })
	other, err := sqlite.Open(t.Context(), filepath.Join(dir, "graph.db"))
	if err == nil {
		_ = other.Close()
	}
	if !errors.Is(err, sqlite.ErrFileInUse) {
		t.Errorf("opening the in-process server's graph file again: %v, want ErrFileInUse", err)
	}
}

// TestLoadSpreadsOverServers runs a short load against two servers given as
// one -url list: the second, which is not the one seeded and purged through
// (the servers are not replicas here), holds what its share of the clients
// ingested; -settle 0 reports the baseline check as skipped.
func TestLoadSpreadsOverServers(t *testing.T) {
	var urls []string
	var servers []*inProcess
	for range 2 {
		srv, err := startInProcess(t.Context(), t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = srv.stop() })
		urls, servers = append(urls, srv.url), append(servers, srv)
	}
	rep, err := Run(t.Context(), Config{URL: strings.Join(urls, ","), Clients: 4, Duration: time.Second, IngestShare: 0.5, Namespaces: 2, Seed: 1}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if err := rep.verdict(); err != nil || rep.SettleTime != "not checked" {
		t.Errorf("verdict %v, settle %q; want none and not checked", err, rep.SettleTime)
	}
	second, err := kgclient.New(servers[1].url)
	if err != nil {
		t.Fatal(err)
	}
	nss, err := second.ListNamespaces(t.Context())
	if err != nil || len(nss.Namespaces) == 0 {
		t.Errorf("the second server holds %+v (%v); want the namespaces its clients ingested into", nss, err)
	}
}

// TestCompare builds the server at HEAD and from the working tree and runs
// a tiny load against each: both runs are reported, with a ratio per round.
func TestCompare(t *testing.T) {
	var log bytes.Buffer
	cfg := Config{Clients: 2, Duration: time.Second, IngestShare: 0.3, Namespaces: 2, Settle: time.Second, Seed: 1}
	rep, err := RunComparison(t.Context(), Comparison{Baseline: "HEAD", Rounds: 1, Load: cfg}, &log)
	if err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}
	if len(rep.Runs) != 2 || rep.Runs[0].Build != "baseline HEAD" || rep.Runs[1].Build != "candidate working tree" {
		t.Fatalf("runs %+v", rep.Runs)
	}
	for _, run := range rep.Runs {
		if s := run.Report.Ops["search"]; s.Requests == 0 || run.Report.Errors5xx != 0 {
			t.Errorf("%s: %d searches, %d 5xx", run.Build, s.Requests, run.Report.Errors5xx)
		}
	}
	if len(rep.ThroughputRatios) != 1 || rep.ThroughputRatios[0] <= 0 {
		t.Errorf("ratios %v", rep.ThroughputRatios)
	}
	if runtime.GOOS == "linux" {
		for _, run := range rep.Runs {
			if run.Report.CPUMsPerRequest <= 0 {
				t.Errorf("%s: CPU per request %v, want the server's CPU counter read", run.Build, run.Report.CPUMsPerRequest)
			}
		}
		if len(rep.CPUPerRequestRatios) != 1 || rep.CPUPerRequestRatios[0] <= 0 {
			t.Errorf("CPU ratios %v", rep.CPUPerRequestRatios)
		}
	}
	for _, run := range rep.Runs {
		if run.Report.KiBAllocatedPerRequest <= 0 {
			t.Errorf("%s: KiB allocated per request %v, want the server's allocation counter read", run.Build, run.Report.KiBAllocatedPerRequest)
		}
	}
	if len(rep.AllocationRatios) != 1 || rep.AllocationRatios[0] <= 0 {
		t.Errorf("allocation ratios %v", rep.AllocationRatios)
	}
	var out bytes.Buffer
	rep.print(&out)
	if !strings.Contains(out.String(), "candidate/baseline req/s: median") || !strings.Contains(out.String(), "candidate/baseline server CPU per request: median") ||
		!strings.Contains(out.String(), "candidate/baseline server heap allocated per request: median") ||
		strings.Count(out.String(), "sqlite ") != 2 {
		t.Errorf("report (want each run's graph store calls per request):\n%s", out.String())
	}
	if err := rep.verdict(); err != nil {
		t.Error(err)
	}
}

func TestCompareFlags(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-compare", "HEAD", "-url", "http://127.0.0.1:1"}, "-url"},
		{[]string{"-compare", "HEAD", "-rounds", "0"}, "-rounds"},
		{[]string{"-compare", "HEAD", "-backends", "postgres+pgvector"}, "-backends"},
		{[]string{"-compare", "HEAD", "-backends", "neo4j+milvus", "-milvus-addr", ""}, "-milvus-addr"},
		{[]string{"-compare", "no-such-revision-xyz", "-duration", "1s"}, "no-such-revision-xyz"},
		{[]string{"-compare", "HEAD", "-server-flag", "milvus-exact-below=-1"}, "-server-flag"},
	} {
		err := run(t.Context(), tc.args, &bytes.Buffer{}, &bytes.Buffer{})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("load %q: %v, want an error naming %s", tc.args, err, tc.want)
		}
	}
}

func TestMedianAndSpread(t *testing.T) {
	for _, tc := range []struct {
		xs     []float64
		median float64
		spread string
	}{
		{nil, 0, "-"},
		{[]float64{1.2}, 1.2, "1.20–1.20"},
		{[]float64{1.3, 1.1, 1.2}, 1.2, "1.10–1.30"},
		{[]float64{1, 2, 4, 3}, 2.5, "1.00–4.00"},
	} {
		if m, s := median(tc.xs), spread(tc.xs); m != tc.median || s != tc.spread {
			t.Errorf("%v: median %v spread %s, want %v %s", tc.xs, m, s, tc.median, tc.spread)
		}
	}
}

// TestCompareBackendArgs: on Neo4j + Milvus every run gets the shared
// servers with a scope and a collection of its own; embedded runs get none.
func TestCompareBackendArgs(t *testing.T) {
	if args, _, err := (Backends{Pair: BackendsEmbedded}).serverArgs(); err != nil || len(args) != 0 {
		t.Fatalf("embedded: %q, %v; want no flags", args, err)
	}
	b := Backends{Pair: BackendsNeo4jMilvus, Neo4jURI: "bolt://127.0.0.1:7", MilvusAddr: "127.0.0.1:9"}
	flags := func() map[string]string {
		args, _, err := b.serverArgs()
		if err != nil {
			t.Fatal(err)
		}
		m := map[string]string{}
		for i := 0; i+1 < len(args); i += 2 {
			m[args[i]] = args[i+1]
		}
		return m
	}
	first, second := flags(), flags()
	for flag, want := range map[string]string{"--graph": "neo4j", "--vector": "milvus", "--neo4j-uri": b.Neo4jURI, "--milvus-addr": b.MilvusAddr} {
		if first[flag] != want {
			t.Errorf("%s %q, want %q (flags %v)", flag, first[flag], want, first)
		}
	}
	for _, flag := range []string{"--neo4j-scope", "--milvus-collection"} {
		if first[flag] == "" || first[flag] == second[flag] {
			t.Errorf("%s: %q then %q, want a fresh one per run", flag, first[flag], second[flag])
		}
	}
	// The flags given for both builds come after the backends', on either pair.
	for _, pair := range []string{BackendsEmbedded, BackendsNeo4jMilvus} {
		b := Backends{Pair: pair, Neo4jURI: b.Neo4jURI, MilvusAddr: b.MilvusAddr, ServerFlags: []string{"--milvus-exact-below=-1"}}
		args, _, err := b.serverArgs()
		if err != nil || len(args) == 0 || args[len(args)-1] != "--milvus-exact-below=-1" {
			t.Errorf("%s with a server flag: %q, %v; want it last", pair, args, err)
		}
	}
}

// TestCompareOnNeo4jMilvus runs a tiny comparison of HEAD and the working
// tree on the test Neo4j and Milvus.
func TestCompareOnNeo4jMilvus(t *testing.T) {
	b := Backends{Pair: BackendsNeo4jMilvus, Neo4jURI: testenv.Neo4jURI(t), MilvusAddr: testenv.MilvusAddr(t)}
	var log bytes.Buffer
	cfg := Config{Clients: 2, Duration: time.Second, IngestShare: 0.3, Namespaces: 2, Settle: time.Second, Seed: 1}
	rep, err := RunComparison(t.Context(), Comparison{Baseline: "HEAD", Rounds: 1, Load: cfg, Backends: b}, &log)
	if err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}
	if rep.Backends != BackendsNeo4jMilvus || len(rep.Runs) != 2 {
		t.Fatalf("backends %q, runs %+v", rep.Backends, rep.Runs)
	}
	for _, run := range rep.Runs {
		if s := run.Report.Ops["search"]; s.Requests == 0 || run.Report.Errors5xx != 0 || run.Report.Purged != 2 {
			t.Errorf("%s: %d searches, %d 5xx, %d namespaces purged", run.Build, s.Requests, run.Report.Errors5xx, run.Report.Purged)
		}
	}
}
