package locomo

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"sync/atomic"
	"time"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/api/wire"
	kgclient "github.com/kgmem/kgmem/client"
	kgepisodes "github.com/kgmem/kgmem/episodes"
	"golang.org/x/sync/errgroup"
)

// Config tunes a benchmark run.
type Config struct {
	// Ks are the recall cut-offs; searches ask for max(Ks) episodes.
	Ks []int
	// Concurrency is the number of requests in flight (ingest and search).
	Concurrency int
	// Batch is the number of messages per ingest request.
	Batch int
	// Extract asks the server to extract facts while ingesting (slow: an LLM call per batch).
	Extract bool
	// Reinforce lets searches reinforce what they return. Off by default:
	// reinforcement lets earlier questions reorder later ones, which makes
	// recall depend on the order concurrent searches happen to run in.
	Reinforce bool
	// DecayOff switches the forgetting curve off in the bench namespaces
	// (settings decay.enabled=false), to measure what decay costs recall.
	DecayOff bool
	// DecayFloor, when positive, sets the bench namespaces' decay floor (the
	// least search weight), to measure how much decay reorders.
	DecayFloor float64
	// PerRetriever adds a second pass that scores each retriever's own ranking
	// (vector alone, BM25 alone), read from the score breakdowns.
	PerRetriever bool
	// BaselineScope is the BM25 baseline's scope, reported beside kgmem.
	BaselineScope Scope
	// Log receives progress lines; nil discards them.
	Log io.Writer
	// Progress, when set, is called after each ingest request with the messages
	// ingested so far, and after each search with the questions asked so far.
	// Calls may come from several goroutines at once.
	Progress func(stage Stage, done, total int)
}

// Stage names a phase of a run in Progress callbacks.
type Stage string

// Run stages.
const (
	StageIngest Stage = "ingest"
	StageSearch Stage = "search"
)

func (cfg Config) progress(stage Stage, done, total int) {
	if cfg.Progress != nil {
		cfg.Progress(stage, done, total)
	}
}

func (cfg Config) validate() error {
	if err := ValidateKs(cfg.Ks); err != nil {
		return err
	}
	if cfg.Concurrency < 1 {
		return kgmem.Invalidf("concurrency", "is %d, must be at least 1", cfg.Concurrency)
	}
	if cfg.Batch < 1 {
		return kgmem.Invalidf("batch", "is %d, must be at least 1", cfg.Batch)
	}
	_, err := ParseScope(string(cfg.BaselineScope))
	return err
}

// IngestStats measures ingestion through POST /v1/memories.
type IngestStats struct {
	Messages int `json:"messages"`
	Requests int `json:"requests"`
	// Episodes counts the episodes the server reported back.
	Episodes int `json:"episodes"`
	// FactChanges counts the fact changes extraction reported (0 without --extract).
	FactChanges int `json:"fact_changes"`
	// Warnings counts server warnings; FirstWarning is one of them.
	Warnings          int      `json:"warnings"`
	FirstWarning      string   `json:"first_warning,omitempty"`
	Wall              Duration `json:"wall_seconds"`
	MessagesPerSecond float64  `json:"messages_per_second"`
}

// SearchStats measures POST /v1/search.
type SearchStats struct {
	Queries int      `json:"queries"`
	Wall    Duration `json:"wall_seconds"`
	QPS     float64  `json:"qps"`
	P50     Duration `json:"p50_seconds"`
	P99     Duration `json:"p99_seconds"`
	Max     Duration `json:"max_seconds"`
	// Empty counts searches that returned no episode at all.
	Empty int `json:"empty"`
}

// Duration is a time.Duration that encodes as seconds in JSON.
type Duration time.Duration

// MarshalJSON encodes d as a number of seconds.
func (d Duration) MarshalJSON() ([]byte, error) {
	return fmt.Appendf(nil, "%.6f", time.Duration(d).Seconds()), nil
}

// UnmarshalJSON decodes a number of seconds, so that a written result reads back.
func (d *Duration) UnmarshalJSON(b []byte) error {
	var s float64
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("duration: %w", err)
	}
	*d = Duration(math.Round(s * float64(time.Second)))
	return nil
}

