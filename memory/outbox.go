package memory

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/outbox"
	"github.com/prometheus/client_golang/prometheus"
)

// Vector-consistency defaults.
const (
	// DefaultVectorWriteTimeout bounds one vector write on the request path;
	// past it the write is queued in the outbox and the request succeeds.
	DefaultVectorWriteTimeout = 2 * time.Second
	// DefaultOutboxApplyTimeout bounds applying the queued ops of one
	// namespace (under its write lock) in a drain round.
	DefaultOutboxApplyTimeout = 10 * time.Second
	// DefaultOutboxBatch is how many queued ops one drain round applies.
	DefaultOutboxBatch = 512
	// DefaultOutboxMinBackoff and DefaultOutboxMaxBackoff bound the wait
	// between drain rounds that fail.
	DefaultOutboxMinBackoff = 200 * time.Millisecond
	DefaultOutboxMaxBackoff = 30 * time.Second
	// outboxPoll is how often an idle drain loop looks at the outbox anyway.
	outboxPoll = 30 * time.Second
)

// OutboxOptions tune how vector writes are kept consistent with the graph.
// Zero fields take the defaults above.
type OutboxOptions struct {
	// WriteTimeout bounds one vector write on the request path.
	WriteTimeout time.Duration
	// ApplyTimeout bounds applying one namespace's queued ops in a drain round.
	ApplyTimeout time.Duration
	// Batch is the number of queued ops one drain round applies.
	Batch int
	// MinBackoff and MaxBackoff bound the wait after a failed drain round.
	MinBackoff, MaxBackoff time.Duration
}

func (o OutboxOptions) withDefaults() OutboxOptions {
	if o.WriteTimeout <= 0 {
		o.WriteTimeout = DefaultVectorWriteTimeout
	}
	if o.ApplyTimeout <= 0 {
		o.ApplyTimeout = DefaultOutboxApplyTimeout
	}
	if o.Batch <= 0 {
		o.Batch = DefaultOutboxBatch
	}
	if o.MinBackoff <= 0 {
		o.MinBackoff = DefaultOutboxMinBackoff
	}
	if o.MaxBackoff < o.MinBackoff {
		o.MaxBackoff = max(DefaultOutboxMaxBackoff, o.MinBackoff)
	}
	return o
}

// outboxState is the engine's side of the vector outbox.
type outboxState struct {
	box     kgmem.VectorOutbox
	opts    OutboxOptions
	kick    chan struct{}
	applied prometheus.Counter
	queued  prometheus.Counter
	// failing is set when a vector write fails and cleared when a drain round
	// finds nothing left; meanwhile writes leave their ops to the drain rather
	// than wait on an index that is down.
	failing atomic.Bool
	// draining is set while RunOutbox runs; durable when Config.Outbox was
	// given. With neither, nothing would ever retry a failed vector write, so
	// it is logged (repair: `server reindex`) instead of queued.
	draining atomic.Bool
	durable  bool
	// recovered wakes a drain loop waiting out its backoff: the vector
	// index answers again (VectorsRecovered).
	recovered chan struct{}
	// rebuilding counts vector rebuilds in progress (RebuildVectors);
	// rebuildAgain asks the running one for another pass.
	rebuilding   atomic.Int32
	rebuildAgain atomic.Bool

	mu sync.Mutex
	// inflight holds the ops whose write is in progress: the drain leaves
	// them to their writer, who applies them or hands them over on failure.
	inflight map[uint64]bool
}

