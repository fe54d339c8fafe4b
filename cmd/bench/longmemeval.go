package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/bench/locomo"
	"github.com/kgmem/kgmem/bench/longmemeval"
	kgclient "github.com/kgmem/kgmem/client"
	"github.com/kgmem/kgmem/memory"
)

// lmeFlags are the flags of `bench longmemeval`.
type lmeFlags struct {
	url         string
	data        string
	ks          []int
	concurrency int
	batch       int
	limit       int
	types       []string
	jsonOut     string
	progress    bool
	grid        string
	folds       int
	dataDir     string
	embedder    embedderFlags
}

func parseLMEFlags(args []string, stderr io.Writer) (lmeFlags, error) {
	f := lmeFlags{ks: []int{5, 10}}
	fs := flag.NewFlagSet("bench longmemeval", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&f.url, "url", "", "base URL of a running kgmem server (empty: the engine in process, with embedded stores and the server's defaults)")
	fs.StringVar(&f.data, "data", "../shared/bench/longmemeval", "the questions: a .json or .json.gz file, or the folder holding "+longmemeval.DefaultFile)
	fs.Func("k", "comma-separated recall cut-offs (default 5,10)", func(s string) error {
		ks, err := parseKs(s)
		f.ks = ks
		return err
	})
	fs.IntVar(&f.concurrency, "concurrency", 2, "questions in flight during ingest and search")
	fs.IntVar(&f.batch, "batch", 50, "messages per ingest request")
	fs.IntVar(&f.limit, "limit", 0, "run only the first N questions (after --types; 0: all)")
	fs.Func("types", "comma-separated question types to run (default: all)", func(s string) error {
		for _, t := range strings.Split(s, ",") {
			if t = strings.TrimSpace(t); t != "" {
				f.types = append(f.types, t)
			}
		}
		if len(f.types) == 0 {
			return kgmem.Invalidf("types", "names no question type")
		}
		return nil
	})
	fs.StringVar(&f.jsonOut, "json", "", "also write the full result as JSON to this file")
	fs.BoolVar(&f.progress, "progress", false, "draw progress bars on stderr")
	fs.StringVar(&f.grid, "grid", "", `cross-validate search constants, "thread_weight=1,0;rrf_k=30,60" (first value of each: the default), in process`)
	fs.IntVar(&f.folds, "folds", 5, "folds of the --grid cross-validation (stratified by question type)")
	fs.StringVar(&f.dataDir, "data-dir", "", "directory for the embedded stores (default: a temporary one, removed after)")
	f.embedder.bind(fs)
	if err := parseFlags(fs, args); err != nil {
		return f, err
	}
	switch {
	case f.concurrency < 1:
		return f, kgmem.Invalidf("concurrency", "is %d, must be at least 1", f.concurrency)
	case f.batch < 1:
		return f, kgmem.Invalidf("batch", "is %d, must be at least 1", f.batch)
	case f.limit < 0:
		return f, kgmem.Invalidf("limit", "is %d, must be 0 (all) or more", f.limit)
	case f.folds < 2:
		return f, kgmem.Invalidf("folds", "is %d, must be at least 2", f.folds)
	case slices.Max(f.ks) > longmemeval.BaselineLimit:
		return f, kgmem.Invalidf("k", "%d is above %d", slices.Max(f.ks), longmemeval.BaselineLimit)
	case f.grid != "" && f.url != "":
		return f, kgmem.Invalidf("grid", "runs in process; leave out --url")
	case f.dataDir != "" && f.url != "":
		return f, kgmem.Invalidf("data-dir", "is for the in-process stores; leave out --url")
	}
	return f, nil
}

// selectQuestions keeps the questions of the given types (all when none),
// then the first limit of them (all when 0).
func selectQuestions(qs []longmemeval.Question, types []string, limit int) ([]longmemeval.Question, error) {
	if len(types) > 0 {
		known := map[string]bool{}
		for _, q := range qs {
			known[q.Type] = true
		}
		for _, t := range types {
			if !known[t] {
				names := make([]string, 0, len(known))
				for k := range known {
					names = append(names, k)
				}
				slices.Sort(names)
				return nil, kgmem.Invalidf("types", "%q is not a question type of the data (%s)", t, strings.Join(names, ", "))
			}
		}
		qs = slices.DeleteFunc(slices.Clone(qs), func(q longmemeval.Question) bool { return !slices.Contains(types, q.Type) })
	}
	if limit > 0 && limit < len(qs) {
		qs = qs[:limit]
	}
	return qs, nil
}

