package milvus

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/kgmem/kgmem"
)

// Defaults of ResilientOptions.
const (
	DefaultCheckInterval = 5 * time.Second
	DefaultMinBackoff    = 500 * time.Millisecond
	DefaultMaxBackoff    = 15 * time.Second
	// firstDialTimeout bounds OpenResilient's own connection attempt.
	firstDialTimeout = 2 * time.Second
)

// ResilientOptions tune a Resilient index. Zero fields take the defaults above.
type ResilientOptions struct {
	// CheckInterval is how often a connected index checks that its
	// collection is still the one it prepared.
	CheckInterval time.Duration
	// MinBackoff and MaxBackoff bound the wait between connection attempts.
	MinBackoff, MaxBackoff time.Duration
	// Logger receives connection and collection events (default: discarded).
	Logger *slog.Logger
}

// Hooks are what Resilient.Run calls on events; nil hooks are skipped. They
// run on Run's goroutine and should return quickly.
type Hooks struct {
	// CollectionLost: the collection was found missing or replaced; Run
	// is about to recreate it (and then calls CollectionCreated). The
	// caller records that a rebuild is due, so that one a crash
	// interrupts, even before it starts, is not forgotten.
	CollectionLost func()
	// Connected: the server was reached (at the first connection, or
	// after a failed start), so queued writes can be applied now.
	Connected func()
	// CollectionCreated: the collection was created by this index, either
	// because it was missing when first reached or because it was lost (a
	// Milvus restarted empty, a collection dropped or replaced). Whatever the
	// graph holds has no vector yet: the caller rebuilds them.
	CollectionCreated func()
}

// Resilient is a kgmem.VectorIndex over a Milvus collection that survives
// the server: it opens without Milvus (every call then fails with
// kgmem.ErrUnavailable, which the engine answers by queueing writes in its
// outbox and searching with its other retrievers), connects in the
// background with backoff, and notices a collection that disappeared or
// was replaced, recreating it. Run drives the background work.
type Resilient struct {
	cfg  Config
	opts ResilientOptions
	log  *slog.Logger
	kick chan struct{}

	mu sync.RWMutex
	ix *Index
	// lastErr is why the index is not usable (nil while it is).
	lastErr error
	// createdAtOpen: the first connection created the collection.
	createdAtOpen bool
}

var _ kgmem.VectorIndex = (*Resilient)(nil)

// OpenResilient returns an index over cfg that connects now if it can and
// otherwise later, in Run. A bad cfg, or a collection that exists with
// another schema or dimension, is an error; an unreachable server is not.
func OpenResilient(ctx context.Context, cfg Config, opts ResilientOptions) (*Resilient, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, fmt.Errorf("milvus open: %w", err)
	}
	if opts.CheckInterval <= 0 {
		opts.CheckInterval = DefaultCheckInterval
	}
	if opts.MinBackoff <= 0 {
		opts.MinBackoff = DefaultMinBackoff
	}
	if opts.MaxBackoff < opts.MinBackoff {
		opts.MaxBackoff = max(DefaultMaxBackoff, opts.MinBackoff)
	}
	r := &Resilient{cfg: cfg, opts: opts, log: opts.Logger, kick: make(chan struct{}, 1)}
	if r.log == nil {
		r.log = slog.New(slog.DiscardHandler)
	}
	// The first try is short: a server that does not answer at once is
	// tried again in Run, and the process serves meanwhile.
	first := cfg
	first.DialTimeout = min(cfg.DialTimeout, firstDialTimeout)
	ix, err := Open(ctx, first)
	switch {
	case err == nil:
		r.ix, r.createdAtOpen = ix, ix.created
	case errors.Is(err, kgmem.ErrUnavailable):
		r.lastErr = err
		r.log.Warn("Milvus is unreachable; starting without vector recall, writes queue in the outbox until it answers",
			"address", cfg.Address, "error", err)
	default:
		return nil, err
	}
	return r, nil
}