// initOutbox sets up the outbox (an in-memory one when cfg has none) and
// registers its metrics on reg.
func (e *Engine) initOutbox(cfg Config, reg prometheus.Registerer) {
	box := cfg.Outbox
	if box == nil {
		box = outbox.NewMemory()
	}
	e.outbox = &outboxState{
		box:       box,
		durable:   cfg.Outbox != nil,
		opts:      cfg.OutboxOptions.withDefaults(),
		kick:      make(chan struct{}, 1),
		recovered: make(chan struct{}, 1),
		inflight:  map[uint64]bool{},
		applied:   prometheus.NewCounter(prometheus.CounterOpts{Name: "kgmem_vector_outbox_applied_total", Help: "Vector writes applied by the outbox drain (after a failure or a crash)."}),
		queued:    prometheus.NewCounter(prometheus.CounterOpts{Name: "kgmem_vector_outbox_queued_total", Help: "Vector writes left to the outbox drain because the vector index failed or was known to be down."}),
	}
	if reg != nil {
		depth := prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "kgmem_vector_outbox_depth", Help: "Vector writes journaled and not yet applied (the vector index lags the graph by this many records; writes in progress included)."},
			func() float64 { return float64(box.Len()) })
		reg.MustRegister(depth, e.outbox.applied, e.outbox.queued)
	}
}

// OutboxDepth is the number of vector writes journaled and not yet applied.
func (e *Engine) OutboxDepth() int { return e.outbox.box.Len() }

// OutboxDraining reports whether RunOutbox is running.
func (e *Engine) OutboxDraining() bool { return e.outbox.draining.Load() }

// guardedWrite runs one graph write with its vector ops journaled first
// (write-ahead), then applies them to the vector index with apply and marks
// them done. A failing graph write drops the ops; a failing (or skipped)
// vector write leaves them in the outbox for RunOutbox, fsynced before the
// call returns, and the call still succeeds: the graph is the source of
// truth. The journal line written before the graph write is not fsynced
// (that would cost an fsync per request): it survives a killed process, and
// only a machine crash inside the write itself, before any answer, can lose
// it, which `server check` reports and `server reindex` repairs. Only a
// journal that cannot be written fails the call before anything changes;
// journaling is bounded by WriteTimeout, as the vector write is. The caller
// holds the namespace lock.
func (e *Engine) guardedWrite(ctx context.Context, ops []kgmem.VectorOp, graphWrite func() error, apply func(context.Context) error) error {
	var seqs []uint64
	if len(ops) > 0 {
		// Bounded: a stalled outbox (Neo4j's is a database write) must not
		// hold the request, and the namespace lock, past its deadline.
		actx, cancel := context.WithTimeout(context.WithoutCancel(ctx), e.outbox.opts.WriteTimeout)
		var err error
		seqs, err = e.outbox.box.Add(actx, ops)
		cancel()
		if err != nil {
			return fmt.Errorf("journal vector writes: %w", err)
		}
	}
	return e.journaledWrite(ctx, ops, seqs, graphWrite, apply)
}

// guardedApply is guardedWrite of a change set: with an outbox kept in the
// graph store's database (kgmem.JournalingOutbox), the ops are journaled in
// the change set's own transaction rather than in one before it (the ops
// are committed exactly when the change is). after runs once the graph
// write returns.
func (e *Engine) guardedApply(ctx context.Context, cs kgmem.ChangeSet, ops []kgmem.VectorOp, after func(), apply func(context.Context) error) error {
	graphWrite := func(write func() error) func() error {
		return func() error {
			defer after()
			if err := write(); err != nil {
				return fmt.Errorf("write graph: %w", err)
			}
			return nil
		}
	}
	jo, ok := e.outbox.box.(kgmem.JournalingOutbox)
	if !ok || len(ops) == 0 {
		return e.guardedWrite(ctx, ops, graphWrite(func() error { return e.graph.Apply(ctx, cs) }), apply)
	}
	queued := jo.Reserve(ops)
	seqs := make([]uint64, len(queued))
	for i, q := range queued {
		seqs[i] = q.Seq
	}
	return e.journaledWrite(ctx, ops, seqs, graphWrite(func() error { return jo.ApplyJournaled(ctx, cs, queued) }), apply)
}