// runLongMemEval is `bench longmemeval`.
func runLongMemEval(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	f, err := parseLMEFlags(args, stderr)
	if err != nil {
		return err
	}
	var embedder kgmem.Embedder
	var base memory.SearchOptions
	if f.url == "" { // in process: the embedder is ours, not a server's
		if embedder, base, err = f.embedder.open(); err != nil {
			return err
		}
		fmt.Fprintf(stderr, "embedder %s, vector weight %g\n", embedder.Name(), base.VectorWeight)
	}
	var grid locomo.Grid
	if f.grid != "" {
		if grid, err = parseGrid(f.grid); err != nil {
			return err
		}
	}
	var client *kgclient.Client
	if f.url != "" {
		if client, err = kgclient.New(f.url, kgclient.WithAPIKey(os.Getenv("KGMEM_API_KEY"))); err != nil {
			return fmt.Errorf("--url: %w", err)
		}
	}
	all, err := longmemeval.Load(f.data)
	if err != nil {
		return fmt.Errorf("load LongMemEval data (--data %s): %w", f.data, err)
	}
	qs, err := selectQuestions(all, f.types, f.limit)
	if err != nil {
		return err
	}
	bars := newProgressBars(stderr, f.progress)
	// Only the first pass of searches draws a bar: a grid's later passes
	// would start it over.
	var searchesShown atomic.Bool
	cfg := longmemeval.Config{Ks: f.ks, Concurrency: f.concurrency, Batch: f.batch, Log: stderr,
		Progress: func(stage locomo.Stage, done, total int) {
			if stage == locomo.StageSearch && searchesShown.Load() {
				return
			}
			bars.update(stage, done, total)
		}}
	if client != nil {
		if _, err := client.Healthz(ctx); err != nil {
			return fmt.Errorf("health check of %s: %w", f.url, err)
		}
		res, err := longmemeval.Run(ctx, longmemeval.ClientMemory(client), client.BaseURL(), qs, cfg)
		bars.finish()
		if err != nil {
			return err
		}
		if err := longmemeval.WriteReport(stdout, res); err != nil {
			return err
		}
		return writeJSON(f.jsonOut, res)
	}
	dir := f.dataDir
	if dir == "" {
		if dir, err = os.MkdirTemp("", "kgmem-longmemeval-"); err != nil {
			return err
		}
		defer os.RemoveAll(dir)
	}
	cfg.Embedder, cfg.Search = embedder, base
	h, err := longmemeval.Open(ctx, dir, qs, cfg)
	if err != nil {
		return err
	}
	defer h.Close()
	res, err := h.Result(ctx, base, f.ks)
	searchesShown.Store(true)
	bars.finish()
	if err != nil {
		return err
	}
	if err := longmemeval.WriteReport(stdout, res); err != nil {
		return err
	}
	if grid == nil {
		return writeJSON(f.jsonOut, res)
	}
	cv, err := crossValidateLME(ctx, h, base, grid, slices.Max(f.ks), f.folds, stderr)
	if err != nil {
		return err
	}
	fmt.Fprintln(stdout)
	if err := longmemeval.WriteCV(stdout, cv); err != nil {
		return err
	}
	return writeJSON(f.jsonOut, map[string]any{"result": res, "cross_validation": cv})
}

// crossValidateLME evaluates every grid point on the harness and
// cross-validates them over folds.
func crossValidateLME(ctx context.Context, h *longmemeval.Harness, base memory.SearchOptions, grid locomo.Grid, k, folds int, stderr io.Writer) (longmemeval.CVResult, error) {
	cases := h.Cases()
	if folds > len(cases) {
		return longmemeval.CVResult{}, kgmem.Invalidf("folds", "is %d, above the %d questions scored", folds, len(cases))
	}
	points := grid.Points()
	results := make([][]longmemeval.QuestionResult, len(points))
	start := time.Now()
	for p, point := range points {
		opts, err := gridOptions(base, grid, point)
		if err != nil {
			return longmemeval.CVResult{}, err
		}
		if results[p], err = h.Evaluate(ctx, opts, k); err != nil {
			return longmemeval.CVResult{}, err
		}
		fmt.Fprintf(stderr, "grid point %d/%d (%s) in %.0fs\n", p+1, len(points), grid.Label(point), time.Since(start).Seconds())
	}
	return longmemeval.CrossValidate(grid, cases, results, h.Baseline(k), k, folds)
}