// Run connects (with backoff) while the index is not connected, and checks
// the collection every CheckInterval (or at once when a call found it
// missing), recreating it when it is gone or replaced, until ctx ends.
func (r *Resilient) Run(ctx context.Context, h Hooks) {
	call := func(f func()) {
		if f != nil {
			f()
		}
	}
	if r.index() != nil && r.createdAtOpen {
		call(h.CollectionLost)
		call(h.CollectionCreated)
	}
	backoff := r.opts.MinBackoff
	for {
		wait := r.opts.CheckInterval
		if ix := r.index(); ix == nil {
			nix, err := Open(ctx, r.cfg)
			if err != nil {
				if ctx.Err() != nil {
					return
				}
				r.setErr(err)
				r.log.Warn("Milvus still unreachable; vector recall off, writes queued", "address", r.cfg.Address, "retry_in", backoff, "error", err)
				wait, backoff = backoff, min(2*backoff, r.opts.MaxBackoff)
			} else {
				r.swap(nix)
				backoff = r.opts.MinBackoff
				r.log.Info("Milvus connected", "address", r.cfg.Address, "collection", r.cfg.Collection, "created", nix.created)
				call(h.Connected)
				if nix.created {
					call(h.CollectionLost)
					call(h.CollectionCreated)
				}
				continue
			}
		} else {
			created, err := r.checkCollection(ctx, ix, func() { call(h.CollectionLost) })
			switch {
			case ctx.Err() != nil:
				return
			case err != nil:
				r.log.Warn("Milvus collection check failed", "collection", r.cfg.Collection, "retry_in", backoff, "error", err)
				wait, backoff = backoff, min(2*backoff, r.opts.MaxBackoff)
			case created:
				backoff = r.opts.MinBackoff
				call(h.Connected)
				call(h.CollectionCreated)
			default:
				backoff = r.opts.MinBackoff
			}
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		case <-r.kick:
			t.Stop()
		}
	}
}

// checkCollection prepares the collection again when it is missing or has
// another id than the one ix prepared, and reports whether it did.
func (r *Resilient) checkCollection(ctx context.Context, ix *Index, lostHook func()) (bool, error) {
	cctx, cancel := context.WithTimeout(ctx, r.cfg.DialTimeout)
	defer cancel()
	name := r.cfg.Collection
	exists, err := ix.cl.HasCollection(cctx, name)
	if err != nil {
		return false, wrap("check collection "+name, err)
	}
	if exists {
		coll, err := ix.cl.DescribeCollection(cctx, name)
		if err != nil {
			return false, wrap("check collection "+name, err)
		}
		if coll.ID == ix.collectionID {
			r.setErr(nil)
			return false, nil
		}
	}
	lost := fmt.Errorf("milvus collection %s at %s was lost (dropped, replaced or the server restarted empty); recreating it and rebuilding its vectors from the graph: %w",
		name, r.cfg.Address, kgmem.ErrUnavailable)
	r.setErr(lost)
	r.log.Warn(lost.Error())
	lostHook()
	nix := &Index{cfg: ix.cfg, cl: ix.cl, level: ix.level, search: ix.search}
	if err := nix.prepare(cctx); err != nil {
		return false, err
	}
	nix.created = true
	r.swap(nix)
	return true, nil
}

// index is the connected index, or nil.
func (r *Resilient) index() *Index {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return r.ix
}

func (r *Resilient) swap(ix *Index) {
	r.mu.Lock()
	r.ix, r.lastErr = ix, nil
	r.mu.Unlock()
}

func (r *Resilient) setErr(err error) {
	r.mu.Lock()
	r.lastErr = err
	r.mu.Unlock()
}

// use returns the index to call, or why there is none.
func (r *Resilient) use() (*Index, error) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	if r.ix == nil {
		return nil, fmt.Errorf("milvus at %s: not connected: %w", r.cfg.Address, errors.Join(kgmem.ErrUnavailable, r.lastErr))
	}
	return r.ix, nil
}

