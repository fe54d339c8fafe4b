// Command bench runs kgmem's benchmarks against a running server.
//
// Usage:
//
//	go run ./cmd/bench locomo --url http://127.0.0.1:8080 --data ../shared/bench/locomo \
//	    [--k 5,10] [--concurrency 4] [--batch 50] [--json out.json] [--extract] [--progress]
//	go run ./cmd/bench locomo --baseline [--scope corpus|conversation] [--data DIR] [--k 5,10]
//
// The locomo benchmark purges the bench/locomo/<conversation> namespaces,
// ingests every LoCoMo turn through POST /v1/memories, asks every question of
// categories 1–4 through POST /v1/search, and prints evidence recall@k per
// category beside plain BM25 and the data set's anchor, with ingest
// throughput and search latency. --baseline runs the BM25 baseline alone,
// without a server. See bench/README.md.
//
//	go run ./cmd/bench synth [--facts 1000000 --entities 200000 --namespaces 1000 --seed 1] \
//	    [--data-dir kgmem-synth] [--graph sqlite|neo4j] [--vector hnsw|milvus] [--concurrency 4] [--json out.json]
//
//	go run ./cmd/bench locomo-cv [--data ../shared/bench/locomo] [--k 10] [--grid "thread_weight=1,0.8;…"] [--json out.json]
//
// The locomo-cv benchmark ingests the conversations into in-process
// embedded engines and chooses the search constants by leave-one-
// conversation-out cross-validation over a declared grid, reporting the
// held-out recall per fold and pooled.
//
//	go run ./cmd/bench longmemeval [--data ../shared/bench/longmemeval] [--url http://…] [--k 5,10] \
//	    [--limit N] [--types multi-session,…] [--grid "thread_weight=1,0" --folds 5] [--json out.json] [--progress]
//
// The longmemeval benchmark ingests each LongMemEval question's haystack
// into a namespace of its own (in process with the server's defaults, or
// through a server with --url), searches the question, and prints turn
// recall and session recall_any/recall_all at each k per question type,
// beside Okapi BM25 over the same turns, with ingest throughput and the
// latency of the first search on each fresh namespace. --grid
// cross-validates search constants over the questions (k folds).
//
// The synth benchmark builds (or reuses) a seeded synthetic memory
// (bench/synth) and measures the engine's search on it: latency
// percentiles at concurrency 1 and --concurrency, QPS, recall@k of the
// vector step against exact search, peak RSS, build time and disk size.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/bench/locomo"
	kgclient "github.com/kgmem/kgmem/client"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		if errors.Is(err, flag.ErrHelp) {
			os.Exit(0)
		}
		os.Exit(1)
	}
}

const usage = `usage: bench locomo|locomo-cv|longmemeval|cv|synth|extract [flags]   (bench locomo -h, bench longmemeval -h, bench synth -h, bench extract -h list the flags)`

// run dispatches the subcommand.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		return fmt.Errorf("%w: missing benchmark name; %s", kgmem.ErrInvalid, usage)
	}
	switch args[0] {
	case "locomo":
		return runLocomo(ctx, args[1:], stdout, stderr)
	case "locomo-cv":
		return runLocomoCV(ctx, args[1:], stdout, stderr)
	case "cv":
		return runCV(ctx, args[1:], stdout, stderr)
	case "longmemeval":
		return runLongMemEval(ctx, args[1:], stdout, stderr)
	case "gen-chatlog":
		return runGenChatlog(ctx, args[1:], stdout, stderr)
	case "synth":
		return runSynth(ctx, args[1:], stdout, stderr)
	case "extract":
		return runExtract(ctx, args[1:], stdout, stderr)
	case "-h", "--help", "help":
		fmt.Fprintln(stdout, usage)
		return nil
	}
	return fmt.Errorf("%w: unknown benchmark %q; %s", kgmem.ErrInvalid, args[0], usage)
}

// locomoFlags are the flags of `bench locomo`.
type locomoFlags struct {
	url          string
	data         string
	ks           []int
	concurrency  int
	batch        int
	jsonOut      string
	baseline     bool
	scope        string
	extract      bool
	progress     bool
	reinforce    bool
	decay        bool
	decayFloor   float64
	perRetriever bool
}

