package jobs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"sync"
	"time"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/episodes"
	"github.com/kgmem/kgmem/internal/serverid"
	"github.com/kgmem/kgmem/memory"
	"github.com/prometheus/client_golang/prometheus"
)

// Ingester runs one ingest; *memory.Engine is one.
type Ingester interface {
	Ingest(ctx context.Context, req memory.IngestRequest) (memory.IngestResult, error)
	Limits() episodes.Limits
	ExtractionEnabled() bool
}

// Config wires a Runner.
type Config struct {
	Engine Ingester
	// Records keeps the jobs. Nil: the SQLite file jobs.db in DataDir, which
	// the runner closes; records given here are the caller's to close.
	Records kgmem.JobRecords
	// DataDir holds jobs.db (without Records) and the file server-id, this
	// server's stable name as a job owner (without Owner).
	DataDir string
	// Owner names this server in the records: jobs it accepted or claimed
	// are held under its name, and it takes its own unfinished jobs back at
	// once when it restarts. Default: the id in DataDir/server-id, created
	// on first use.
	Owner string
	// Lease is how long a job stays held without renewal (default 15 s):
	// the runner renews its jobs' leases and looks for jobs whose lease ran
	// out (their server died) every third of it, so a dead server's jobs
	// start again elsewhere within about 1⅓ leases.
	Lease time.Duration
	// Workers bounds the engine calls running at once (default 4).
	Workers int
	// Debounce is how long a thread's first pending job waits for more to
	// coalesce with (0: run at once, coalescing only what is already queued).
	Debounce time.Duration
	// Clock defaults to the system clock.
	Clock kgmem.Clock
	// Logger defaults to slog.Default().
	Logger *slog.Logger
	// Metrics receives the queue depth gauge kgmem_jobs_queue_depth (nil: not exported).
	Metrics prometheus.Registerer
	// RetryMin and RetryMax bound the backoff of jobs that met an unavailable
	// backend (defaults 1 s and 1 min); they stay queued meanwhile.
	RetryMin, RetryMax time.Duration
}

