package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/bench/crossval"
	"github.com/kgmem/kgmem/bench/locomo"
	"github.com/kgmem/kgmem/bench/longmemeval"
)

// runCV is `bench cv`: the search constants chosen over LoCoMo and
// LongMemEval at once (bench/crossval), in process. LoCoMo's folds are its
// conversations; LongMemEval's questions are dealt into as many folds,
// stratified by type, so fold f holds out one conversation and a fifth of
// the questions.
func runCV(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("bench cv", flag.ContinueOnError)
	fs.SetOutput(stderr)
	locomoData := fs.String("locomo", envOr("KGMEM_LOCOMO_DATA", "../shared/bench/locomo"), "directory of the LoCoMo conversation files (default $KGMEM_LOCOMO_DATA)")
	lmeData := fs.String("longmemeval", envOr("KGMEM_LONGMEMEVAL_DATA", "../shared/bench/longmemeval"), "LongMemEval questions: the .json(.gz) file or its directory (default $KGMEM_LONGMEMEVAL_DATA)")
	k := fs.Int("k", 10, "recall cut-off")
	gridFlag := fs.String("grid", "", `constants and values, "thread_weight=1,0.8;rrf_k=60,30" (first value: the default); empty: the declared grid`)
	concurrency := fs.Int("concurrency", 2, "searches in flight")
	jsonOut := fs.String("json", "", "also write the result as JSON to this file")
	limit := fs.Int("limit", 0, "only the first N LongMemEval questions (0: all)")
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
	if *k < 1 {
		return kgmem.Invalidf("k", "is %d, must be positive", *k)
	}
	if *limit < 0 {
		return kgmem.Invalidf("limit", "is %d, must be 0 (all) or positive", *limit)
	}
	if *concurrency < 1 {
		return kgmem.Invalidf("concurrency", "is %d, must be positive", *concurrency)
	}
	grid, err := parseGrid(*gridFlag)
	if err != nil {
		return err
	}
	convs, err := locomo.Load(*locomoData)
	if err != nil {
		return fmt.Errorf("load LoCoMo data (--locomo %s): %w", *locomoData, err)
	}
	all, err := longmemeval.Load(*lmeData)
	if err != nil {
		return fmt.Errorf("load LongMemEval data (--longmemeval %s): %w", *lmeData, err)
	}
	qs, err := selectQuestions(all, nil, *limit)
	if err != nil {
		return err
	}
	dir, err := os.MkdirTemp("", "kgmem-cv-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	for _, sub := range []string{"locomo", "longmemeval"} {
		if err := os.MkdirAll(filepath.Join(dir, sub), 0o755); err != nil {
			return err
		}
	}
	lc, err := openLocomo(ctx, filepath.Join(dir, "locomo"), convs, embedder)
	if err != nil {
		return err
	}
	defer lc.Close()
	lme, err := longmemeval.Open(ctx, filepath.Join(dir, "longmemeval"), qs, longmemeval.Config{Concurrency: *concurrency, Log: stderr, Embedder: embedder, Search: base})
	if err != nil {
		return err
	}
	defer lme.Close()

	// LoCoMo's folds: its conversations, in order of first appearance.
	locomoSet := crossval.Dataset{Name: "LoCoMo"}
	convFold := map[string]int{}
	for _, c := range lc.cases {
		if _, ok := convFold[c.Conversation]; !ok {
			convFold[c.Conversation] = len(convFold)
		}
		locomoSet.Fold = append(locomoSet.Fold, convFold[c.Conversation])
	}
	folds := len(convFold)
	// LongMemEval's questions without evidence turns have no turn recall.
	lmeSet := crossval.Dataset{Name: "LongMemEval"}
	var scored []int
	for i, c := range lme.Cases() {
		if len(c.Evidence) > 0 {
			scored = append(scored, i)
		}
	}
	lmeFold, err := longmemeval.Folds(lme.Cases(), folds)
	if err != nil {
		return err
	}
	for _, i := range scored {
		lmeSet.Fold = append(lmeSet.Fold, lmeFold[i])
	}
	points := grid.Points()
	fmt.Fprintf(stderr, "%d grid points × (%d LoCoMo + %d LongMemEval questions), %d folds\n", len(points), len(lc.cases), len(scored), folds)
	start := time.Now()
	for p, point := range points {
		opts, err := gridOptions(base, grid, point)
		if err != nil {
			return err
		}
		retrieved, err := lc.retrieve(ctx, opts, *k, *concurrency)
		if err != nil {
			return err
		}
		recall := make([]float64, len(lc.cases))
		for c, cs := range lc.cases {
			recall[c] = locomo.Recall(retrieved[c], cs.Evidence, *k)
		}
		locomoSet.Recall = append(locomoSet.Recall, recall)
		results, err := lme.Evaluate(ctx, opts, *k)
		if err != nil {
			return err
		}
		recall = make([]float64, len(scored))
		for j, i := range scored {
			recall[j] = results[i].Scores.Turn
		}
		lmeSet.Recall = append(lmeSet.Recall, recall)
		fmt.Fprintf(stderr, "grid point %d/%d (%s) in %.0fs\n", p+1, len(points), grid.Label(point), time.Since(start).Seconds())
	}
	res, err := crossval.Run(grid, []crossval.Dataset{locomoSet, lmeSet}, folds)
	if err != nil {
		return err
	}
	if err := crossval.Write(stdout, res); err != nil {
		return err
	}
	return writeJSON(*jsonOut, res)
}

// envOr is the environment variable name's value, or def when it is unset.
func envOr(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}
