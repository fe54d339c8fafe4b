package importer

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/chatlog"
	"github.com/kgmem/kgmem/episodes"
	"github.com/kgmem/kgmem/memory"
	"golang.org/x/time/rate"
)

// Config tunes an import.
type Config struct {
	// Sink stores the batches (required unless DryRun).
	Sink Sink
	// Concurrency is how many threads are ingested at once (default 4).
	Concurrency int
	// Batch is the most messages per request (default 50).
	Batch int
	// Extract asks for fact extraction with the server's LLM.
	Extract bool
	// RPM and TPM cap LLM requests and tokens per minute (0: no cap). They
	// apply when Extract is set: before a batch one request and an estimate of
	// its tokens are waited for; what the answer reports beyond that is
	// charged to the following batches.
	RPM, TPM int
	// Checkpoint records progress (nil: none, every record is sent).
	Checkpoint *Checkpoint
	// SaveEvery is how often the checkpoint is saved while running (default 1 s);
	// it is always saved at the end.
	SaveEvery time.Duration
	// Errors receives one JSON line per bad record and per message of a
	// failed batch (nil: discarded).
	Errors io.Writer
	// DryRun reads and validates everything and sends nothing.
	DryRun bool
	// MaxOpenThreads bounds the threads with a partly filled batch; past it,
	// every open batch is sent (default 256).
	MaxOpenThreads int
}

func (c Config) withDefaults() Config {
	if c.Concurrency <= 0 {
		c.Concurrency = 4
	}
	if c.Batch <= 0 {
		c.Batch = 50
	}
	if c.SaveEvery <= 0 {
		c.SaveEvery = time.Second
	}
	if c.MaxOpenThreads <= 0 {
		c.MaxOpenThreads = 256
	}
	return c
}

// Stats are an import's running counters; read them while it runs with Snapshot.
type Stats struct {
	// Read counts valid records read.
	Read int64 `json:"read"`
	// Resumed counts records skipped because the checkpoint has them.
	Resumed int64 `json:"resumed"`
	// Bad counts records that could not be read or validated.
	Bad int64 `json:"bad"`
	// Sent counts messages posted (or, in a dry run, that would be).
	Sent int64 `json:"sent"`
	// Created counts messages stored as new episodes.
	Created int64 `json:"created"`
	// Existing counts messages already stored before (idempotent re-posts).
	Existing int64 `json:"existing"`
	// Failed counts messages in batches that failed (see the errors file).
	Failed int64 `json:"failed"`
	// Batches counts requests that succeeded.
	Batches int64 `json:"batches"`
	// Facts counts fact changes (any operation).
	Facts            int64 `json:"facts"`
	LLMCalls         int64 `json:"llm_calls"`
	PromptTokens     int64 `json:"prompt_tokens"`
	CompletionTokens int64 `json:"completion_tokens"`
	// Warnings counts batches the server answered with warnings (for example
	// an extraction that failed: episodes kept without facts).
	Warnings int64 `json:"warnings"`
}

// Summary is what an import did, printed as JSON at the end.
type Summary struct {
	Format string `json:"format"`
	DryRun bool   `json:"dry_run,omitempty"`
	Stats
	// FactOps counts fact changes by operation.
	FactOps map[string]int64 `json:"fact_ops"`
	// Threads counts the threads read.
	Threads int `json:"threads"`
	// Namespaces lists, in a dry run, the messages per namespace and thread
	// that would be sent.
	Namespaces      map[string]map[string]int `json:"namespaces,omitempty"`
	ElapsedSeconds  float64                   `json:"elapsed_seconds"`
	MessagesPerSec  float64                   `json:"messages_per_second"`
	FirstWarning    string                    `json:"first_warning,omitempty"`
	CheckpointSaved bool                      `json:"checkpoint_saved"`
}

// Importer runs one import.
type Importer struct {
	cfg   Config
	rpm   *rate.Limiter
	tpm   *rate.Limiter
	errMu sync.Mutex
	// firstBad is the first bad record's position and reason (under errMu).
	firstBad string
	factMu   sync.Mutex
	factOps  map[string]int64
	warning  string
	// resuming is set when the checkpoint holds progress: the run before may
	// have stored messages past it without their facts (messages are stored
	// before extraction), so extraction covers known messages too.
	resuming bool

	read, resumed, bad, sent, created, existing, failed, batches atomic.Int64
	facts, llmCalls, promptTokens, completionTokens, warnings    atomic.Int64
}

