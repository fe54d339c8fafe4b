package longmemeval

import (
	"context"
	"fmt"
	"io"
	"slices"
	"sync/atomic"
	"time"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/bench/locomo"
	"github.com/kgmem/kgmem/memory"
	"golang.org/x/sync/errgroup"
)

// Config tunes ingestion and searches.
type Config struct {
	// Ks are the cut-offs reported (default 5, 10); searches ask for max(Ks).
	Ks []int
	// Concurrency is the number of questions in flight (default 2).
	Concurrency int
	// Batch is the number of messages per write (default 50): in process,
	// consecutive sessions share a write (memory.Engine.IngestThreads);
	// through a server, each session of a write is one request.
	Batch int
	// Log receives progress lines; nil discards them.
	Log io.Writer
	// Progress, when set, is called after each ingest request with the
	// messages ingested so far, and after each scored search with the
	// questions asked so far, from several goroutines at once.
	Progress func(stage locomo.Stage, done, total int)
	// Embedder embeds the messages and questions in process (Open); nil is
	// the hashing embedder, a server's default.
	Embedder kgmem.Embedder
	// Search are the options of the searches Open times on fresh
	// namespaces; zero is HashingSearchOptions, a server's default.
	Search memory.SearchOptions
}

func (cfg Config) withDefaults() (Config, error) {
	if cfg.Ks == nil {
		cfg.Ks = []int{5, 10}
	}
	if cfg.Concurrency == 0 {
		cfg.Concurrency = 2
	}
	if cfg.Batch == 0 {
		cfg.Batch = 50
	}
	if err := locomo.ValidateKs(cfg.Ks); err != nil {
		return cfg, err
	}
	if cfg.Concurrency < 1 {
		return cfg, kgmem.Invalidf("concurrency", "is %d, must be at least 1", cfg.Concurrency)
	}
	if cfg.Batch < 1 {
		return cfg, kgmem.Invalidf("batch", "is %d, must be at least 1", cfg.Batch)
	}
	return cfg, nil
}

func (cfg Config) progress(stage locomo.Stage, done, total int) {
	if cfg.Progress != nil {
		cfg.Progress(stage, done, total)
	}
}

func (cfg Config) logf(format string, args ...any) {
	if cfg.Log != nil {
		fmt.Fprintf(cfg.Log, format+"\n", args...)
	}
}

// DataStats describes the questions run and what was left out of them.
type DataStats struct {
	Questions int `json:"questions"`
	// Abstention questions are neither ingested nor scored.
	Abstention int `json:"abstention"`
	// Scored counts the cases; TurnScored those with evidence turns.
	Scored     int `json:"scored"`
	TurnScored int `json:"turn_scored"`
	// Sessions and Messages are what was ingested.
	Sessions int `json:"sessions"`
	Messages int `json:"messages"`
	// EvidenceTurns counts the has_answer turns of the cases.
	EvidenceTurns int `json:"evidence_turns"`
	// EmptyTurns, TruncatedTurns and RepeatedSessions: see Haystack.
	EmptyTurns       int `json:"empty_turns"`
	TruncatedTurns   int `json:"truncated_turns"`
	RepeatedSessions int `json:"repeated_sessions"`
}

// IngestStats measures ingestion.
type IngestStats struct {
	Messages int `json:"messages"`
	Requests int `json:"requests"`
	// Episodes counts the episodes reported back (one per message).
	Episodes int `json:"episodes"`
	// Wall is the whole phase, the searches right after each question's
	// ingest included; Busy is the time spent in ingest requests, summed
	// over the questions (so over the concurrent streams).
	Wall Duration `json:"wall_seconds"`
	Busy Duration `json:"busy_seconds"`
	// PerStream is Messages / Busy: the rate of one ingest stream.
	// Overall is Messages / Wall.
	PerStream float64 `json:"messages_per_second_per_stream"`
	Overall   float64 `json:"messages_per_second"`
}

// Duration is a time.Duration that encodes as seconds in JSON.
type Duration = locomo.Duration

// Latency is the distribution of a set of search latencies.
type Latency struct {
	Searches int      `json:"searches"`
	P50      Duration `json:"p50_seconds"`
	P99      Duration `json:"p99_seconds"`
	Max      Duration `json:"max_seconds"`
}

// NewLatency summarises ds.
func NewLatency(ds []time.Duration) Latency {
	return Latency{Searches: len(ds), P50: Duration(locomo.Percentile(ds, 50)), P99: Duration(locomo.Percentile(ds, 99)), Max: Duration(locomo.Percentile(ds, 100))}
}

