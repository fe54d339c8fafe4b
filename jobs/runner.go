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
	// DataDir holds the job store, jobs.db.
	DataDir string
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
	cfg   Config
	store *store
	log   *slog.Logger
	depth prometheus.Gauge
	work  chan []*Job

	mu      sync.Mutex
	threads map[string]*threadQueue
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
	if err := r.store.markQueued(context.WithoutCancel(r.ctx), ids); err != nil {
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

// Open opens (or creates) the job store in cfg.DataDir, starts the workers
// and requeues the jobs a previous process left queued or running.
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
	log := cfg.Logger
	if log == nil {
		log = slog.Default()
	}
	st, err := openStore(ctx, filepath.Join(cfg.DataDir, "jobs.db"))
	if err != nil {
		return nil, err
	}
	r := &Runner{cfg: cfg, store: st, log: log, work: make(chan []*Job), threads: map[string]*threadQueue{},
		depth: prometheus.NewGauge(prometheus.GaugeOpts{Name: "kgmem_jobs_queue_depth", Help: "Background ingest jobs accepted and not finished (queued or running)."})}
	if cfg.Metrics != nil {
		if err := cfg.Metrics.Register(r.depth); err != nil {
			st.close()
			return nil, fmt.Errorf("register job metrics: %w", err)
		}
	}
	r.ctx, r.cancel = context.WithCancel(context.Background())
	for range cfg.Workers {
		r.wg.Add(1)
		go r.worker()
	}
	pending, err := st.pending(ctx)
	if err != nil {
		r.Close()
		return nil, err
	}
	for i := range pending {
		r.schedule(&pending[i])
	}
	if len(pending) > 0 {
		log.Info("requeued background jobs left pending", "jobs", len(pending))
	}
	return r, nil
}

// Close stops taking jobs, cancels those running (they stay pending in the
// store and run again at the next Open) and closes the store.
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
	return r.store.close()
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
	if err := r.store.insert(ctx, j); err != nil {
		return Job{}, err
	}
	out := *j
	r.schedule(j)
	return out, nil
}

// Get returns a job of namespace ns; a job of another namespace is not found.
func (r *Runner) Get(ctx context.Context, ns kgmem.Namespace, id string) (Job, error) {
	return r.store.get(ctx, ns, id)
}

// List returns the latest jobs of ns, newest first, at most limit (1 or more).
func (r *Runner) List(ctx context.Context, ns kgmem.Namespace, limit int) ([]Job, error) {
	jobs, err := r.store.recent(ctx, ns, max(limit, 1))
	if jobs == nil {
		jobs = []Job{}
	}
	return jobs, err
}

// coalesceKey groups jobs that may share one engine call.
func coalesceKey(j *Job) string {
	schema, _ := json.Marshal(j.request.Schema)
	return fmt.Sprintf("%s\x00%s\x00%t\x00%s", j.Namespace, j.ThreadID, j.request.Extract, schema)
}

// schedule queues j behind its thread's pending jobs and arms the debounce
// timer when the thread is idle.
func (r *Runner) schedule(j *Job) {
	r.depth.Inc()
	key := coalesceKey(j)
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return
	}
	q := r.threads[key]
	if q == nil {
		q = &threadQueue{}
		r.threads[key] = q
	}
	q.pending = append(q.pending, j)
	r.armLocked(key, q)
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
	req.Messages = nil
	for i, j := range group {
		ids[i] = j.ID
		req.Messages = append(req.Messages, j.request.Messages...)
	}
	if err := r.store.markRunning(ctx, ids, now); err != nil {
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
		if err := r.store.finish(context.WithoutCancel(ctx), j); err != nil {
			r.log.Error("recording a background job's outcome failed; it will run again at restart", "job", j.ID, "error", err)
		}
		r.depth.Dec()
	}
	if err != nil {
		r.log.Warn("background ingest failed", "jobs", len(group), "namespace", group[0].Namespace, "error", err)
	}
}
