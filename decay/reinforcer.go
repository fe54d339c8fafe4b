package decay

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/kgmem/kgmem"
	wal "github.com/kgmem/kgmem/internal/journal"
	"github.com/samber/lo"
)

// Reinforcer defaults.
const (
	DefaultReinforceInterval = 5 * time.Second
	DefaultReinforceBatch    = 65536
	DefaultApplyTimeout      = 30 * time.Second
)

// ReinforcerConfig configures a Reinforcer.
type ReinforcerConfig struct {
	// Store is where decay states are read and written. Required.
	Store kgmem.GraphStore
	// JournalPath is the file that makes queued reinforcements survive a crash.
	// Its directory is created if needed. Required.
	JournalPath string
	// Models gives each namespace's model; nil means StoreModels(Store).
	Models ModelFunc
	// Clock stamps each Enqueue; nil means kgmem.SystemClock.
	Clock kgmem.Clock
	// Interval between background applies; 0 means DefaultReinforceInterval.
	Interval time.Duration
	// BatchSize is the number of queued refs that triggers an apply before the
	// interval is up, bounding the queue's memory; 0 means
	// DefaultReinforceBatch. An apply writes each recalled record once, so
	// the fewer applies, the fewer writes of records recalled again and again.
	BatchSize int
	// ApplyTimeout bounds one background apply; 0 means DefaultApplyTimeout.
	ApplyTimeout time.Duration
	// Logger reports background failures; nil means slog.Default().
	Logger *slog.Logger
	// Lock, when set, is held for a namespace while an apply reads and
	// writes its decay states. Give it the locker the other writers of the
	// namespace use (the engine's Config.WriteLocks) so that neither
	// overwrites the other's update. nil: no lock, the last writer wins.
	Lock kgmem.NamespaceLocker
}

// Reinforcer applies reinforcements (recalls, restatements) off the request
// path, durably. Enqueue appends to a journal file, fsyncs it and returns; a
// background goroutine applies the queue (Model.Reinforce on the current state,
// then GraphStore.SetDecay) every Interval or when BatchSize refs are waiting,
// and then drops the applied entries from the journal. A new Reinforcer replays
// the journal its predecessor left, so a crash loses no reinforcement; one that
// was applied just before a crash may be applied twice (at least once).
//
// Each queued reinforcement keeps the time it was enqueued at, so a backlog
// applied late still reinforces at the right times. Refs whose records were
// deleted meanwhile are dropped. The store is written with SetDecay only,
// under ReinforcerConfig.Lock when one is set; without it a concurrent
// upsert of the same record by the engine may overwrite one reinforcement
// (last writer wins).
//
// All methods are safe for concurrent use. One journal file serves one
// Reinforcer at a time: give each process its own path.
type Reinforcer struct {
	cfg    ReinforcerConfig
	models ModelFunc
	clock  kgmem.Clock
	log    *slog.Logger

	applyMu sync.Mutex // serialises applies (background loop, Flush, Close)

	mu          sync.Mutex // guards the fields below and the journal
	journal     *wal.Journal[journalEntry]
	pending     []journalEntry
	pendingRefs int // refs in pending
	inflight    int // refs taken by the apply in progress
	closed      bool

	kick   chan struct{}
	stop   chan struct{}
	done   chan struct{}
	ctx    context.Context
	cancel context.CancelFunc
}

