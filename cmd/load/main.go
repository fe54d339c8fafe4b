// Command load is kgmem's bounded load generator: N concurrent clients mix
// ingest and search against a server for a fixed time, then it reports
// throughput, p50/p99 latency and errors per operation, purges what it wrote,
// and checks that the server's goroutines and heap return to their baseline.
//
//	go run ./cmd/load                       # in-process server on loopback, 50 clients, 60 s
//	go run ./cmd/load -clients 10 -duration 5s
//	go run ./cmd/load -url http://127.0.0.1:8080 -key "$KGMEM_ADMIN_KEY"
//	go run ./cmd/load -url http://127.0.0.1:8080,http://127.0.0.1:8081 -settle 0   # two replicas share the clients
//	go run ./cmd/load -compare 7c257fa -rounds 3 -duration 40s   # that commit's server vs the working tree's
//	go run ./cmd/load -compare 7c257fa -backends neo4j+milvus -neo4j-uri bolt://127.0.0.1:7687 -milvus-addr 127.0.0.1:19530
//
// With -compare it builds cmd/server at the baseline revision and at
// -candidate (default: the working tree), starts each as its own process on
// loopback over a fresh data directory (with -backends neo4j+milvus, on the
// given Neo4j and Milvus, each run in a fresh scope and collection), runs the same load
// against each -rounds times (alternating which goes first), and prints
// every run and the per-round ratios candidate/baseline with their median
// and range: on a shared machine only such same-run ratios mean anything.
//
// It exits 1 when any request got a 5xx, or when the server does not settle
// back to its baseline within -settle.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/kgmem/kgmem/internal/cpuprofile"
	"github.com/kgmem/kgmem/internal/gcheadroom"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "load:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	cfg := Config{}
	fs := flag.NewFlagSet("load", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&cfg.URL, "url", "", "server to load, or servers of one deployment separated by commas, which share the clients (empty: start one in-process on loopback with the embedded backends)")
	fs.StringVar(&cfg.Key, "key", os.Getenv("KGMEM_ADMIN_KEY"), "API key sent as Bearer; the admin key, since the run purges its namespaces ($KGMEM_ADMIN_KEY)")
	fs.IntVar(&cfg.Clients, "clients", 50, "concurrent clients")
	fs.DurationVar(&cfg.Duration, "duration", 60*time.Second, "how long the clients run")
	fs.Float64Var(&cfg.IngestShare, "ingest", 0.3, "share of requests that ingest (the rest search)")
	fs.IntVar(&cfg.Namespaces, "namespaces", 20, "namespaces the clients spread over")
	fs.DurationVar(&cfg.Settle, "settle", 60*time.Second, "how long the server may take to return to its baseline after the run (0: do not check)")
	fs.Int64Var(&cfg.Seed, "seed", 1, "seed of the generated messages and queries")
	asJSON := fs.Bool("json", false, "print the report as JSON")
	baseline := fs.String("compare", "", "git revision of a baseline server to compare with -candidate (builds both; see the package doc)")
	candidate := fs.String("candidate", "", "with -compare: the git revision to compare (empty: the working tree)")
	rounds := fs.Int("rounds", 3, "with -compare: runs of each build")
	gcHeadroomMiB := fs.Int("gc-headroom-mib", 64, "heap growth this process allows between collections, as the server's --gc-headroom-mib (0: GOGC alone); the clients share the server's cores")
	backends := Backends{}
	fs.StringVar(&backends.Pair, "backends", BackendsEmbedded, "with -compare: what the servers store their data in: embedded (SQLite + HNSW) or neo4j+milvus (every run in a fresh Neo4j scope and Milvus collection on -neo4j-uri and -milvus-addr)")
	fs.StringVar(&backends.Neo4jURI, "neo4j-uri", "bolt://127.0.0.1:7687", "with -backends neo4j+milvus: the Neo4j Bolt URI (authentication off)")
	fs.StringVar(&backends.MilvusAddr, "milvus-addr", "127.0.0.1:19530", "with -backends neo4j+milvus: the Milvus gRPC address")
	fs.Func("server-flag", "with -compare: a flag for every run's server, both builds alike, as --name=value (repeat it for several), e.g. -server-flag=--milvus-exact-below=-1", func(v string) error {
		if !strings.HasPrefix(v, "--") {
			return fmt.Errorf("%q: want a server flag as --name=value", v)
		}
		backends.ServerFlags = append(backends.ServerFlags, v)
		return nil
	})
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile of this process (the clients, not the server) to this file")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("load takes no arguments, got %q", fs.Args())
	}
	if err := cfg.validate(); err != nil {
		return err
	}
	if *gcHeadroomMiB < 0 || *gcHeadroomMiB > 1<<20 {
		return fmt.Errorf("-gc-headroom-mib must be within 0..%d, got %d", 1<<20, *gcHeadroomMiB)
	}
	// The clients decode every answer: with GOGC alone their small heap
	// was collected many times a second, on the cores the server needs.
	defer gcheadroom.Start(gcheadroom.Config{Headroom: uint64(*gcHeadroomMiB) << 20}).Stop()
	if *cpuProfile != "" {
		stopProfile, err := cpuprofile.Start(*cpuProfile)
		if err != nil {
			return fmt.Errorf("-cpuprofile: %w", err)
		}
		defer stopProfile()
	}
	if *baseline != "" {
		if cfg.URL != "" {
			return fmt.Errorf("-compare starts its own servers; drop -url")
		}
		explicit := map[string]bool{}
		fs.Visit(func(f *flag.Flag) { explicit[f.Name] = true })
		if !explicit["settle"] {
			// A separate server process collects its heap on its own
			// schedule; the comparison is about throughput, so do not wait.
			cfg.Settle = 5 * time.Second
		}
		rep, err := RunComparison(ctx, Comparison{Baseline: *baseline, Candidate: *candidate, Rounds: *rounds, Load: cfg, Backends: backends}, stderr)
		if err != nil {
			return err
		}
		return finish(stdout, rep, *asJSON)
	}
	rep, err := Run(ctx, cfg, stderr)
	if err != nil {
		return err
	}
	return finish(stdout, rep, *asJSON)
}

// outcome is a run's or a comparison's report.
type outcome interface {
	print(w io.Writer)
	verdict() error
}

// finish prints rep (as JSON with asJSON) and returns its verdict.
func finish(w io.Writer, rep outcome, asJSON bool) error {
	if !asJSON {
		rep.print(w)
		return rep.verdict()
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(rep); err != nil {
		return fmt.Errorf("print report: %w", err)
	}
	return rep.verdict()
}
