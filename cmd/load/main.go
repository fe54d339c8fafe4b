// Command load is kgmem's bounded load generator: N concurrent clients mix
// ingest and search against a server for a fixed time, then it reports
// throughput, p50/p99 latency and errors per operation, purges what it wrote,
// and checks that the server's goroutines and heap return to their baseline.
//
//	go run ./cmd/load                       # in-process server on loopback, 50 clients, 60 s
//	go run ./cmd/load -clients 10 -duration 5s
//	go run ./cmd/load -url http://127.0.0.1:8080 -key "$KGMEM_ADMIN_KEY"
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
	"syscall"
	"time"
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
	fs.StringVar(&cfg.URL, "url", "", "server to load (empty: start one in-process on loopback with the embedded backends)")
	fs.StringVar(&cfg.Key, "key", os.Getenv("KGMEM_ADMIN_KEY"), "API key sent as Bearer; the admin key, since the run purges its namespaces ($KGMEM_ADMIN_KEY)")
	fs.IntVar(&cfg.Clients, "clients", 50, "concurrent clients")
	fs.DurationVar(&cfg.Duration, "duration", 60*time.Second, "how long the clients run")
	fs.Float64Var(&cfg.IngestShare, "ingest", 0.3, "share of requests that ingest (the rest search)")
	fs.IntVar(&cfg.Namespaces, "namespaces", 20, "namespaces the clients spread over")
	fs.DurationVar(&cfg.Settle, "settle", 60*time.Second, "how long the server may take to return to its baseline after the run")
	fs.Int64Var(&cfg.Seed, "seed", 1, "seed of the generated messages and queries")
	asJSON := fs.Bool("json", false, "print the report as JSON")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("load takes no arguments, got %q", fs.Args())
	}
	if err := cfg.validate(); err != nil {
		return err
	}
	rep, err := Run(ctx, cfg, stderr)
	if err != nil {
		return err
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(rep); err != nil {
			return fmt.Errorf("print report: %w", err)
		}
	} else {
		rep.print(stdout)
	}
	return rep.verdict()
}