// NewReinforcer opens (or creates) the journal, queues what it holds, and
// starts the background loop, which applies a replayed backlog at once.
func NewReinforcer(cfg ReinforcerConfig) (*Reinforcer, error) {
	switch {
	case cfg.Store == nil:
		return nil, fmt.Errorf("new reinforcer: %w", kgmem.Invalidf("store", "is required"))
	case cfg.JournalPath == "":
		return nil, fmt.Errorf("new reinforcer: %w", kgmem.Invalidf("journal_path", "is required"))
	case cfg.Interval < 0:
		return nil, fmt.Errorf("new reinforcer: %w", kgmem.Invalidf("interval", "must not be negative"))
	case cfg.BatchSize < 0:
		return nil, fmt.Errorf("new reinforcer: %w", kgmem.Invalidf("batch_size", "must not be negative"))
	case cfg.ApplyTimeout < 0:
		return nil, fmt.Errorf("new reinforcer: %w", kgmem.Invalidf("apply_timeout", "must not be negative"))
	}
	if cfg.Interval == 0 {
		cfg.Interval = DefaultReinforceInterval
	}
	if cfg.BatchSize == 0 {
		cfg.BatchSize = DefaultReinforceBatch
	}
	if cfg.ApplyTimeout == 0 {
		cfg.ApplyTimeout = DefaultApplyTimeout
	}
	r := &Reinforcer{
		cfg:    cfg,
		models: cfg.Models,
		clock:  cfg.Clock,
		log:    cfg.Logger,
		kick:   make(chan struct{}, 1),
		stop:   make(chan struct{}),
		done:   make(chan struct{}),
	}
	if r.models == nil {
		r.models = StoreModels(cfg.Store)
	}
	if r.clock == nil {
		r.clock = kgmem.SystemClock{}
	}
	if r.log == nil {
		r.log = slog.Default()
	}
	j, entries, skipped, err := wal.Open(cfg.JournalPath, validEntry)
	if err != nil {
		return nil, fmt.Errorf("new reinforcer: %w", err)
	}
	if skipped > 0 {
		r.log.Warn("decay: skipped unreadable reinforcement journal lines", "path", cfg.JournalPath, "lines", skipped)
	}
	r.journal, r.pending = j, entries
	for _, e := range entries {
		r.pendingRefs += len(e.Refs)
	}
	r.ctx, r.cancel = context.WithCancel(context.Background())
	go r.run()
	if len(entries) > 0 {
		r.signal()
	}
	return r, nil
}

// Enqueue queues a reinforcement of refs in ns at the clock's now. It returns
// once the journal holds it on disk (concurrent calls share one fsync),
// without touching the store. Invalid input fails with kgmem.ErrInvalid and
// queues nothing; a closed Reinforcer or a journal write failure fails with
// kgmem.ErrUnavailable. After a failed fsync the reinforcement stays queued
// but may not survive a crash.
func (r *Reinforcer) Enqueue(ns kgmem.Namespace, refs ...Ref) error {
	seq, err := r.record(ns, refs)
	if err != nil || seq == 0 {
		return err
	}
	if err := r.journal.Sync(seq); err != nil {
		return fmt.Errorf("enqueue reinforcement: %w: %w", kgmem.ErrUnavailable, err)
	}
	return nil
}

// Record is Enqueue without waiting for the disk: it returns once the
// journal's write is in the operating system's hands, so the reinforcement
// survives the process but not the machine until an Enqueue's fsync or the
// next apply's journal rewrite (every Interval) covers it. It is what a
// search's recalls take: a machine crash may cost the last interval's
// recalls, never a search's latency (docs/concepts/forgetting.md).
func (r *Reinforcer) Record(ns kgmem.Namespace, refs ...Ref) error {
	_, err := r.record(ns, refs)
	return err
}

// record writes a reinforcement of refs in ns to the journal and queues
// it, returning its journal sequence (0 when refs is empty).
func (r *Reinforcer) record(ns kgmem.Namespace, refs []Ref) (uint64, error) {
	if len(refs) == 0 {
		return 0, nil
	}
	if _, err := kgmem.ParseNamespace(string(ns)); err != nil {
		return 0, fmt.Errorf("enqueue reinforcement: %w", err)
	}
	if err := validateRefs(refs); err != nil {
		return 0, fmt.Errorf("enqueue reinforcement: %w", err)
	}
	e := journalEntry{NS: ns, At: r.clock.Now(), Refs: slices.Clone(refs)}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return 0, fmt.Errorf("enqueue reinforcement: reinforcer is closed: %w", kgmem.ErrUnavailable)
	}
	seq, err := r.journal.Write(e)
	if err != nil {
		return 0, fmt.Errorf("enqueue reinforcement: %w: %w", kgmem.ErrUnavailable, err)
	}
	r.pending = append(r.pending, e)
	r.pendingRefs += len(e.Refs)
	if r.pendingRefs >= r.cfg.BatchSize {
		r.signal()
	}
	return seq, nil
}