// New returns an importer.
func New(cfg Config) (*Importer, error) {
	cfg = cfg.withDefaults()
	if cfg.Sink == nil && !cfg.DryRun {
		return nil, errors.New("importer: Config.Sink is required")
	}
	if cfg.Checkpoint == nil {
		cfg.Checkpoint, _ = LoadCheckpoint("") // never fails for an empty path
	}
	im := &Importer{cfg: cfg, factOps: map[string]int64{}, resuming: cfg.Checkpoint.Total() > 0}
	// Bursts are one second of requests and ten seconds of tokens: paced,
	// rather than a minute's allowance spent at once and then a 429 storm.
	if cfg.RPM > 0 {
		im.rpm = rate.NewLimiter(rate.Limit(float64(cfg.RPM)/60), max(1, cfg.RPM/60))
	}
	if cfg.TPM > 0 {
		im.tpm = rate.NewLimiter(rate.Limit(float64(cfg.TPM)/60), max(1, cfg.TPM/6))
	}
	return im, nil
}

// Snapshot returns the counters so far.
func (im *Importer) Snapshot() Stats {
	return Stats{
		Read: im.read.Load(), Resumed: im.resumed.Load(), Bad: im.bad.Load(), Sent: im.sent.Load(),
		Created: im.created.Load(), Existing: im.existing.Load(), Failed: im.failed.Load(), Batches: im.batches.Load(),
		Facts: im.facts.Load(), LLMCalls: im.llmCalls.Load(), PromptTokens: im.promptTokens.Load(),
		CompletionTokens: im.completionTokens.Load(), Warnings: im.warnings.Load(),
	}
}

// batch is consecutive records of one thread.
type batch struct {
	key       string
	ns        kgmem.Namespace
	thread    string
	recs      []chatlog.Record
	endsAfter int // the thread's record count once this batch is stored
}