// journaledWrite is guardedWrite once ops are numbered seqs in the outbox
// (or about to be, by graphWrite itself).
func (e *Engine) journaledWrite(ctx context.Context, ops []kgmem.VectorOp, seqs []uint64, graphWrite func() error, apply func(context.Context) error) error {
	o := e.outbox
	o.mu.Lock()
	for _, s := range seqs {
		o.inflight[s] = true
	}
	o.mu.Unlock()
	deferred := false // the ops were left for the drain loop
	defer func() {
		o.mu.Lock()
		for _, s := range seqs {
			delete(o.inflight, s)
		}
		o.mu.Unlock()
		if deferred {
			// Wake the drain loop only now: woken while the ops were still
			// in flight, it found nothing to drain and slept for outboxPoll.
			e.KickOutbox()
		}
	}()
	if err := graphWrite(); err != nil {
		if len(ops) > 0 && o.draining.Load() && mayHaveCommitted(err) {
			// A write that lost its server or its deadline may have
			// committed all the same (the answer was lost): the drain loop
			// makes the vectors match whatever the graph holds. Settled
			// here, a committed write would keep no vector, and a re-post
			// finds its records and writes none.
			deferred = true
			return err
		}
		e.settle(ctx, seqs)
		return err
	}
	if len(ops) == 0 {
		return nil
	}
	var err error
	if o.failing.Load() && o.draining.Load() {
		err = fmt.Errorf("vector index failing, %d writes queued: %w", o.box.Len(), kgmem.ErrUnavailable)
	} else {
		// The graph write is done: a client hanging up must not cancel its vectors.
		wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), o.opts.WriteTimeout)
		err = apply(wctx)
		cancel()
	}
	if err == nil {
		e.settle(ctx, seqs)
		return nil
	}
	if !o.durable && !o.draining.Load() {
		e.log.ErrorContext(ctx, "vector write failed after the graph write and nothing retries it here; run `server reindex` to repair",
			"namespace", ops[0].Namespace, "ops", len(ops), "error", err)
		e.settle(ctx, seqs)
		return nil
	}
	o.failing.Store(true)
	o.queued.Add(float64(len(ops)))
	// The ops now outlive the request: make them durable before it answers.
	if serr := o.box.Sync(context.WithoutCancel(ctx)); serr != nil {
		e.log.ErrorContext(ctx, "vector writes deferred but the outbox could not be synced; a machine crash may lose them (`server check` finds them)",
			"namespace", ops[0].Namespace, "ops", len(ops), "error", serr, "cause", err)
	}
	e.log.WarnContext(ctx, "vector write deferred to the outbox", "namespace", ops[0].Namespace, "ops", len(ops), "cause", err)
	deferred = true
	return nil
}

// settle marks ops applied. A failure only means they will be applied again.
func (e *Engine) settle(ctx context.Context, seqs []uint64) {
	if err := e.outbox.box.Done(seqs); err != nil {
		e.log.WarnContext(ctx, "marking vector writes applied failed; they will be applied again", "ops", len(seqs), "error", err)
	}
}

// mayHaveCommitted tells a failed graph write whose outcome is unknown (the
// connection or the deadline was lost mid-write) from one refused.
func mayHaveCommitted(err error) bool {
	return errors.Is(err, kgmem.ErrUnavailable) || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled)
}

// upsertOps are the ops of writing records (and deleting keys: records whose
// text embeds to a zero vector, which cannot be stored).
func upsertOps(ns kgmem.Namespace, records []kgmem.VectorRecord, dels []kgmem.VectorKey) []kgmem.VectorOp {
	ops := make([]kgmem.VectorOp, 0, len(records)+len(dels))
	for _, r := range records {
		ops = append(ops, kgmem.VectorOp{Namespace: ns, Kind: r.Kind, ID: r.ID, Op: kgmem.VectorUpsert})
	}
	for _, k := range dels {
		ops = append(ops, kgmem.VectorOp{Namespace: ns, Kind: k.Kind, ID: k.ID, Op: kgmem.VectorDelete})
	}
	return ops
}