// checked marks an error saying the collection is gone as unavailable and
// asks Run to check the collection now.
func (r *Resilient) checked(err error) error {
	if err == nil || !collectionGone(err) {
		return err
	}
	select {
	case r.kick <- struct{}{}:
	default:
	}
	return fmt.Errorf("%w: %w", kgmem.ErrUnavailable, err)
}

// collectionGone reports whether err says the collection does not exist.
func collectionGone(err error) bool {
	msg := strings.ToLower(err.Error())
	return strings.Contains(msg, "collection not found") || strings.Contains(msg, "can't find collection") ||
		strings.Contains(msg, "collection not exist") || strings.Contains(msg, "collectionnotexists")
}

// Dimension returns the vector length the index holds.
func (r *Resilient) Dimension() int { return r.cfg.Dim }

// Upsert implements kgmem.VectorIndex.
func (r *Resilient) Upsert(ctx context.Context, records []kgmem.VectorRecord) error {
	ix, err := r.use()
	if err != nil {
		return err
	}
	return r.checked(ix.Upsert(ctx, records))
}

// Delete implements kgmem.VectorIndex.
func (r *Resilient) Delete(ctx context.Context, ns kgmem.Namespace, ids []string) error {
	ix, err := r.use()
	if err != nil {
		return err
	}
	return r.checked(ix.Delete(ctx, ns, ids))
}

// DeleteNamespace implements kgmem.VectorIndex.
func (r *Resilient) DeleteNamespace(ctx context.Context, ns kgmem.Namespace) error {
	ix, err := r.use()
	if err != nil {
		return err
	}
	return r.checked(ix.DeleteNamespace(ctx, ns))
}

// Search implements kgmem.VectorIndex.
func (r *Resilient) Search(ctx context.Context, q kgmem.VectorQuery) ([]kgmem.Hit, error) {
	ix, err := r.use()
	if err != nil {
		return nil, err
	}
	hits, err := ix.Search(ctx, q)
	return hits, r.checked(err)
}

// Count implements kgmem.VectorIndex.
func (r *Resilient) Count(ctx context.Context, ns kgmem.Namespace, k kgmem.Kind) (int, error) {
	ix, err := r.use()
	if err != nil {
		return 0, err
	}
	n, err := ix.Count(ctx, ns, k)
	return n, r.checked(err)
}

// ListIDs implements kgmem.VectorIndex.
func (r *Resilient) ListIDs(ctx context.Context, ns kgmem.Namespace, page kgmem.Page) ([]kgmem.VectorKey, error) {
	ix, err := r.use()
	if err != nil {
		return nil, err
	}
	keys, err := ix.ListIDs(ctx, ns, page)
	return keys, r.checked(err)
}

// Ping reports the server reachable and the collection in place; while
// either is not, the error wraps kgmem.ErrUnavailable and says which.
func (r *Resilient) Ping(ctx context.Context) error {
	r.mu.RLock()
	ix, lastErr := r.ix, r.lastErr
	r.mu.RUnlock()
	if ix == nil {
		return fmt.Errorf("milvus at %s: not connected: %w", r.cfg.Address, errors.Join(kgmem.ErrUnavailable, lastErr))
	}
	if lastErr != nil && collectionLost(lastErr) {
		return lastErr
	}
	return ix.Ping(ctx)
}

func collectionLost(err error) bool { return strings.Contains(err.Error(), "was lost") }

// Collection returns the name of the Milvus collection behind the index.
func (r *Resilient) Collection() string { return r.cfg.Collection }

// Close closes the connection, if any.
func (r *Resilient) Close() error {
	r.mu.Lock()
	ix := r.ix
	r.ix = nil
	r.mu.Unlock()
	if ix == nil {
		return nil
	}
	return ix.Close()
}