func parseLocomoFlags(args []string, stderr io.Writer) (locomoFlags, error) {
	f := locomoFlags{ks: []int{5, 10}}
	fs := flag.NewFlagSet("bench locomo", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&f.url, "url", "http://127.0.0.1:8080", "base URL of the kgmem server")
	fs.StringVar(&f.data, "data", "../shared/bench/locomo", "directory of the LoCoMo conversation files (*.json)")
	fs.Func("k", "comma-separated recall cut-offs (default 5,10)", func(s string) error {
		ks, err := parseKs(s)
		f.ks = ks
		return err
	})
	fs.IntVar(&f.concurrency, "concurrency", 4, "requests in flight during ingest and search")
	fs.IntVar(&f.batch, "batch", 50, "messages per ingest request")
	fs.StringVar(&f.jsonOut, "json", "", "also write the full result as JSON to this file")
	fs.BoolVar(&f.baseline, "baseline", false, "run only the BM25 baseline (no server needed)")
	fs.StringVar(&f.scope, "scope", string(locomo.ScopeCorpus), "BM25 baseline scope: corpus (one index over all conversations, filtered) or conversation")
	fs.BoolVar(&f.extract, "extract", false, "ask the server to extract facts while ingesting (needs an LLM; slow)")
	fs.BoolVar(&f.reinforce, "reinforce", false, "let searches reinforce what they return (makes recall depend on question order)")
	fs.BoolVar(&f.decay, "decay", true, "keep the forgetting curve on; --decay=false switches it off in the bench namespaces")
	fs.Float64Var(&f.decayFloor, "decay-floor", 0, "set the decay floor (least search weight, 0..1) in the bench namespaces; 0 keeps the server default")
	fs.BoolVar(&f.perRetriever, "per-retriever", false, "also score each retriever alone (vector, bm25), from a second pass at limit 100")
	fs.BoolVar(&f.progress, "progress", false, "draw progress bars on stderr")
	if err := parseFlags(fs, args); err != nil {
		return f, err
	}
	return f, nil
}

// parseFlags parses args into fs: -h passes flag.ErrHelp through, a bad flag
// or a stray argument is an ErrInvalid.
func parseFlags(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return fmt.Errorf("%w: %v", kgmem.ErrInvalid, err)
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%w: unexpected arguments %q", kgmem.ErrInvalid, fs.Args())
	}
	return nil
}

// parseKs parses "5,10".
func parseKs(s string) ([]int, error) {
	var ks []int
	for _, part := range strings.Split(s, ",") {
		k, err := strconv.Atoi(strings.TrimSpace(part))
		if err != nil {
			return nil, kgmem.Invalidf("k", "%q is not a comma-separated list of integers", s)
		}
		ks = append(ks, k)
	}
	return ks, locomo.ValidateKs(ks)
}

func runLocomo(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	f, err := parseLocomoFlags(args, stderr)
	if err != nil {
		return err
	}
	scope, err := locomo.ParseScope(f.scope)
	if err != nil {
		return err
	}
	var client *kgclient.Client
	if !f.baseline {
		if client, err = kgclient.New(f.url, kgclient.WithAPIKey(os.Getenv("KGMEM_API_KEY"))); err != nil {
			return fmt.Errorf("--url: %w", err)
		}
	}
	convs, err := locomo.Load(f.data)
	if err != nil {
		return fmt.Errorf("load LoCoMo data (--data %s): %w", f.data, err)
	}
	if f.baseline {
		table, stats, err := locomo.Baseline(convs, f.ks, scope)
		if err != nil {
			return err
		}
		if err := locomo.WriteBaseline(stdout, table, stats, scope); err != nil {
			return err
		}
		return writeJSON(f.jsonOut, map[string]any{"baseline_bm25": table, "data": stats, "scope": scope, "anchors": locomo.Anchors})
	}
	bars := newProgressBars(stderr, f.progress)
	res, err := locomo.Run(ctx, client, convs, locomo.Config{
		Ks: f.ks, Concurrency: f.concurrency, Batch: f.batch, Extract: f.extract, Reinforce: f.reinforce, DecayOff: !f.decay, DecayFloor: f.decayFloor, PerRetriever: f.perRetriever, BaselineScope: scope, Log: stderr,
		Progress: bars.update,
	})
	bars.finish()
	if err != nil {
		return err
	}
	if err := locomo.WriteReport(stdout, res); err != nil {
		return err
	}
	return writeJSON(f.jsonOut, res)
}

// writeJSON writes v to path, indented; an empty path writes nothing.
func writeJSON(path string, v any) error {
	if path == "" {
		return nil
	}
	buf, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Errorf("encode result: %w", err)
	}
	if err := os.WriteFile(path, append(buf, '\n'), 0o644); err != nil {
		return fmt.Errorf("write --json: %w", err)
	}
	return nil
}