// FreshLatency is the latency of the first search on each namespace right
// after its ingest, and of the same search repeated at once.
type FreshLatency struct {
	First  Latency `json:"first"`
	Repeat Latency `json:"repeat"`
}

// prepared is the questions as haystacks and cases.
type prepared struct {
	cases []Case
	// hays[i] is cases[i]'s haystack.
	hays []Haystack
	data DataStats
}

func prepare(qs []Question) (prepared, error) {
	var p prepared
	p.data.Questions = len(qs)
	for _, q := range qs {
		c, ok, err := NewCase(q)
		if err != nil {
			return p, err
		}
		if !ok {
			p.data.Abstention++
			continue
		}
		h, err := BuildHaystack(q, 0)
		if err != nil {
			return p, err
		}
		p.cases, p.hays = append(p.cases, c), append(p.hays, h)
		p.data.Scored++
		if len(c.Evidence) > 0 {
			p.data.TurnScored++
		}
		p.data.EvidenceTurns += len(c.Evidence)
		p.data.Sessions += len(h.Threads)
		p.data.Messages += h.Messages()
		p.data.EmptyTurns += h.Empty
		p.data.TruncatedTurns += h.Truncated
		p.data.RepeatedSessions += h.Repeated
	}
	if len(p.cases) == 0 {
		return p, fmt.Errorf("%w: no scored question (all %d are abstention questions)", kgmem.ErrInvalid, len(qs))
	}
	return p, nil
}

