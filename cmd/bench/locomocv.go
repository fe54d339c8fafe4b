package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/bench/embedded"
	"github.com/kgmem/kgmem/bench/locomo"
	"github.com/kgmem/kgmem/memory"
	"golang.org/x/sync/errgroup"
)

// cvGrid is the declared grid of `bench locomo-cv`: every search constant
// fitted on LoCoMo, with the engine's default (as `server` sets it with the
// hashing embedder) first. LoCoMo alone picks a window of 2; the default
// of 1 is what `bench cv` picks over LoCoMo and LongMemEval together.
// 3·3·3·2·2·2·2 = 432 points, about 10 minutes on two shared cores.
func cvGrid() locomo.Grid {
	return locomo.Grid{
		{Name: "thread_weight", Values: []float64{1, 0.8, 1.2}},
		{Name: "speaker_weight", Values: []float64{0.8, 1, 1.2}},
		{Name: "rrf_k", Values: []float64{30, 60, 120}},
		{Name: "vector_weight", Values: []float64{0.01, 0.1}},
		{Name: "thread_window", Values: []float64{2, 1}},
		{Name: "time_factor", Values: []float64{0.5, 1}},
		{Name: "when_factor", Values: []float64{0.7, 1}},
	}
}

// applyParam sets one grid constant on the search options. A retriever
// weight of 0 switches the retriever off, as the server's flags do (the
// engine itself reads 0 as "the default").
func applyParam(o *memory.SearchOptions, name string, v float64) error {
	off := func(w float64) float64 {
		if w == 0 {
			return -1
		}
		return w
	}
	switch name {
	case "thread_weight":
		o.ThreadWeight = off(v)
	case "speaker_weight":
		o.SpeakerWeight = off(v)
	case "graph_weight":
		o.GraphWeight = off(v)
	case "graph_depth":
		o.GraphDepth = int(v)
	case "rrf_k":
		o.RRFK = v
	case "vector_weight":
		o.VectorWeight = v
	case "text_weight":
		o.TextWeight = v
	case "thread_window":
		o.ThreadWindow = int(v)
	case "candidates":
		o.Candidates = int(v)
	case "time_factor":
		o.TimeFactor = v
	case "when_factor":
		o.WhenFactor = v
	case "currency_factor":
		o.CurrencyFactor = v
	case "mmr_lambda":
		o.MMRLambda = v
	default:
		return kgmem.Invalidf("grid", "unknown constant %q", name)
	}
	return nil
}

// gridOptions are the search options of one grid point: base (the
// server's defaults with the embedder benchmarked, embedderFlags.open) with
// the point's constants set.
func gridOptions(base memory.SearchOptions, grid locomo.Grid, point []float64) (memory.SearchOptions, error) {
	opts := base
	for i, param := range grid {
		if err := applyParam(&opts, param.Name, point[i]); err != nil {
			return opts, err
		}
	}
	return opts, nil
}

// parseGrid reads --grid: "name=v1,v2;name=v1,…" (the first value of each
// is the default), or "" for cvGrid.
func parseGrid(s string) (locomo.Grid, error) {
	if strings.TrimSpace(s) == "" {
		return cvGrid(), nil
	}
	var g locomo.Grid
	for _, part := range strings.Split(s, ";") {
		name, vals, ok := strings.Cut(strings.TrimSpace(part), "=")
		if !ok {
			return nil, kgmem.Invalidf("grid", "%q is not name=v1,v2", part)
		}
		p := locomo.Param{Name: strings.TrimSpace(name)}
		for _, v := range strings.Split(vals, ",") {
			x, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
			if err != nil {
				return nil, kgmem.Invalidf("grid", "%q: %q is not a number", name, v)
			}
			p.Values = append(p.Values, x)
		}
		if err := applyParam(&memory.SearchOptions{}, p.Name, 0); err != nil {
			return nil, err
		}
		g = append(g, p)
	}
	return g, g.Validate()
}