// Run reads r to the end and ingests it. Bad records and failed batches are
// reported to Config.Errors and counted, never fatal; the error is for what
// stops the run (a broken input stream, a cancelled ctx, a checkpoint that
// cannot be saved).
func (im *Importer) Run(ctx context.Context, r chatlog.Reader) (Summary, error) {
	start := time.Now()
	cfg := im.cfg
	if err := cfg.Checkpoint.checkFormat(string(r.Format())); err != nil {
		return Summary{}, err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	sched := newScheduler(ctx, 2*cfg.Concurrency)
	var wg sync.WaitGroup
	for range cfg.Concurrency {
		wg.Add(1)
		go func() {
			defer wg.Done()
			im.work(ctx, sched)
		}()
	}
	saveErr := make(chan error, 1)
	stopSaver := make(chan struct{})
	saverDone := make(chan struct{})
	go func() {
		defer close(saverDone)
		tick := time.NewTicker(cfg.SaveEvery)
		defer tick.Stop()
		for {
			select {
			case <-stopSaver:
				return
			case <-tick.C:
				if err := cfg.Checkpoint.Save(); err != nil {
					saveErr <- err
					cancel()
					return
				}
			}
		}
	}()

	seen := map[string]int{} // records per thread so far, resumed ones included
	open := map[string]*batch{}
	var dry map[string]map[string]int
	if cfg.DryRun {
		dry = map[string]map[string]int{}
	}
	send := sched.push
	flushAll := func() bool {
		keys := make([]string, 0, len(open))
		for k := range open {
			keys = append(keys, k)
		}
		sort.Strings(keys) // deterministic batching, run after run
		for _, k := range keys {
			if !send(open[k]) {
				return false
			}
			delete(open, k)
		}
		return true
	}
	var runErr error
read:
	for {
		if ctx.Err() != nil {
			break
		}
		rec, err := r.Next()
		switch {
		case err == io.EOF:
			break read
		case chatlog.IsRecordError(err):
			im.bad.Add(1)
			var re *chatlog.RecordError
			errors.As(err, &re)
			im.noteFirstBad(re.Pos, re.Err)
			im.reportError(re.Pos, re.Err)
			continue
		case err != nil:
			runErr = fmt.Errorf("read input: %w", err)
			break read
		}
		im.read.Add(1)
		key := threadKey(string(rec.Namespace), rec.ThreadID)
		seen[key]++
		if seen[key] <= cfg.Checkpoint.Done(string(rec.Namespace), rec.ThreadID) {
			im.resumed.Add(1)
			continue
		}
		if cfg.DryRun {
			im.sent.Add(1)
			if dry[string(rec.Namespace)] == nil {
				dry[string(rec.Namespace)] = map[string]int{}
			}
			dry[string(rec.Namespace)][rec.ThreadID]++
			continue
		}
		b := open[key]
		if b == nil {
			b = &batch{key: key, ns: rec.Namespace, thread: rec.ThreadID}
			open[key] = b
		}
		b.recs = append(b.recs, rec)
		b.endsAfter = seen[key]
		if len(b.recs) >= cfg.Batch {
			delete(open, key)
			if !send(b) {
				break read
			}
		}
		if len(open) > cfg.MaxOpenThreads && !flushAll() {
			break read
		}
	}
	if runErr == nil && ctx.Err() == nil {
		flushAll()
	}
	sched.close()
	wg.Wait()
	close(stopSaver)
	<-saverDone
	select {
	case err := <-saveErr:
		runErr = errors.Join(runErr, err)
	default:
	}
	saveFinal := cfg.Checkpoint.Save()
	runErr = errors.Join(runErr, saveFinal)
	if runErr == nil && ctx.Err() != nil {
		runErr = ctx.Err()
	}

	elapsed := time.Since(start)
	s := Summary{Format: string(r.Format()), DryRun: cfg.DryRun, Stats: im.Snapshot(), Namespaces: dry,
		ElapsedSeconds: elapsed.Seconds(), CheckpointSaved: saveFinal == nil && cfg.Checkpoint.path != ""}
	s.Threads = len(seen)
	im.factMu.Lock()
	s.FactOps, s.FirstWarning = im.factOps, im.warning
	im.factMu.Unlock()
	if sec := elapsed.Seconds(); sec > 0 {
		s.MessagesPerSec = float64(s.Sent) / sec
	}
	return s, runErr
}

// work ingests batches as the scheduler hands them out (a thread's in
// order, one at a time). A failed batch is reported and stops its thread for
// this run, so the checkpoint never runs ahead of what is stored and the
// next run retries from there. (Each record was validated on reading, so a
// rejected batch means a server-side cause: a missing LLM, a lower limit, a
// key without rights, an outage.)
//
// Without extraction, and with a ThreadsSink, a write carries the batch
// popped and as many other ready batches of its namespace as fit in
// Config.Batch messages (scheduler.popAlong); they succeed or fail
// together.
func (im *Importer) work(ctx context.Context, sched *scheduler) {
	threads, _ := im.cfg.Sink.(ThreadsSink)
	for {
		b, ok := sched.pop()
		if !ok {
			return
		}
		if sched.isBroken(b.key) || ctx.Err() != nil {
			im.failed.Add(int64(len(b.recs)))
			sched.done(b, false)
			continue
		}
		group := []*batch{b}
		var err error
		if threads != nil && !im.cfg.Extract {
			group = append(group, sched.popAlong(b.ns, im.cfg.Batch-len(b.recs))...)
			err = im.ingestThreads(ctx, threads, group)
		} else {
			err = im.ingest(ctx, b)
		}
		for _, b := range group {
			if err == nil {
				im.cfg.Checkpoint.advance(b.key, b.endsAfter)
			} else {
				im.failed.Add(int64(len(b.recs)))
				if ctx.Err() == nil {
					for _, rec := range b.recs {
						im.reportError(rec.Pos, fmt.Errorf("batch failed; the thread stops here until the next run: %w", err))
					}
				}
			}
			sched.done(b, err != nil)
		}
	}
}

// request is the ingest request of b.
func (im *Importer) request(b *batch) memory.IngestRequest {
	req := memory.IngestRequest{Namespace: b.ns, ThreadID: b.thread, Extract: im.cfg.Extract, ExtractKnown: im.cfg.Extract && im.resuming,
		Messages: make([]episodes.Message, len(b.recs))}
	for i, rec := range b.recs {
		req.Messages[i] = rec.Message
	}
	return req
}

// ingestThreads sends the batches of group, all of one namespace and none
// extracting, in one write.
func (im *Importer) ingestThreads(ctx context.Context, sink ThreadsSink, group []*batch) error {
	reqs := make([]memory.IngestRequest, len(group))
	for i, b := range group {
		reqs[i] = im.request(b)
	}
	results, err := sink.IngestThreads(ctx, group[0].ns, reqs)
	if err != nil {
		return err
	}
	if len(results) != len(group) {
		return fmt.Errorf("the sink answered %d results for %d threads", len(results), len(group))
	}
	for i, res := range results {
		im.account(len(group[i].recs), res)
	}
	return nil
}

// ingest waits for the rate limits and sends one batch.
func (im *Importer) ingest(ctx context.Context, b *batch) error {
	req := im.request(b)
	estimate := 400 // the extraction prompt's fixed part, in tokens
	for _, m := range req.Messages {
		estimate += len(m.Content)/4 + 8
	}
	if im.cfg.Extract {
		if err := wait(ctx, im.rpm, 1); err != nil {
			return err
		}
		if err := wait(ctx, im.tpm, estimate); err != nil {
			return err
		}
	}
	res, err := im.cfg.Sink.Ingest(ctx, req)
	if err != nil {
		return err
	}
	im.account(len(b.recs), res)
	// Charge what the answer spent beyond the advance.
	charge(im.rpm, res.Usage.Calls-1)
	charge(im.tpm, res.Usage.PromptTokens+res.Usage.CompletionTokens-estimate)
	return nil
}

// account adds what storing a batch of sent messages reported to the stats.
func (im *Importer) account(sent int, res memory.IngestResult) {
	im.batches.Add(1)
	im.sent.Add(int64(sent))
	for _, ep := range res.Episodes {
		if ep.Created {
			im.created.Add(1)
		} else {
			im.existing.Add(1)
		}
	}
	im.facts.Add(int64(len(res.Facts)))
	im.llmCalls.Add(int64(res.Usage.Calls))
	im.promptTokens.Add(int64(res.Usage.PromptTokens))
	im.completionTokens.Add(int64(res.Usage.CompletionTokens))
	im.factMu.Lock()
	for _, f := range res.Facts {
		im.factOps[string(f.Op)]++
	}
	if len(res.Warnings) > 0 {
		im.warnings.Add(1)
		if im.warning == "" {
			im.warning = res.Warnings[0]
		}
	}
	im.factMu.Unlock()
}

// wait takes n tokens from l (capped at its burst); nil l never waits.
func wait(ctx context.Context, l *rate.Limiter, n int) error {
	if l == nil || n <= 0 {
		return nil
	}
	if err := l.WaitN(ctx, min(n, l.Burst())); err != nil {
		return fmt.Errorf("rate limit: %w", err)
	}
	return nil
}

// charge books n more tokens on l without waiting: the next waits pay for them.
func charge(l *rate.Limiter, n int) {
	if l == nil || n <= 0 {
		return
	}
	l.ReserveN(time.Now(), min(n, l.Burst()))
}

// errorLine is one line of the errors file.
type errorLine struct {
	Position string `json:"position"`
	Line     int    `json:"line,omitempty"`
	Item     *int   `json:"item,omitempty"`
	Message  *int   `json:"message,omitempty"`
	Error    string `json:"error"`
}

// noteFirstBad keeps the first bad record's position and reason.
func (im *Importer) noteFirstBad(pos chatlog.Position, err error) {
	im.errMu.Lock()
	defer im.errMu.Unlock()
	if im.firstBad == "" {
		im.firstBad = pos.String() + ": " + err.Error()
	}
}

// FirstBad returns the position and reason of the first bad record the
// run met ("" when every record was valid), for a summary on stderr.
func (im *Importer) FirstBad() string {
	im.errMu.Lock()
	defer im.errMu.Unlock()
	return im.firstBad
}

func (im *Importer) reportError(pos chatlog.Position, err error) {
	if im.cfg.Errors == nil {
		return
	}
	e := errorLine{Position: pos.String(), Line: pos.Line, Error: err.Error()}
	if pos.HasItem {
		item, msg := pos.Item, pos.Message
		e.Item, e.Message = &item, &msg
	}
	raw, _ := json.Marshal(e) // strings and ints always encode
	im.errMu.Lock()
	defer im.errMu.Unlock()
	_, _ = im.cfg.Errors.Write(append(raw, '\n')) // a full disk shows in the summary's counts anyway
}