// Pending returns how many enqueued refs are not yet written to the store,
// counting those an apply in progress is writing.
func (r *Reinforcer) Pending() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.pendingRefs + r.inflight
}

// Flush applies everything queued so far and returns when it is written (or
// an error when some of it could not be; that part stays queued and journaled).
func (r *Reinforcer) Flush(ctx context.Context) error {
	r.mu.Lock()
	closed := r.closed
	r.mu.Unlock()
	if closed {
		return fmt.Errorf("flush reinforcements: reinforcer is closed: %w", kgmem.ErrUnavailable)
	}
	return r.apply(ctx)
}

// Close stops the background loop, applies what is queued, and closes the
// journal. What cannot be applied stays in the journal for the next start.
// Close is idempotent.
func (r *Reinforcer) Close(ctx context.Context) error {
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return nil
	}
	r.closed = true
	r.mu.Unlock()

	close(r.stop)
	select {
	case <-r.done:
	case <-ctx.Done():
		r.cancel()
		<-r.done
	}
	r.cancel()
	err := r.apply(ctx)
	cerr := r.journal.Close()
	if err = errors.Join(err, cerr); err != nil {
		return fmt.Errorf("close reinforcer: %w", err)
	}
	return nil
}

// signal wakes the background loop without blocking.
func (r *Reinforcer) signal() {
	select {
	case r.kick <- struct{}{}:
	default:
	}
}

// run is the background loop.
func (r *Reinforcer) run() {
	defer close(r.done)
	ticker := time.NewTicker(r.cfg.Interval)
	defer ticker.Stop()
	for {
		select {
		case <-r.stop:
			return
		case <-ticker.C:
		case <-r.kick:
		}
		ctx, cancel := context.WithTimeout(r.ctx, r.cfg.ApplyTimeout)
		if err := r.apply(ctx); err != nil {
			r.log.Warn("decay: applying reinforcements failed; will retry", "err", err, "pending", r.Pending())
		}
		cancel()
	}
}

// apply takes the queue, applies it namespace by namespace, puts back what
// must be retried, and rewrites the journal to hold exactly what is still queued.
func (r *Reinforcer) apply(ctx context.Context) error {
	r.applyMu.Lock()
	defer r.applyMu.Unlock()

	r.mu.Lock()
	batch := r.pending
	r.pending, r.inflight, r.pendingRefs = nil, r.pendingRefs, 0
	r.mu.Unlock()
	if len(batch) == 0 {
		return nil
	}

	retry, err := r.applyBatch(ctx, batch)

	r.mu.Lock()
	defer r.mu.Unlock()
	r.pending = append(retry, r.pending...)
	r.pendingRefs, r.inflight = 0, 0
	for _, e := range r.pending {
		r.pendingRefs += len(e.Refs)
	}
	if countRefs(retry) == countRefs(batch) {
		return err // nothing applied: the journal is still exact
	}
	if jerr := r.journal.Rewrite(r.pending); jerr != nil {
		// The applied entries stay in the journal and may be applied again after a restart.
		return errors.Join(err, fmt.Errorf("compact reinforcement journal: %w", jerr))
	}
	return err
}