// Runner accepts jobs and runs them in the background.
type Runner struct {
	cfg      Config
	records  kgmem.JobRecords
	ownsRecs bool // records opened by Open, closed by Close
	log      *slog.Logger
	depth    prometheus.Gauge
	work     chan []*Job

	mu      sync.Mutex
	threads map[string]*threadQueue
	held    map[string]bool // jobs scheduled here and not finished
	closed  bool

	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

// retryLater puts a group that met an unavailable backend back in the
// queue after a backoff (doubling per attempt, at most RetryMax): an outage
// delays jobs, it does not fail them.
func (r *Runner) retryLater(group []*Job, cause error) {
	attempt := group[0].attempts + 1
	delay := min(r.cfg.RetryMin<<min(attempt-1, 16), r.cfg.RetryMax)
	r.log.Warn("background ingest hit an unavailable backend; retrying", "jobs", len(group), "namespace", group[0].Namespace,
		"attempt", attempt, "retry_in", delay, "error", cause)
	ids := make([]string, len(group))
	for i, j := range group {
		j.attempts = attempt
		ids[i] = j.ID
	}
	if err := r.records.MarkQueued(context.WithoutCancel(r.ctx), ids); err != nil {
		r.log.Error("background job bookkeeping failed", "error", err)
	}
	// Back at the front of the thread's queue, so the thread keeps its order.
	key := coalesceKey(group[0])
	r.mu.Lock()
	defer r.mu.Unlock()
	q := r.threads[key]
	if q == nil || r.closed {
		return // closing: the jobs are queued in the store and run at the next start
	}
	q.pending = append(append([]*Job(nil), group...), q.pending...)
	if q.timer != nil {
		q.timer.Stop()
	}
	q.timer = time.AfterFunc(delay, func() { r.dispatch(key) })
}

// threadQueue is the pending work of one coalescing key (namespace, thread,
// extract, schema).
type threadQueue struct {
	pending []*Job
	timer   *time.Timer
	running bool
}

// Open opens the job records (by default jobs.db in cfg.DataDir), starts
// the workers, takes back the jobs this owner left queued or running and
// any other owner's whose lease ran out, and starts renewing and taking
// over leases.
func Open(ctx context.Context, cfg Config) (*Runner, error) {
	if cfg.Engine == nil {
		return nil, errors.New("jobs: Config.Engine is required")
	}
	if cfg.Workers <= 0 {
		cfg.Workers = 4
	}
	if cfg.Debounce < 0 {
		cfg.Debounce = 0
	}
	if cfg.Clock == nil {
		cfg.Clock = kgmem.SystemClock{}
	}
	if cfg.RetryMin <= 0 {
		cfg.RetryMin = time.Second
	}
	if cfg.RetryMax < cfg.RetryMin {
		cfg.RetryMax = max(time.Minute, cfg.RetryMin)
	}
	if cfg.Lease <= 0 {
		cfg.Lease = DefaultLease
	}
	log := cfg.Logger
	if log == nil {
		log = slog.Default()
	}
	if cfg.Owner == "" {
		owner, err := serverid.Read(cfg.DataDir)
		if err != nil {
			return nil, err
		}
		cfg.Owner = owner
	}
	r := &Runner{cfg: cfg, records: cfg.Records, log: log, work: make(chan []*Job), threads: map[string]*threadQueue{}, held: map[string]bool{},
		depth: prometheus.NewGauge(prometheus.GaugeOpts{Name: "kgmem_jobs_queue_depth", Help: "Background ingest jobs held by this server and not finished (queued or running)."})}
	if r.records == nil {
		recs, err := OpenFile(ctx, filepath.Join(cfg.DataDir, FileName))
		if err != nil {
			return nil, err
		}
		r.records, r.ownsRecs = recs, true
	}
	if cfg.Metrics != nil {
		if err := cfg.Metrics.Register(r.depth); err != nil {
			r.closeRecords()
			return nil, fmt.Errorf("register job metrics: %w", err)
		}
	}
	r.ctx, r.cancel = context.WithCancel(context.Background())
	for range cfg.Workers {
		r.wg.Add(1)
		go r.worker()
	}
	n, err := r.claim(ctx, true)
	if err != nil {
		r.Close()
		return nil, err
	}
	if n > 0 {
		log.Info("requeued background jobs left pending", "jobs", n)
	}
	r.wg.Add(1)
	go r.keepLeases()
	return r, nil
}

// FileName is the job records' file in a data directory (Config.DataDir).
const FileName = "jobs.db"

// errExtractionDeferred is why a job whose messages were stored but whose
// facts could not be written is retried.
var errExtractionDeferred = errors.New("extraction deferred: the graph was unavailable for the facts")

// DefaultLease is how long a job stays held without renewal.
const DefaultLease = 15 * time.Second

// claimBatch bounds the jobs one Claim takes.
const claimBatch = 256

// claim takes the jobs whose lease ran out (and, with own, this owner's)
// and schedules those not already here; it returns how many it scheduled.
func (r *Runner) claim(ctx context.Context, own bool) (int, error) {
	scheduled := 0
	for {
		recs, err := r.records.Claim(ctx, r.cfg.Owner, r.cfg.Lease, own, claimBatch)
		if err != nil {
			return scheduled, fmt.Errorf("claim background jobs: %w", err)
		}
		for _, rec := range recs {
			j, err := jobOf(rec)
			if err != nil {
				// A corrupt record cannot run; say so and leave it to the operator.
				r.log.Error("skipping a background job that cannot be read", "job", rec.ID, "error", err)
				continue
			}
			if j.Status == StatusRunning && j.request.Extract {
				// Its server stopped mid-run: the messages may be stored
				// already (they are before extraction starts), without
				// their facts. Extract from all of them.
				j.request.ExtractKnown = true
			}
			if r.schedule(&j) {
				scheduled++
			}
		}
		if len(recs) < claimBatch {
			return scheduled, nil
		}
	}
}

// keepLeases renews this owner's leases and takes over jobs whose lease ran
// out, every third of the lease, until Close.
func (r *Runner) keepLeases() {
	defer r.wg.Done()
	tick := time.NewTicker(r.cfg.Lease / 3)
	defer tick.Stop()
	for {
		select {
		case <-r.ctx.Done():
			return
		case <-tick.C:
		}
		if _, err := r.records.Renew(r.ctx, r.cfg.Owner, r.cfg.Lease); err != nil && r.ctx.Err() == nil {
			r.log.Warn("renewing background job leases failed; another server may take them over", "error", err)
		}
		n, err := r.claim(r.ctx, false)
		switch {
		case err != nil && r.ctx.Err() == nil:
			r.log.Warn("looking for background jobs to take over failed", "error", err)
		case n > 0:
			r.log.Info("took over background jobs whose server stopped renewing them", "jobs", n)
		}
	}
}

func (r *Runner) closeRecords() error {
	if r.ownsRecs {
		return r.records.Close()
	}
	return nil
}

// Close stops taking jobs, cancels those running (they stay pending in the
// records), releases their leases so another server on shared records takes
// them over at once (or this one at its next Open), and closes the records
// it opened.
func (r *Runner) Close() error {
	r.mu.Lock()
	r.closed = true
	for _, q := range r.threads {
		if q.timer != nil {
			q.timer.Stop()
		}
	}
	r.mu.Unlock()
	r.cancel()
	r.wg.Wait()
	// A lease of zero ends now: the jobs are anyone's to claim.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if _, err := r.records.Renew(ctx, r.cfg.Owner, 0); err != nil {
		r.log.Warn("releasing background job leases failed; other servers take them over when the leases run out", "error", err)
	}
	return r.closeRecords()
}