// Result is a full benchmark run: kgmem beside the BM25 baseline.
type Result struct {
	URL     string      `json:"url"`
	Started time.Time   `json:"started"`
	Config  RunConfig   `json:"config"`
	Data    DataStats   `json:"data"`
	Ingest  IngestStats `json:"ingest"`
	Search  SearchStats `json:"search"`
	Recall  RecallTable `json:"recall"`
	// Retrievers holds, with Config.PerRetriever, each retriever's own recall.
	Retrievers map[string]RecallTable `json:"retrievers,omitempty"`
	Baseline   RecallTable            `json:"baseline_bm25"`
	// Anchors are the data set README's BM25 figures, by k.
	Anchors map[int]float64 `json:"anchors"`
}

// RunConfig is the part of Config recorded in a Result.
type RunConfig struct {
	Ks            []int   `json:"k"`
	Concurrency   int     `json:"concurrency"`
	Batch         int     `json:"batch"`
	Extract       bool    `json:"extract"`
	Reinforce     bool    `json:"reinforce"`
	DecayOff      bool    `json:"decay_off"`
	DecayFloor    float64 `json:"decay_floor,omitempty"`
	PerRetriever  bool    `json:"per_retriever,omitempty"`
	BaselineScope Scope   `json:"baseline_scope"`
}

// Run benchmarks the kgmem server behind client on convs: it purges the
// conversations' namespaces, ingests every turn, asks every scored question,
// and scores evidence recall beside the BM25 baseline.
func Run(ctx context.Context, client *kgclient.Client, convs []Conversation, cfg Config) (*Result, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	logf := func(format string, args ...any) {
		if cfg.Log != nil {
			fmt.Fprintf(cfg.Log, format+"\n", args...)
		}
	}
	res := &Result{
		URL: client.BaseURL(), Started: time.Now().UTC(), Anchors: Anchors,
		Config: RunConfig{Ks: slices.Clone(cfg.Ks), Concurrency: cfg.Concurrency, Batch: cfg.Batch, Extract: cfg.Extract, Reinforce: cfg.Reinforce, DecayOff: cfg.DecayOff, DecayFloor: cfg.DecayFloor, PerRetriever: cfg.PerRetriever, BaselineScope: cfg.BaselineScope},
	}
	baseline, stats, err := Baseline(convs, cfg.Ks, cfg.BaselineScope)
	if err != nil {
		return nil, fmt.Errorf("bm25 baseline: %w", err)
	}
	res.Baseline, res.Data = baseline, stats

	if _, err := client.Healthz(ctx); err != nil {
		return nil, fmt.Errorf("health check: %w", err)
	}
	var threads []Thread
	for _, conv := range convs {
		ts, err := Threads(conv)
		if err != nil {
			return nil, err
		}
		threads = append(threads, ts...)
		ns, err := Namespace(conv.ID)
		if err != nil {
			return nil, err
		}
		if _, err := client.PurgeNamespace(ctx, ns); err != nil && !errors.Is(err, kgmem.ErrNotFound) {
			return nil, fmt.Errorf("purge %s: %w", ns, err)
		}
		if params := cfg.decayParams(); params != nil {
			raw, err := json.Marshal(params)
			if err != nil {
				return nil, err
			}
			if _, err := client.PutSettings(ctx, ns, wire.Settings{Decay: raw}); err != nil {
				return nil, fmt.Errorf("set decay parameters of %s: %w", ns, err)
			}
		}
	}
	logf("purged %d namespaces under %s; ingesting %d turns in %d threads", len(convs), NamespacePrefix, stats.Turns, len(threads))

	if res.Ingest, err = ingest(ctx, client, threads, cfg); err != nil {
		return nil, err
	}
	logf("ingested %d messages in %.1fs (%.1f messages/s, %d requests)", res.Ingest.Messages, time.Duration(res.Ingest.Wall).Seconds(), res.Ingest.MessagesPerSecond, res.Ingest.Requests)

	cases, _ := Cases(convs)
	retrieved, search, err := searchAll(ctx, client, cases, cfg)
	if err != nil {
		return nil, err
	}
	res.Search = search
	logf("asked %d questions in %.1fs (%.1f queries/s)", search.Queries, time.Duration(search.Wall).Seconds(), search.QPS)

	acc, err := NewRecallAccumulator(cfg.Ks)
	if err != nil {
		return nil, err
	}
	for i, c := range cases {
		acc.Add(c.Category, retrieved[i], c.Evidence)
	}
	res.Recall = acc.Table()
	if cfg.PerRetriever {
		if res.Retrievers, err = retrieverRecall(ctx, client, cases, cfg); err != nil {
			return nil, err
		}
	}
	return res, nil
}

