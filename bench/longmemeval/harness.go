package longmemeval

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"slices"
	"time"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/bench/embedded"
	"github.com/kgmem/kgmem/bench/locomo"
	"github.com/kgmem/kgmem/embed"
	"github.com/kgmem/kgmem/memory"
)

// BaselineLimit is how many BM25 results a Harness keeps per question: the
// largest cut-off Baseline can score.
const BaselineLimit = 100

// Harness holds every scored question's haystack ingested once into
// embedded stores in this process (the SQLite graph store and the HNSW
// index, with the hashing embedder: a server's defaults), to evaluate any
// number of search configurations on the same data. Evaluate may be called
// from several goroutines; nothing writes to the stores after Open.
type Harness struct {
	stores   *embedded.Stores
	embedder kgmem.Embedder
	cfg      Config
	log      *slog.Logger
	p        prepared
	ingest   IngestStats
	fresh    FreshLatency
	bm25     [][]string
}

// Open opens (or creates) the stores in dir and ingests every scored
// question of qs into a namespace of its own, purged first, and right after
// each ingest searches it twice with HashingSearchOptions, asking for
// max(cfg.Ks) episodes, to time the first search on a fresh namespace and
// a repeat (Fresh). It also ranks each haystack by BM25 (Baseline). Close
// the harness when done.
func Open(ctx context.Context, dir string, qs []Question, cfg Config) (_ *Harness, err error) {
	if cfg, err = cfg.withDefaults(); err != nil {
		return nil, err
	}
	p, err := prepare(qs)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("create harness directory: %w", err)
	}
	h := &Harness{cfg: cfg, p: p, embedder: cfg.Embedder, log: slog.New(slog.DiscardHandler)}
	if h.embedder == nil {
		h.embedder = embed.NewHashing(embed.DefaultHashingDim)
	}
	search := cfg.Search
	if search == (memory.SearchOptions{}) {
		search = HashingSearchOptions()
	}
	if cfg.Log != nil {
		h.log = slog.New(slog.NewTextHandler(cfg.Log, &slog.HandlerOptions{Level: slog.LevelWarn}))
	}
	defer func() {
		if err != nil {
			err = errors.Join(err, h.Close())
		}
	}()
	if h.stores, err = embedded.Open(ctx, dir, h.embedder); err != nil {
		return nil, err
	}
	engine, err := h.Engine(search)
	if err != nil {
		return nil, err
	}
	cfg.logf("ingesting %d messages of %d questions (%d sessions)", p.data.Messages, p.data.Scored, p.data.Sessions)
	if h.ingest, h.fresh, _, err = ingestAll(ctx, EngineMemory(engine), p, slices.Max(cfg.Ks), cfg); err != nil {
		return nil, err
	}
	h.bm25 = baseline(p, BaselineLimit)
	return h, nil
}

// HashingSearchOptions are the search options of a server started with its
// defaults (memory.HashingSearchOptions): the point to compare others with.
func HashingSearchOptions() memory.SearchOptions { return memory.HashingSearchOptions() }

// Engine builds an engine over the harness's stores, wired as the server
// wires it by default (decay from the namespace settings, searches that
// stop fanning out once the cores are busy, no extractor), with opts.
func (h *Harness) Engine(opts memory.SearchOptions) (*memory.Engine, error) {
	return h.stores.Engine(opts, h.log)
}

// Evaluate searches every case with an engine configured by opts, asking
// for k episodes, and scores each at k (results in Cases order).
func (h *Harness) Evaluate(ctx context.Context, opts memory.SearchOptions, k int) ([]QuestionResult, error) {
	if k < 1 || k > BaselineLimit {
		return nil, kgmem.Invalidf("k", "is %d, must be within 1..%d", k, BaselineLimit)
	}
	engine, err := h.Engine(opts)
	if err != nil {
		return nil, err
	}
	return searchAll(ctx, EngineMemory(engine), h.p.cases, k, h.cfg)
}

// Baseline is the BM25 ranking of every case's haystack, scored at k
// (1..BaselineLimit), in Cases order.
func (h *Harness) Baseline(k int) []QuestionResult {
	k = min(max(k, 1), BaselineLimit)
	top := make([][]string, len(h.bm25))
	for i, ids := range h.bm25 {
		top[i] = ids[:min(k, len(ids))]
	}
	return results(h.p.cases, top, nil, k)
}

// Cases are the scored questions, in the order of the questions given to Open.
func (h *Harness) Cases() []Case { return slices.Clone(h.p.cases) }

// Data describes the questions ingested.
func (h *Harness) Data() DataStats { return h.p.data }

// Ingest measures Open's ingestion.
func (h *Harness) Ingest() IngestStats { return h.ingest }

// Fresh is the latency of the first search on each namespace right after
// its ingest, and of its repeat.
func (h *Harness) Fresh() FreshLatency { return h.fresh }

// Result evaluates opts and reports it beside the BM25 baseline at ks.
func (h *Harness) Result(ctx context.Context, opts memory.SearchOptions, ks []int) (*Result, error) {
	if err := validateKs(ks); err != nil {
		return nil, err
	}
	started := time.Now().UTC()
	qs, err := h.Evaluate(ctx, opts, slices.Max(ks))
	if err != nil {
		return nil, err
	}
	lat := make([]time.Duration, len(qs))
	for i, q := range qs {
		lat[i] = q.Latency
	}
	res := &Result{Target: "in-process", Started: started, Ks: slices.Clone(ks), Concurrency: h.cfg.Concurrency, Batch: h.cfg.Batch,
		Data: h.p.data, Ingest: h.ingest, Fresh: h.fresh, Search: NewLatency(lat), Questions: qs}
	if res.Recall, err = NewTable(h.p.cases, Retrieved(qs), ks, nil); err != nil {
		return nil, err
	}
	if res.Baseline, err = NewTable(h.p.cases, Retrieved(h.Baseline(slices.Max(ks))), ks, nil); err != nil {
		return nil, err
	}
	return res, nil
}

// validateKs checks report cut-offs: positive, distinct, at most BaselineLimit.
func validateKs(ks []int) error {
	if err := locomo.ValidateKs(ks); err != nil {
		return err
	}
	if m := slices.Max(ks); m > BaselineLimit {
		return kgmem.Invalidf("k", "%d is above %d", m, BaselineLimit)
	}
	return nil
}

// Close closes the stores (the directory stays).
func (h *Harness) Close() error {
	if h.stores == nil {
		return nil
	}
	return h.stores.Close()
}
