package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/bench/locomo"
	"github.com/kgmem/kgmem/decay"
	"github.com/kgmem/kgmem/embed"
	"github.com/kgmem/kgmem/graph/sqlite"
	"github.com/kgmem/kgmem/memory"
	"github.com/kgmem/kgmem/vector/hnsw"
	"golang.org/x/sync/errgroup"
)

// cvGrid is the declared grid of `bench locomo-cv`: every search constant
// fitted on LoCoMo, with the engine's default (as `server` sets it with the
// hashing embedder) first. The values were centred on the defaults before
// the first cross-validation (thread 1, speaker 1, k 60, window 1, when
// off); the defaults are now the point it picks on all five conversations.
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

// applyParam sets one grid constant on the search options.
func applyParam(o *memory.SearchOptions, name string, v float64) error {
	switch name {
	case "thread_weight":
		o.ThreadWeight = v
	case "speaker_weight":
		o.SpeakerWeight = v
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
	default:
		return kgmem.Invalidf("grid", "unknown constant %q", name)
	}
	return nil
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
	embedderName := fs.String("embedder", "hash", "embedder: hash (alias hashing) or static (scripts/embedder.sh install)")
	staticModel := fs.String("embed-static-model", embed.DefaultStaticDir(), "directory of the static embedder's model")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	embedder, baseVectorWeight, err := benchEmbedder(*embedderName, *staticModel)
	if err != nil {
		return err
	}
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
	dir := *dataDir
	if dir == "" {
		if dir, err = os.MkdirTemp("", "kgmem-locomo-cv-"); err != nil {
			return err
		}
		defer os.RemoveAll(dir)
	}
	graph, err := sqlite.Open(ctx, filepath.Join(dir, "graph.db"))
	if err != nil {
		return fmt.Errorf("open graph store: %w", err)
	}
	defer graph.Close()
	vectors, err := hnsw.Open(ctx, filepath.Join(dir, "vectors.db"), embedder.Dimension(), hnsw.Options{})
	if err != nil {
		return fmt.Errorf("open vector index: %w", err)
	}
	defer vectors.Close()
	// The engine as `server` wires it with the embedded backends and the
	// hashing embedder: decay from the namespace settings, no extractor.
	newEngine := func(opts memory.SearchOptions) (*memory.Engine, error) {
		return memory.New(memory.Config{Graph: graph, Vectors: vectors, Embedder: embedder, Decay: decay.StoreModels(graph), Search: opts})
	}
	ingester, err := newEngine(memory.SearchOptions{})
	if err != nil {
		return err
	}
	start := time.Now()
	for _, conv := range convs {
		threads, err := locomo.Threads(conv)
		if err != nil {
			return err
		}
		if len(threads) > 0 {
			if _, err := ingester.PurgeNamespace(ctx, threads[0].Namespace); err != nil {
				return err
			}
		}
		for _, th := range threads {
			for _, batch := range locomo.Batches(th.Messages, 50) {
				if _, err := ingester.Ingest(ctx, memory.IngestRequest{Namespace: th.Namespace, ThreadID: th.ID, Messages: batch}); err != nil {
					return fmt.Errorf("ingest %s %s: %w", th.Namespace, th.ID, err)
				}
			}
		}
	}
	cases, _ := locomo.Cases(convs)
	points := grid.Points()
	fmt.Fprintf(stderr, "ingested %d conversations in %.1fs; %d grid points × %d questions\n", len(convs), time.Since(start).Seconds(), len(points), len(cases))
	retrieved := make([][][]string, len(points))
	var done atomic.Int64
	for p, point := range points {
		// The server's options with this embedder (cmd/server config.go).
		opts := memory.SearchOptions{VectorWeight: baseVectorWeight, TextWeight: 1}
		for i, param := range grid {
			if err := applyParam(&opts, param.Name, point[i]); err != nil {
				return err
			}
		}
		engine, err := newEngine(opts)
		if err != nil {
			return err
		}
		retrieved[p] = make([][]string, len(cases))
		g, gctx := errgroup.WithContext(ctx)
		g.SetLimit(*concurrency)
		for c, cs := range cases {
			ns, err := locomo.Namespace(cs.Conversation)
			if err != nil {
				return err
			}
			g.Go(func() error {
				res, err := engine.Search(gctx, memory.SearchRequest{Namespace: ns, Query: cs.Text, Limit: *k, Include: []kgmem.Kind{kgmem.KindEpisode}})
				if err != nil {
					return fmt.Errorf("search %s question %d: %w", ns, cs.Question, err)
				}
				ids := make([]string, len(res.Episodes))
				for i, ep := range res.Episodes {
					ids[i] = ep.MessageID
				}
				retrieved[p][c] = ids
				return nil
			})
		}
		if err := g.Wait(); err != nil {
			return err
		}
		if n := done.Add(1); n%10 == 0 || int(n) == len(points) {
			fmt.Fprintf(stderr, "%d/%d grid points (%.0fs)\n", n, len(points), time.Since(start).Seconds())
		}
	}
	res, err := locomo.CrossValidate(grid, cases, retrieved, *k)
	if err != nil {
		return err
	}
	if err := locomo.WriteCV(stdout, res); err != nil {
		return err
	}
	return writeJSON(*jsonOut, res)
}

// benchEmbedder opens the embedder --embedder names and returns it with the
// vector weight the server gives it by default (cmd/server config.go): 0.01
// for the lexical hashing embedder, 1 for a model.
func benchEmbedder(name, staticModel string) (kgmem.Embedder, float64, error) {
	switch name {
	case "hash", "hashing":
		return embed.NewHashing(embed.DefaultHashingDim), 0.01, nil
	case "static":
		e, err := embed.LoadStatic(staticModel)
		if errors.Is(err, embed.ErrNoModel) {
			return nil, 0, fmt.Errorf("--embedder static: %w; run scripts/embedder.sh install or set --embed-static-model", err)
		}
		if err != nil {
			return nil, 0, fmt.Errorf("--embedder static: %w", err)
		}
		return e, 1, nil
	}
	return nil, 0, kgmem.Invalidf("embedder", "--embedder is %q; use hash or static", name)
}