// decayParams are the namespace decay settings the run asks for, nil for the defaults.
func (cfg Config) decayParams() map[string]any {
	params := map[string]any{}
	if cfg.DecayOff {
		params["enabled"] = false
	}
	if cfg.DecayFloor > 0 {
		params["floor"] = cfg.DecayFloor
	}
	if len(params) == 0 {
		return nil
	}
	return params
}

// ingest posts every thread, its batches in order, up to cfg.Concurrency threads at once.
func ingest(ctx context.Context, client *kgclient.Client, threads []Thread, cfg Config) (IngestStats, error) {
	var st IngestStats
	var (
		requests, episodes, facts, warnings, done atomic.Int64
		firstWarning                              atomic.Value
	)
	for _, th := range threads {
		st.Messages += len(th.Messages)
	}
	start := time.Now()
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(cfg.Concurrency)
	for _, th := range threads {
		g.Go(func() error {
			for _, batch := range Batches(th.Messages, cfg.Batch) {
				out, _, err := client.AddMemories(gctx, wire.MemoriesRequest{Namespace: th.Namespace, ThreadID: th.ID, Messages: kgepisodes.WireMessages(batch), Extract: cfg.Extract})
				if err != nil {
					return fmt.Errorf("ingest %s %s (%s…): %w", th.Namespace, th.ID, batch[0].ID, err)
				}
				requests.Add(1)
				episodes.Add(int64(len(out.Episodes)))
				facts.Add(int64(len(out.Facts)))
				if len(out.Warnings) > 0 {
					warnings.Add(int64(len(out.Warnings)))
					firstWarning.CompareAndSwap(nil, out.Warnings[0])
				}
				cfg.progress(StageIngest, int(done.Add(int64(len(batch)))), st.Messages)
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return st, err
	}
	wall := time.Since(start)
	st.Requests, st.Episodes = int(requests.Load()), int(episodes.Load())
	st.FactChanges, st.Warnings = int(facts.Load()), int(warnings.Load())
	if w, ok := firstWarning.Load().(string); ok {
		st.FirstWarning = w
	}
	st.Wall = Duration(wall)
	st.MessagesPerSecond = float64(st.Messages) / wall.Seconds()
	if st.Episodes != st.Messages {
		return st, fmt.Errorf("ingest: posted %d messages but the server reported %d episodes", st.Messages, st.Episodes)
	}
	return st, nil
}

// searchAll asks every case's question and returns the dia_ids of the episodes
// found, in rank order, per case.
func searchAll(ctx context.Context, client *kgclient.Client, cases []Case, cfg Config) ([][]string, SearchStats, error) {
	if len(cases) == 0 {
		return nil, SearchStats{}, fmt.Errorf("search: %w: no scored question in the data", kgmem.ErrInvalid)
	}
	limit := slices.Max(cfg.Ks)
	retrieved := make([][]string, len(cases))
	latency := make([]time.Duration, len(cases))
	var done atomic.Int64
	start := time.Now()
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(cfg.Concurrency)
	for i, c := range cases {
		ns, err := Namespace(c.Conversation)
		if err != nil {
			return nil, SearchStats{}, err
		}
		g.Go(func() error {
			t0 := time.Now()
			out, err := client.Search(gctx, wire.SearchRequest{Namespace: ns, Query: c.Text, Limit: limit, Include: []string{"episodes"}, Reinforce: &cfg.Reinforce})
			latency[i] = time.Since(t0)
			if err != nil {
				return fmt.Errorf("search %s question %d: %w", ns, c.Question, err)
			}
			ids := make([]string, 0, len(out.Episodes))
			for _, ep := range out.Episodes {
				ids = append(ids, ep.MessageID)
			}
			retrieved[i] = ids
			cfg.progress(StageSearch, int(done.Add(1)), len(cases))
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, SearchStats{}, err
	}
	wall := time.Since(start)
	st := SearchStats{Queries: len(cases), Wall: Duration(wall), QPS: float64(len(cases)) / wall.Seconds()}
	st.P50, st.P99, st.Max = Duration(Percentile(latency, 50)), Duration(Percentile(latency, 99)), Duration(Percentile(latency, 100))
	for _, ids := range retrieved {
		if len(ids) == 0 {
			st.Empty++
		}
	}
	return retrieved, st, nil
}

// Percentile is the nearest-rank p-th percentile (0 < p ≤ 100) of ds; 0 for none.
func Percentile(ds []time.Duration, p float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	rank := int(math.Ceil(p / 100 * float64(len(s))))
	rank = min(max(rank, 1), len(s))
	return s[rank-1]
}