// Submit validates req as the engine will, gives every message without an
// id a fixed one (so a rerun after a crash stores nothing twice), stores the
// job durably and schedules it. Invalid input is an error wrapping
// kgmem.ErrInvalid and stores nothing.
func (r *Runner) Submit(ctx context.Context, req memory.IngestRequest) (Job, error) {
	if req.Extract && !r.cfg.Engine.ExtractionEnabled() {
		return Job{}, memory.ErrExtractionDisabled
	}
	now := r.cfg.Clock.Now().UTC().Truncate(time.Millisecond)
	id := kgmem.NewID("job")
	msgs := append([]episodes.Message(nil), req.Messages...)
	for i := range msgs {
		if msgs[i].Timestamp.IsZero() {
			msgs[i].Timestamp = now // "now" is when the message was accepted, not when the job runs
		}
	}
	eps, err := episodes.Build(req.Namespace, req.ThreadID, msgs, now, r.cfg.Engine.Limits())
	if err != nil {
		return Job{}, err
	}
	for i := range msgs {
		msgs[i].ID = eps[i].MessageID
	}
	req.Messages = msgs
	j := &Job{ID: id, Namespace: req.Namespace, ThreadID: req.ThreadID, Status: StatusQueued, CreatedAt: now,
		Progress: Progress{Messages: len(msgs)}, request: req}
	r.mu.Lock()
	closed := r.closed
	r.mu.Unlock()
	if closed {
		return Job{}, fmt.Errorf("%w: %v", kgmem.ErrUnavailable, errClosed)
	}
	rec, err := j.record()
	if err != nil {
		return Job{}, err
	}
	if err := r.records.Insert(ctx, &rec, r.cfg.Owner, r.cfg.Lease); err != nil {
		return Job{}, err
	}
	out := *j
	r.schedule(j)
	return out, nil
}

// Get returns a job of namespace ns; a job of another namespace is not found.
func (r *Runner) Get(ctx context.Context, ns kgmem.Namespace, id string) (Job, error) {
	rec, err := r.records.Get(ctx, ns, id)
	if err != nil {
		return Job{}, err
	}
	return jobOf(rec)
}

// List returns the latest jobs of ns, newest first, at most limit (1 or more).
func (r *Runner) List(ctx context.Context, ns kgmem.Namespace, limit int) ([]Job, error) {
	recs, err := r.records.Recent(ctx, ns, max(limit, 1))
	if err != nil {
		return []Job{}, err
	}
	return jobsOf(recs)
}

// coalesceKey groups jobs that may share one engine call.
func coalesceKey(j *Job) string {
	schema, _ := json.Marshal(j.request.Schema)
	return fmt.Sprintf("%s\x00%s\x00%t\x00%t\x00%s", j.Namespace, j.ThreadID, j.request.Extract, j.request.ExtractKnown, schema)
}

// schedule queues j behind its thread's pending jobs and arms the debounce
// timer when the thread is idle. It reports false for a job already here.
func (r *Runner) schedule(j *Job) bool {
	key := coalesceKey(j)
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed || r.held[j.ID] {
		return false
	}
	r.held[j.ID] = true
	r.depth.Inc()
	q := r.threads[key]
	if q == nil {
		q = &threadQueue{}
		r.threads[key] = q
	}
	q.pending = append(q.pending, j)
	r.armLocked(key, q)
	return true
}