// writeVectors upserts records and deletes dels of ns.
func (e *Engine) writeVectors(ctx context.Context, ns kgmem.Namespace, records []kgmem.VectorRecord, dels []kgmem.VectorKey) error {
	if len(records) > 0 {
		if err := e.vectors.Upsert(ctx, records); err != nil {
			return fmt.Errorf("upsert %d vectors: %w", len(records), err)
		}
	}
	if len(dels) > 0 {
		ids := make([]string, len(dels))
		for i, k := range dels {
			ids[i] = k.ID
		}
		if err := e.vectors.Delete(ctx, ns, ids); err != nil {
			return fmt.Errorf("delete %d vectors: %w", len(dels), err)
		}
	}
	return nil
}

// permanent reports whether a vector write can never succeed by retrying.
func permanent(err error) bool {
	return errors.Is(err, kgmem.ErrInvalid) || errors.Is(err, kgmem.ErrConflict)
}

// ErrVectorIndexDown is what DrainOutbox returns when the vector index does
// not answer: no queued write was tried.
var ErrVectorIndexDown = errors.New("vector index unreachable")

// DrainOutbox applies one batch of queued vector writes (leaving those whose
// write is in progress to their writer) and reports how many ops it settled.
// Each op is applied from the graph's current state: a record that exists is
// re-read, re-embedded and upserted; one that no longer exists is deleted; a
// purged namespace loses every vector without a graph record.
// Namespaces are applied under their write lock, so a drain never races an
// ingest or a delete of the same records. Ops failing for good (invalid input)
// are dropped with an error log; others stay queued and the first error is
// returned.
func (e *Engine) DrainOutbox(ctx context.Context) (int, error) {
	o := e.outbox
	o.mu.Lock()
	var batch []kgmem.QueuedVectorOp
	for _, op := range o.box.Pending(0) {
		if !o.inflight[op.Seq] {
			batch = append(batch, op)
			if len(batch) == o.opts.Batch {
				break
			}
		}
	}
	o.mu.Unlock()
	if len(batch) == 0 {
		o.failing.Store(false)
		return 0, nil
	}
	// Probe first, holding no lock: while the index is down a round costs one
	// bounded ping and never blocks ingest.
	pctx, cancel := context.WithTimeout(ctx, e.outbox.opts.WriteTimeout)
	err := e.vectors.Ping(pctx)
	cancel()
	if err != nil {
		return 0, fmt.Errorf("%w: %w", ErrVectorIndexDown, err)
	}
	var order []kgmem.Namespace
	byNS := map[kgmem.Namespace][]kgmem.QueuedVectorOp{}
	for _, op := range batch {
		if _, ok := byNS[op.Namespace]; !ok {
			order = append(order, op.Namespace)
		}
		byNS[op.Namespace] = append(byNS[op.Namespace], op)
	}
	var done []uint64
	var firstErr error
	for _, ns := range order {
		ops := byNS[ns]
		actx, cancel := context.WithTimeout(ctx, e.outbox.opts.ApplyTimeout)
		err := e.applyQueued(actx, ns, ops)
		cancel()
		if err != nil && !permanent(err) {
			firstErr = fmt.Errorf("apply %d queued vector ops of %q: %w", len(ops), ns, err)
			if errors.Is(err, kgmem.ErrUnavailable) || ctx.Err() != nil {
				break // the index is down: the other namespaces would fail the same way
			}
			continue
		}
		if err != nil {
			e.log.ErrorContext(ctx, "dropping queued vector ops that can never apply; run `server reindex`", "namespace", ns, "ops", len(ops), "error", err)
		}
		for _, op := range ops {
			done = append(done, op.Seq)
		}
	}
	if err := o.box.Done(done); err != nil {
		return 0, errors.Join(firstErr, fmt.Errorf("mark vector ops applied: %w", err))
	}
	o.applied.Add(float64(len(done)))
	if firstErr == nil && len(batch) < o.opts.Batch {
		o.failing.Store(false) // caught up: writes go straight to the index again
	}
	return len(done), firstErr
}