// applyBatch applies entries grouped by namespace and returns the entries of
// namespaces that failed with a retryable error. Entries failing with
// kgmem.ErrInvalid can never succeed and are dropped. kgmem.ErrNotFound (a
// record deleted between read and write) is retried: the next read skips it.
func (r *Reinforcer) applyBatch(ctx context.Context, batch []journalEntry) ([]journalEntry, error) {
	byNS := make(map[kgmem.Namespace][]journalEntry)
	var order []kgmem.Namespace
	for _, e := range batch {
		if _, ok := byNS[e.NS]; !ok {
			order = append(order, e.NS)
		}
		byNS[e.NS] = append(byNS[e.NS], e)
	}
	var (
		retry []journalEntry
		errs  []error
	)
	for _, ns := range order {
		left, err := r.applyNamespace(ctx, ns, byNS[ns])
		switch {
		case err == nil:
		case errors.Is(err, kgmem.ErrInvalid):
			r.log.Error("decay: dropping reinforcements that cannot be applied", "namespace", ns, "err", err)
			errs = append(errs, err)
		default:
			retry = append(retry, left...)
			errs = append(errs, err)
		}
	}
	if err := errors.Join(errs...); err != nil {
		return retry, fmt.Errorf("apply reinforcements: %w", err)
	}
	return retry, nil
}

// applyNamespace reinforces every ref of entries at each time it was
// enqueued, in time order, and writes the new states: loadChunk refs at a
// time, each chunk read, reinforced and written under the namespace lock on
// its own, so that an ingest into the namespace waits for one chunk rather
// than for the whole flush (recalls grow with searches: a flush can hold
// thousands of refs). On error it returns the entries, cut down to the refs
// of the chunks not written, that are still to apply.
func (r *Reinforcer) applyNamespace(ctx context.Context, ns kgmem.Namespace, entries []journalEntry) ([]journalEntry, error) {
	model, err := r.models(ctx, ns)
	if err != nil {
		return entries, fmt.Errorf("model of %s: %w", ns, err)
	}
	times := make(map[Ref][]time.Time)
	var refs []Ref
	for _, e := range entries {
		for _, ref := range e.Refs {
			if _, ok := times[ref]; !ok {
				refs = append(refs, ref)
			}
			times[ref] = append(times[ref], e.At)
		}
	}
	for start := 0; start < len(refs); start += loadChunk {
		if err := r.applyRefs(ctx, ns, model, refs[start:min(start+loadChunk, len(refs))], times); err != nil {
			return onlyRefs(entries, refs[start:]), err
		}
	}
	return nil, nil
}

// applyRefs reinforces refs of ns at their times and writes their states,
// holding the namespace lock from the read to the write.
func (r *Reinforcer) applyRefs(ctx context.Context, ns kgmem.Namespace, model Model, refs []Ref, times map[Ref][]time.Time) error {
	if r.cfg.Lock != nil {
		unlock, err := r.cfg.Lock.Lock(ctx, ns)
		if err != nil {
			return err
		}
		defer unlock()
	}
	records, err := loadRecords(ctx, r.cfg.Store, ns, refs)
	if err != nil {
		return err
	}
	updates := make([]kgmem.DecayUpdate, 0, len(records))
	for _, ref := range refs {
		rec, ok := records[ref]
		if !ok {
			continue // deleted since it was recalled
		}
		s := model.Backfill(rec.state, rec.created)
		ts := times[ref]
		slices.SortFunc(ts, time.Time.Compare)
		for _, t := range ts {
			s = model.Reinforce(s, rec.importance, t)
		}
		updates = append(updates, kgmem.DecayUpdate{Kind: ref.Kind, ID: ref.ID, State: s})
	}
	return setDecay(ctx, r.cfg.Store, ns, updates)
}

// onlyRefs returns entries cut down to the refs in keep, leaving out those
// left with none.
func onlyRefs(entries []journalEntry, keep []Ref) []journalEntry {
	kept := make(map[Ref]bool, len(keep))
	for _, ref := range keep {
		kept[ref] = true
	}
	var out []journalEntry
	for _, e := range entries {
		refs := lo.Filter(e.Refs, func(ref Ref, _ int) bool { return kept[ref] })
		if len(refs) > 0 {
			out = append(out, journalEntry{NS: e.NS, At: e.At, Refs: refs})
		}
	}
	return out
}

// countRefs counts the refs of entries.
func countRefs(entries []journalEntry) int {
	n := 0
	for _, e := range entries {
		n += len(e.Refs)
	}
	return n
}