// armLocked starts the debounce timer of an idle thread with pending jobs.
func (r *Runner) armLocked(key string, q *threadQueue) {
	if q.running || q.timer != nil || len(q.pending) == 0 || r.closed {
		return
	}
	q.timer = time.AfterFunc(r.cfg.Debounce, func() { r.dispatch(key) })
}

// dispatch hands the thread's pending jobs, up to the engine's per-call
// message limit, to a worker as one group.
func (r *Runner) dispatch(key string) {
	r.mu.Lock()
	q := r.threads[key]
	if q == nil || r.closed {
		r.mu.Unlock()
		return
	}
	q.timer = nil
	limit := r.cfg.Engine.Limits().MaxMessages
	var group []*Job
	n := 0
	for len(q.pending) > 0 && (len(group) == 0 || n+len(q.pending[0].request.Messages) <= limit) {
		n += len(q.pending[0].request.Messages)
		group = append(group, q.pending[0])
		q.pending = q.pending[1:]
	}
	q.running = true
	r.mu.Unlock()
	select {
	case r.work <- group:
	case <-r.ctx.Done():
	}
}

func (r *Runner) worker() {
	defer r.wg.Done()
	for {
		select {
		case <-r.ctx.Done():
			return
		case group := <-r.work:
			r.run(group)
			key := coalesceKey(group[0])
			r.mu.Lock()
			if q := r.threads[key]; q != nil {
				q.running = false
				if len(q.pending) == 0 {
					delete(r.threads, key)
				} else if !r.closed && q.timer == nil {
					// More arrived while this group ran: they have waited long enough.
					q.timer = time.AfterFunc(0, func() { r.dispatch(key) })
				}
			}
			r.mu.Unlock()
		}
	}
}

// run ingests a group of jobs of one thread in one engine call and records
// each job's outcome. A cancelled run (shutdown) records nothing: the jobs
// stay pending and run again at the next start.
func (r *Runner) run(group []*Job) {
	ctx := r.ctx
	now := r.cfg.Clock.Now().UTC()
	ids := make([]string, len(group))
	req := group[0].request
	if group[0].attempts > 0 && req.Extract {
		// A retry: the messages may be stored already, without facts.
		req.ExtractKnown = true
	}
	req.Messages = nil
	for i, j := range group {
		ids[i] = j.ID
		req.Messages = append(req.Messages, j.request.Messages...)
	}
	if err := r.records.MarkRunning(ctx, ids, now); err != nil {
		r.log.Error("background job bookkeeping failed", "error", err)
		return
	}
	res, err := r.cfg.Engine.Ingest(ctx, req)
	if ctx.Err() != nil {
		return
	}
	if errors.Is(err, kgmem.ErrUnavailable) {
		r.retryLater(group, err)
		return
	}
	if err == nil && len(res.Deferred) > 0 {
		// Stored, but the facts met an unavailable graph: extract again later.
		r.retryLater(group, errExtractionDeferred)
		return
	}
	finished := r.cfg.Clock.Now().UTC()
	byMessage := map[string]memory.EpisodeStatus{}
	for _, ep := range res.Episodes {
		byMessage[ep.MessageID] = ep
	}
	for _, j := range group {
		j.StartedAt, j.FinishedAt = &now, &finished
		for _, other := range ids {
			if other != j.ID {
				j.CoalescedWith = append(j.CoalescedWith, other)
			}
		}
		if err != nil {
			j.Status, j.Error = StatusFailed, err.Error()
		} else {
			own := memory.IngestResult{Facts: res.Facts, Usage: res.Usage, Warnings: res.Warnings}
			for _, m := range j.request.Messages {
				if ep, ok := byMessage[m.ID]; ok {
					own.Episodes = append(own.Episodes, ep)
				}
			}
			j.Status, j.Result = StatusSucceeded, &own
			j.Progress.Stored = len(own.Episodes)
		}
		if err := r.finish(context.WithoutCancel(ctx), j); err != nil {
			r.log.Error("recording a background job's outcome failed; it will run again at restart", "job", j.ID, "error", err)
		}
		r.mu.Lock()
		delete(r.held, j.ID)
		r.mu.Unlock()
		r.depth.Dec()
	}
	if err != nil {
		r.log.Warn("background ingest failed", "jobs", len(group), "namespace", group[0].Namespace, "error", err)
	}
}

// finish records j's outcome.
func (r *Runner) finish(ctx context.Context, j *Job) error {
	rec, err := j.record()
	if err != nil {
		return err
	}
	return r.records.Finish(ctx, rec)
}