// applyQueued settles the queued ops of one namespace against the graph.
func (e *Engine) applyQueued(ctx context.Context, ns kgmem.Namespace, ops []kgmem.QueuedVectorOp) error {
	unlock, err := e.lockNamespace(ctx, ns)
	if err != nil {
		return err
	}
	defer unlock()
	var keys []kgmem.VectorKey
	seen := map[kgmem.VectorKey]bool{}
	purge := false
	for _, op := range ops {
		if op.Op == kgmem.VectorPurge {
			purge = true
			continue
		}
		k := kgmem.VectorKey{Kind: op.Kind, ID: op.ID}
		if !seen[k] {
			seen[k] = true
			keys = append(keys, k)
		}
	}
	if purge {
		if _, err := e.removeOrphans(ctx, ns); err != nil {
			return err
		}
	}
	_, err = e.syncKeys(ctx, ns, keys)
	return err
}

// syncStats counts what syncKeys and removeOrphans wrote.
type syncStats struct {
	Upserted, Deleted, Unembeddable int
}

// syncKeys makes the vectors of keys match the graph: records that exist are
// embedded from their current text and upserted (or deleted when their text
// embeds to a zero vector), records that do not are deleted.
func (e *Engine) syncKeys(ctx context.Context, ns kgmem.Namespace, keys []kgmem.VectorKey) (syncStats, error) {
	var st syncStats
	if len(keys) == 0 {
		return st, nil
	}
	docs, err := e.loadDocs(ctx, ns, keys)
	if err != nil {
		return st, err
	}
	records, zero, err := e.embedDocs(ctx, ns, docs)
	if err != nil {
		return st, err
	}
	found := map[kgmem.VectorKey]bool{}
	for _, d := range docs {
		found[d.key] = true
	}
	dels := zero
	for _, k := range keys {
		if !found[k] {
			dels = append(dels, k)
		}
	}
	if err := e.writeVectors(ctx, ns, records, dels); err != nil {
		return st, err
	}
	st.Upserted, st.Deleted, st.Unembeddable = len(records), len(dels), len(zero)
	return st, nil
}

// doc is a graph record's embeddable text.
type doc struct {
	key     kgmem.VectorKey
	text    string
	created time.Time
}

// loadDocs reads the records of keys that exist in ns, with their text.
func (e *Engine) loadDocs(ctx context.Context, ns kgmem.Namespace, keys []kgmem.VectorKey) ([]doc, error) {
	byKind := map[kgmem.Kind][]string{}
	for _, k := range keys {
		byKind[k.Kind] = append(byKind[k.Kind], k.ID)
	}
	var out []doc
	if ids := byKind[kgmem.KindEpisode]; len(ids) > 0 {
		eps, err := e.graph.Episodes(ctx, ns, ids)
		if err != nil {
			return nil, fmt.Errorf("read episodes: %w", err)
		}
		for _, ep := range eps {
			out = append(out, episodeDoc(ep))
		}
	}
	if ids := byKind[kgmem.KindFact]; len(ids) > 0 {
		facts, err := e.graph.Facts(ctx, ns, ids)
		if err != nil {
			return nil, fmt.Errorf("read facts: %w", err)
		}
		for _, f := range facts {
			out = append(out, factDoc(f))
		}
	}
	if ids := byKind[kgmem.KindEntity]; len(ids) > 0 {
		ents, err := e.graph.Entities(ctx, ns, ids)
		if err != nil {
			return nil, fmt.Errorf("read entities: %w", err)
		}
		for _, ent := range ents {
			out = append(out, entityDoc(ent))
		}
	}
	if ids := byKind[kgmem.KindItem]; len(ids) > 0 {
		items, err := e.graph.Items(ctx, ns, ids)
		if err != nil {
			return nil, fmt.Errorf("read items: %w", err)
		}
		out = append(out, itemDocs(items)...)
	}
	return out, nil
}