// ingestAll purges and ingests every case's haystack, up to cfg.Concurrency
// questions at once, and right after each ingest searches the question
// twice (limit): the first search on the fresh namespace and its repeat.
// It returns the first searches' results.
func ingestAll(ctx context.Context, mem Memory, p prepared, limit int, cfg Config) (IngestStats, FreshLatency, [][]string, error) {
	st := IngestStats{Messages: p.data.Messages}
	first, repeat := make([]time.Duration, len(p.cases)), make([]time.Duration, len(p.cases))
	retrieved := make([][]string, len(p.cases))
	var requests, episodes, done, busy atomic.Int64
	start := time.Now()
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(cfg.Concurrency)
	for i, c := range p.cases {
		h := p.hays[i]
		g.Go(func() error {
			if err := mem.Purge(gctx, h.Namespace); err != nil {
				return fmt.Errorf("purge %s: %w", h.Namespace, err)
			}
			t0 := time.Now()
			for _, pack := range Packs(h, cfg.Batch) {
				n, reqs, err := mem.Ingest(gctx, h.Namespace, pack)
				if err != nil {
					return fmt.Errorf("ingest %s (%s…): %w", h.Namespace, pack[0].Messages[0].ID, err)
				}
				requests.Add(int64(reqs))
				episodes.Add(int64(n))
				m := 0
				for _, b := range pack {
					m += len(b.Messages)
				}
				cfg.progress(locomo.StageIngest, int(done.Add(int64(m))), st.Messages)
			}
			busy.Add(int64(time.Since(t0)))
			t1 := time.Now()
			ids, err := mem.Search(gctx, h.Namespace, c.Query, limit)
			first[i] = time.Since(t1)
			if err != nil {
				return fmt.Errorf("search %s: %w", h.Namespace, err)
			}
			t2 := time.Now()
			if _, err := mem.Search(gctx, h.Namespace, c.Query, limit); err != nil {
				return fmt.Errorf("search %s again: %w", h.Namespace, err)
			}
			repeat[i] = time.Since(t2)
			retrieved[i] = ids
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return st, FreshLatency{}, nil, err
	}
	st.Wall, st.Busy = Duration(time.Since(start)), Duration(busy.Load())
	st.Requests, st.Episodes = int(requests.Load()), int(episodes.Load())
	st.Overall = float64(st.Messages) / time.Duration(st.Wall).Seconds()
	if st.Busy > 0 {
		st.PerStream = float64(st.Messages) / time.Duration(st.Busy).Seconds()
	}
	if st.Episodes != st.Messages {
		return st, FreshLatency{}, nil, fmt.Errorf("ingest: posted %d messages but %d episodes came back", st.Messages, st.Episodes)
	}
	return st, FreshLatency{First: NewLatency(first), Repeat: NewLatency(repeat)}, retrieved, nil
}

// QuestionResult is what one search returned for one case.
type QuestionResult struct {
	QuestionID string `json:"question_id"`
	Type       string `json:"question_type"`
	// Retrieved are the message ids of the episodes found, in rank order.
	Retrieved []string `json:"retrieved"`
	// Scores are the case's figures at the cut-off searched for.
	Scores Scores `json:"scores"`
	// Latency is the search's wall time (0 for the BM25 baseline).
	Latency time.Duration `json:"latency_ns,omitempty"`
}

// results pairs cases with what was retrieved for them, scored at k.
func results(cases []Case, retrieved [][]string, latency []time.Duration, k int) []QuestionResult {
	out := make([]QuestionResult, len(cases))
	for i, c := range cases {
		out[i] = QuestionResult{QuestionID: c.QuestionID, Type: c.Type, Retrieved: retrieved[i], Scores: Score(c, retrieved[i], k)}
		if latency != nil {
			out[i].Latency = latency[i]
		}
	}
	return out
}

// Retrieved lists rs' retrieved ids, for NewTable.
func Retrieved(rs []QuestionResult) [][]string {
	out := make([][]string, len(rs))
	for i, r := range rs {
		out[i] = r.Retrieved
	}
	return out
}

// searchAll searches every case with mem at limit, cfg.Concurrency at once.
func searchAll(ctx context.Context, mem Memory, cases []Case, limit int, cfg Config) ([]QuestionResult, error) {
	retrieved := make([][]string, len(cases))
	latency := make([]time.Duration, len(cases))
	var done atomic.Int64
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(cfg.Concurrency)
	for i, c := range cases {
		g.Go(func() error {
			t0 := time.Now()
			ids, err := mem.Search(gctx, c.Namespace, c.Query, limit)
			latency[i] = time.Since(t0)
			if err != nil {
				return fmt.Errorf("search %s: %w", c.Namespace, err)
			}
			retrieved[i] = ids
			cfg.progress(locomo.StageSearch, int(done.Add(1)), len(cases))
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	return results(cases, retrieved, latency, limit), nil
}

// Result is one benchmark run: kgmem beside the BM25 baseline.
type Result struct {
	// Target is "in-process" or the server's URL.
	Target  string    `json:"target"`
	Started time.Time `json:"started"`
	Ks      []int     `json:"k"`
	// Concurrency and Batch are the run's settings.
	Concurrency int          `json:"concurrency"`
	Batch       int          `json:"batch"`
	Data        DataStats    `json:"data"`
	Ingest      IngestStats  `json:"ingest"`
	Fresh       FreshLatency `json:"fresh_latency"`
	// Search is the latency of the scored searches.
	Search   Latency `json:"search"`
	Recall   Table   `json:"recall"`
	Baseline Table   `json:"baseline_bm25"`
	// Questions are the scored searches, per case.
	Questions []QuestionResult `json:"questions"`
}

// Run benchmarks the kgmem behind mem (a server: ClientMemory) on qs: it
// purges and ingests every scored question's haystack, searches each
// question right after its ingest (the scored search, timed as the first
// search on a fresh namespace) and once more (the repeat), and scores the
// results beside the BM25 baseline. target names mem in the result.
func Run(ctx context.Context, mem Memory, target string, qs []Question, cfg Config) (*Result, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	p, err := prepare(qs)
	if err != nil {
		return nil, err
	}
	res := &Result{Target: target, Started: time.Now().UTC(), Ks: cfg.Ks, Concurrency: cfg.Concurrency, Batch: cfg.Batch, Data: p.data}
	limit := slices.Max(cfg.Ks)
	cfg.logf("ingesting %d messages of %d questions into %s/…", p.data.Messages, p.data.Scored, NamespacePrefix)
	ingest, fresh, retrieved, err := ingestAll(ctx, mem, p, limit, cfg)
	if err != nil {
		return nil, err
	}
	res.Ingest, res.Fresh = ingest, fresh
	res.Questions = results(p.cases, retrieved, nil, limit)
	res.Search = fresh.First
	if err := res.score(p, cfg.Ks); err != nil {
		return nil, err
	}
	return res, nil
}

// score fills the recall tables from res.Questions and the BM25 baseline.
func (res *Result) score(p prepared, ks []int) error {
	var err error
	if res.Recall, err = NewTable(p.cases, Retrieved(res.Questions), ks, nil); err != nil {
		return err
	}
	res.Baseline, err = NewTable(p.cases, baseline(p, slices.Max(ks)), ks, nil)
	return err
}

// baseline is the BM25 ranking of every case's haystack, first limit ids.
func baseline(p prepared, limit int) [][]string {
	out := make([][]string, len(p.cases))
	for i, c := range p.cases {
		out[i] = BM25(p.hays[i], c.Query, limit)
	}
	return out
}