// runLocomoCV is `bench locomo-cv`: leave-one-conversation-out
// cross-validation of the search constants on LoCoMo, in process.
func runLocomoCV(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("bench locomo-cv", flag.ContinueOnError)
	fs.SetOutput(stderr)
	data := fs.String("data", "../shared/bench/locomo", "directory of the LoCoMo conversation files (*.json)")
	k := fs.Int("k", 10, "recall cut-off")
	gridFlag := fs.String("grid", "", `constants and values, "thread_weight=1,0.8;rrf_k=60,30" (first value: the default); empty: the declared grid`)
	concurrency := fs.Int("concurrency", 2, "searches in flight")
	jsonOut := fs.String("json", "", "also write the result as JSON to this file")
	dataDir := fs.String("data-dir", "", "directory for the embedded stores (default: a temporary one, removed after)")
	var ef embedderFlags
	ef.bind(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	embedder, base, err := ef.open()
	if err != nil {
		return err
	}
	fmt.Fprintf(stderr, "embedder %s, vector weight %g\n", embedder.Name(), base.VectorWeight)
	if *k < 1 || *concurrency < 1 {
		return kgmem.Invalidf("k", "--k and --concurrency must be positive")
	}
	grid, err := parseGrid(*gridFlag)
	if err != nil {
		return err
	}
	convs, err := locomo.Load(*data)
	if err != nil {
		return fmt.Errorf("load LoCoMo data (--data %s): %w", *data, err)
	}
	h, err := openLocomo(ctx, *dataDir, convs, embedder)
	if err != nil {
		return err
	}
	defer h.Close()
	points := grid.Points()
	fmt.Fprintf(stderr, "ingested %d conversations in %.1fs; %d grid points × %d questions\n", len(convs), h.ingest.Seconds(), len(points), len(h.cases))
	start := time.Now()
	retrieved := make([][][]string, len(points))
	for p, point := range points {
		opts, err := gridOptions(base, grid, point)
		if err != nil {
			return err
		}
		if retrieved[p], err = h.retrieve(ctx, opts, *k, *concurrency); err != nil {
			return err
		}
		if n := p + 1; n%10 == 0 || n == len(points) {
			fmt.Fprintf(stderr, "%d/%d grid points (%.0fs)\n", n, len(points), time.Since(start).Seconds())
		}
	}
	cases := h.cases
	res, err := locomo.CrossValidate(grid, cases, retrieved, *k)
	if err != nil {
		return err
	}
	if err := locomo.WriteCV(stdout, res); err != nil {
		return err
	}
	return writeJSON(*jsonOut, res)
}

// locomoHarness is LoCoMo ingested into in-process embedded stores, wired
// as `server` wires them, to search with many option sets.
type locomoHarness struct {
	dir    string
	temp   bool
	stores *embedded.Stores
	cases  []locomo.Case
	ingest time.Duration
}

// openLocomo ingests convs into stores under dir (a temporary directory,
// removed by Close, when dir is "") with embedder.
func openLocomo(ctx context.Context, dir string, convs []locomo.Conversation, embedder kgmem.Embedder) (_ *locomoHarness, err error) {
	h := &locomoHarness{dir: dir}
	if h.dir == "" {
		if h.dir, err = os.MkdirTemp("", "kgmem-locomo-cv-"); err != nil {
			return nil, err
		}
		h.temp = true
	}
	defer func() {
		if err != nil {
			h.Close()
		}
	}()
	if h.stores, err = embedded.Open(ctx, h.dir, embedder); err != nil {
		return nil, err
	}
	ingester, err := h.engine(memory.SearchOptions{})
	if err != nil {
		return nil, err
	}
	start := time.Now()
	for _, conv := range convs {
		threads, err := locomo.Threads(conv)
		if err != nil {
			return nil, err
		}
		if len(threads) > 0 {
			if _, err := ingester.PurgeNamespace(ctx, threads[0].Namespace); err != nil {
				return nil, err
			}
		}
		for _, th := range threads {
			for _, batch := range locomo.Batches(th.Messages, 50) {
				if _, err := ingester.Ingest(ctx, memory.IngestRequest{Namespace: th.Namespace, ThreadID: th.ID, Messages: batch}); err != nil {
					return nil, fmt.Errorf("ingest %s %s: %w", th.Namespace, th.ID, err)
				}
			}
		}
	}
	h.ingest = time.Since(start)
	h.cases, _ = locomo.Cases(convs)
	return h, nil
}

// engine is the engine as `server` wires it with the embedded backends.
func (h *locomoHarness) engine(opts memory.SearchOptions) (*memory.Engine, error) {
	return h.stores.Engine(opts, nil)
}

// retrieve asks every case's question with opts and returns the message
// ids of the episodes found, per case, in rank order.
func (h *locomoHarness) retrieve(ctx context.Context, opts memory.SearchOptions, k, concurrency int) ([][]string, error) {
	engine, err := h.engine(opts)
	if err != nil {
		return nil, err
	}
	out := make([][]string, len(h.cases))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(concurrency)
	for c, cs := range h.cases {
		ns, err := locomo.Namespace(cs.Conversation)
		if err != nil {
			return nil, err
		}
		g.Go(func() error {
			res, err := engine.Search(gctx, memory.SearchRequest{Namespace: ns, Query: cs.Text, Limit: k, Include: []kgmem.Kind{kgmem.KindEpisode}})
			if err != nil {
				return fmt.Errorf("search %s question %d: %w", ns, cs.Question, err)
			}
			ids := make([]string, len(res.Episodes))
			for i, ep := range res.Episodes {
				ids[i] = ep.MessageID
			}
			out[c] = ids
			return nil
		})
	}
	return out, g.Wait()
}

// Close closes the stores and removes a temporary directory.
func (h *locomoHarness) Close() {
	if h.stores != nil {
		h.stores.Close()
	}
	if h.temp {
		os.RemoveAll(h.dir)
	}
}