func episodeDoc(ep kgmem.Episode) doc {
	return doc{kgmem.VectorKey{Kind: kgmem.KindEpisode, ID: ep.ID}, EpisodeText(ep), ep.CreatedAt}
}

func factDoc(f kgmem.Fact) doc {
	return doc{kgmem.VectorKey{Kind: kgmem.KindFact, ID: f.ID}, f.Text, f.CreatedAt}
}

func entityDoc(ent kgmem.Entity) doc {
	return doc{kgmem.VectorKey{Kind: kgmem.KindEntity, ID: ent.ID}, EntityText(ent), ent.CreatedAt}
}

func itemDoc(it kgmem.Item) doc {
	return doc{kgmem.VectorKey{Kind: kgmem.KindItem, ID: it.ID}, it.Text, it.CreatedAt}
}

// itemDocs are the docs of the items that have text (an item without text
// is listed, never searched, and has no vector).
func itemDocs(items []kgmem.Item) []doc {
	out := make([]doc, 0, len(items))
	for _, it := range items {
		if it.Text != "" {
			out = append(out, itemDoc(it))
		}
	}
	return out
}

// embedDocs embeds docs and returns their vector records, and the keys of
// those whose text is empty or embeds to a zero vector (nothing to store).
func (e *Engine) embedDocs(ctx context.Context, ns kgmem.Namespace, docs []doc) ([]kgmem.VectorRecord, []kgmem.VectorKey, error) {
	var zero []kgmem.VectorKey
	docs = slices.DeleteFunc(slices.Clone(docs), func(d doc) bool {
		if d.text == "" {
			zero = append(zero, d.key)
		}
		return d.text == ""
	})
	if len(docs) == 0 {
		return nil, zero, nil
	}
	texts := make([]string, len(docs))
	for i, d := range docs {
		texts[i] = d.text
	}
	vecs, err := e.embedder.Embed(ctx, texts)
	if err != nil {
		return nil, nil, fmt.Errorf("embed %d texts with %s: %w", len(texts), e.embedder.Name(), err)
	}
	if len(vecs) != len(docs) {
		return nil, nil, fmt.Errorf("embedder %s returned %d vectors for %d texts: %w", e.embedder.Name(), len(vecs), len(texts), kgmem.ErrUnavailable)
	}
	var records []kgmem.VectorRecord
	for i, d := range docs {
		if kgmem.IsZeroVector(vecs[i]) {
			zero = append(zero, d.key)
			continue
		}
		records = append(records, kgmem.VectorRecord{ID: d.key.ID, Namespace: ns, Kind: d.key.Kind, Vector: vecs[i], CreatedAt: d.created})
	}
	return records, zero, nil
}

// RunOutbox drains the outbox until ctx ends: at once on start (what a
// crashed process left), whenever a write queues ops, and every 30 s; after a
// failed round it waits with exponential backoff (MinBackoff doubling up to
// MaxBackoff) and ignores new queued ops meanwhile, so an outage is not
// hammered at the ingest rate.
func (e *Engine) RunOutbox(ctx context.Context) {
	o := e.outbox
	o.draining.Store(true)
	defer o.draining.Store(false)
	backoff := o.opts.MinBackoff
	wait := func(d time.Duration, kick <-chan struct{}) bool {
		t := time.NewTimer(d)
		defer t.Stop()
		select {
		case <-ctx.Done():
			return false
		case <-t.C:
		case <-kick:
		}
		return true
	}
	for {
		n, err := e.DrainOutbox(ctx)
		switch {
		case ctx.Err() != nil:
			return
		case err != nil:
			e.log.WarnContext(ctx, "vector outbox drain failed; will retry", "depth", o.box.Len(), "retry_in", backoff, "error", err)
			if !wait(backoff, o.recovered) {
				return
			}
			backoff = min(2*backoff, o.opts.MaxBackoff)
		case n > 0 && o.box.Len() > 0:
			backoff = o.opts.MinBackoff // more to drain: go on
		default:
			if n > 0 {
				e.log.InfoContext(ctx, "vector outbox drained", "applied", n)
			}
			backoff = o.opts.MinBackoff
			if !wait(outboxPoll, o.kick) {
				return
			}
		}
	}
}

// VectorsRecovered tells a running drain loop that the vector index answers
// again (it reconnected, or its collection was recreated): a loop waiting
// out the backoff of failed rounds drains now.
func (e *Engine) VectorsRecovered() {
	select {
	case e.outbox.recovered <- struct{}{}:
	default:
	}
	e.KickOutbox()
}

// KickOutbox asks a running drain loop for a round now: ops were left to
// it, or its outbox gained ops it did not add itself (another server's,
// taken over).
func (e *Engine) KickOutbox() {
	select {
	case e.outbox.kick <- struct{}{}:
	default:
	}
}

// purgeOps is the op of purging ns.
func purgeOps(ns kgmem.Namespace) []kgmem.VectorOp {
	return []kgmem.VectorOp{{Namespace: ns, Op: kgmem.VectorPurge}}
}

// deleteOps are the ops of deleting keys of ns.
func deleteOps(ns kgmem.Namespace, keys []kgmem.VectorKey) []kgmem.VectorOp {
	return upsertOps(ns, nil, keys)
}

// Component states reported by Readiness.
const (
	ComponentOK          = "ok"
	ComponentUnavailable = "unavailable"
	ComponentRebuilding  = "rebuilding"
)

// ComponentStatus is the state of one backend: ComponentOK, or what is
// wrong with it and why.
type ComponentStatus struct {
	Status string
	Err    error
}

// Readiness is what /readyz reports: each backend's state, and whether the
// engine serves (Ready) and serves everything (Degraded false).
type Readiness struct {
	// Ready is false when the engine cannot accept writes: the graph store
	// is unreachable, or the vector index is while no durable outbox keeps
	// its writes.
	Ready bool
	// Degraded is true when the engine serves without vector recall or
	// with an incomplete one: the vector index is unreachable (writes
	// queue in the outbox) or being rebuilt from the graph.
	Degraded bool
	Graph    ComponentStatus
	Vectors  ComponentStatus
	// OutboxDepth counts vector writes queued and not yet applied.
	OutboxDepth int
}

// Readiness checks every backend. With a durable outbox being drained, a
// vector index that does not answer degrades the engine rather than stops
// it: writes are kept and applied once it is back, searches use the other
// retrievers meanwhile.
func (e *Engine) Readiness(ctx context.Context) Readiness {
	r := Readiness{Ready: true, Graph: ComponentStatus{Status: ComponentOK}, Vectors: ComponentStatus{Status: ComponentOK}, OutboxDepth: e.OutboxDepth()}
	if err := e.graph.Ping(ctx); err != nil {
		r.Ready = false
		r.Graph = ComponentStatus{Status: ComponentUnavailable, Err: err}
	}
	if err := e.vectors.Ping(ctx); err != nil {
		r.Vectors = ComponentStatus{Status: ComponentUnavailable, Err: err}
		if e.outbox.durable && e.outbox.draining.Load() {
			r.Degraded = true
		} else {
			r.Ready = false
		}
	} else if e.VectorsRebuilding() {
		r.Degraded = true
		r.Vectors = ComponentStatus{Status: ComponentRebuilding, Err: errors.New("rebuilding the vector index from the graph; vector recall is incomplete until it ends")}
	}
	return r
}
