package hnsw

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"sync"

	"github.com/kgmem/kgmem"
	"github.com/samber/lo"
	"golang.org/x/sync/singleflight"
)

// Index is the embedded kgmem.VectorIndex: vectors persisted in SQLite,
// searched in memory. It is safe for concurrent use.
type Index struct {
	store *store
	arena *arena // the loaded vectors, outside the Go heap
	dim   int
	opts  Options

	// writes serialises the writes of each namespace, so that its stored
	// vectors and its loaded shards change in the same order; writes to
	// other namespaces go on meanwhile (writelock.go).
	writes writeLocks
	mu     sync.Mutex // guards spaces, clock and closed
	spaces map[kgmem.Namespace]*space
	clock  uint64 // ticks once per search, for least-recently-used eviction
	closed bool   // set by Close: no namespace loads any more

	// fills runs one load of a namespace from the store at a time, detached
	// from the searches waiting for it (see load).
	fills singleflight.Group
}

var _ kgmem.VectorIndex = (*Index)(nil)

// space is the in-memory state of one namespace: one shard per kind, loaded
// from the store on first search and kept current by every later write.
type space struct {
	mu     sync.RWMutex
	loaded bool
	shards map[kgmem.Kind]*shard

	lastUsed uint64 // Index.clock at the last search; guarded by Index.mu
}

// Open opens the index stored at path (a SQLite file, created when missing)
// for vectors of dimension dim. A file created with another dimension is
// refused with an error wrapping kgmem.ErrDimensionMismatch.
func Open(ctx context.Context, path string, dim int, opts Options) (*Index, error) {
	if path == "" {
		return nil, kgmem.Invalidf("path", "is required")
	}
	if dim <= 0 {
		return nil, kgmem.Invalidf("dimension", "must be positive, got %d", dim)
	}
	s, err := openStore(ctx, path, dim, opts.BackgroundCheckpoints)
	if err != nil {
		return nil, err
	}
	a, err := openArena(filepath.Dir(path), dim, arenaSegmentBytes) // next to the store
	if err != nil {
		return nil, errors.Join(err, s.close())
	}
	return &Index{store: s, arena: a, dim: dim, opts: opts.withDefaults(), spaces: map[kgmem.Namespace]*space{}}, nil
}

// Dimension returns the vector length the index holds.
func (x *Index) Dimension() int { return x.dim }

// Upsert inserts or replaces records by (namespace, id) in one transaction.
// The whole batch is validated first: one bad record rejects it all.
func (x *Index) Upsert(ctx context.Context, records []kgmem.VectorRecord) error {
	if err := checkRecords(records, x.dim); err != nil {
		return fmt.Errorf("upsert vectors: %w", err)
	}
	if len(records) == 0 {
		return nil
	}
	defer x.writes.lock(lo.Map(records, func(r kgmem.VectorRecord, _ int) kgmem.Namespace { return r.Namespace })...)()
	if err := x.store.upsert(ctx, records); err != nil {
		return err
	}
	for ns, recs := range lo.GroupBy(records, func(r kgmem.VectorRecord) kgmem.Namespace { return r.Namespace }) {
		x.apply(ns, func(sp *space) error {
			for _, r := range recs {
				for k, sh := range sp.shards {
					if k != r.Kind {
						sh.remove(r.ID)
					}
				}
				if err := x.shardOf(sp.shards, r.Kind).put(r.ID, normalized(r.Vector)); err != nil {
					return err
				}
			}
			return nil
		})
	}
	return nil
}

// Delete removes records of ns by id; absent ids are ignored.
func (x *Index) Delete(ctx context.Context, ns kgmem.Namespace, ids []string) error {
	if err := checkNamespace("namespace", ns); err != nil {
		return fmt.Errorf("delete vectors: %w", err)
	}
	if len(ids) == 0 {
		return nil
	}
	defer x.writes.lock(ns)()
	if err := x.store.delete(ctx, ns, ids); err != nil {
		return err
	}
	x.apply(ns, func(sp *space) error {
		for _, id := range ids {
			for _, sh := range sp.shards {
				sh.remove(id)
			}
		}
		return nil
	})
	return nil
}

// DeleteNamespace removes every record of ns.
func (x *Index) DeleteNamespace(ctx context.Context, ns kgmem.Namespace) error {
	if err := checkNamespace("namespace", ns); err != nil {
		return fmt.Errorf("delete namespace: %w", err)
	}
	defer x.writes.lock(ns)()
	if err := x.store.deleteNamespace(ctx, ns); err != nil {
		return err
	}
	x.mu.Lock()
	sp := x.spaces[ns]
	delete(x.spaces, ns)
	x.mu.Unlock()
	if sp != nil {
		sp.unload()
	}
	return nil
}

// Search returns the q.K records of q.Namespace nearest q.Vector by cosine
// similarity, best first. The namespace's shards are loaded on first use.
func (x *Index) Search(ctx context.Context, q kgmem.VectorQuery) ([]kgmem.Hit, error) {
	if err := checkQuery(q, x.dim); err != nil {
		return nil, fmt.Errorf("search vectors: %w", err)
	}
	sp, err := x.loadAndLock(ctx, q.Namespace)
	if err != nil {
		return nil, err
	}
	defer sp.mu.RUnlock()
	kinds := q.Kinds
	if len(kinds) == 0 {
		kinds = kgmem.AllKinds()
	}
	var vec []float32 // normalised once a kind has vectors: the engine asks for each kind, most often of none
	var hits []kgmem.Hit
	for _, k := range lo.Uniq(kinds) {
		if sh := sp.shards[k]; sh != nil {
			if vec == nil {
				vec = normalized(q.Vector)
			}
			hits = append(hits, sh.search(vec, q.K, k)...)
		}
	}
	slices.SortFunc(hits, func(a, b kgmem.Hit) int {
		return cmp.Or(cmp.Compare(b.Score, a.Score), cmp.Compare(a.ID, b.ID))
	})
	if q.KEach {
		return hits, nil
	}
	return hits[:min(q.K, len(hits))], nil
}

// Count returns how many records ns holds, of kind k (empty: all kinds).
func (x *Index) Count(ctx context.Context, ns kgmem.Namespace, k kgmem.Kind) (int, error) {
	if err := checkNamespace("namespace", ns); err != nil {
		return 0, fmt.Errorf("count vectors: %w", err)
	}
	if k != "" {
		if err := checkKind("kind", k); err != nil {
			return 0, fmt.Errorf("count vectors: %w", err)
		}
	}
	return x.store.count(ctx, ns, k)
}

// Ping checks the store answers.
func (x *Index) Ping(ctx context.Context) error { return x.store.ping(ctx) }

// Close waits for the searches under way, then releases the loaded vectors
// and the store; the index must not be used afterwards.
func (x *Index) Close() error {
	x.mu.Lock()
	spaces := lo.Values(x.spaces)
	clear(x.spaces)
	x.closed = true
	x.mu.Unlock()
	for _, sp := range spaces {
		sp.unload()
	}
	return errors.Join(x.store.close(), x.arena.close())
}

// space returns the namespace state, creating an unloaded one, and marks
// it used.
func (x *Index) space(ns kgmem.Namespace) *space {
	x.mu.Lock()
	defer x.mu.Unlock()
	sp := x.spaces[ns]
	if sp == nil {
		sp = &space{shards: map[kgmem.Kind]*shard{}}
		x.spaces[ns] = sp
	}
	x.clock++
	sp.lastUsed = x.clock
	return sp
}

// apply runs fn on the namespace's shards if they are loaded; unloaded
// namespaces pick the change up from the store when they load. The change
// is already stored, so when fn fails (the arena could not grow) the
// namespace is unloaded rather than left missing it: its next search loads
// it from the store again, and reports the error if it persists.
func (x *Index) apply(ns kgmem.Namespace, fn func(sp *space) error) {
	x.mu.Lock()
	sp := x.spaces[ns]
	x.mu.Unlock()
	if sp == nil {
		return
	}
	sp.mu.Lock()
	defer sp.mu.Unlock()
	if sp.loaded && fn(sp) != nil {
		sp.unloadLocked()
	}
}

// errIndexClosed is returned by searches after Close.
var errIndexClosed = errors.New("vector index is closed")

// loadAndLock returns the namespace's loaded state, read-locked. An
// eviction may unload the state load returned before the lock is taken:
// then it loads again.
func (x *Index) loadAndLock(ctx context.Context, ns kgmem.Namespace) (*space, error) {
	for {
		sp, err := x.load(ctx, ns)
		if err != nil {
			return nil, err
		}
		sp.mu.RLock()
		if sp.loaded {
			return sp, nil
		}
		sp.mu.RUnlock()
		if err := context.Cause(ctx); err != nil {
			return nil, fmt.Errorf("load vectors of %q: %w", ns, err)
		}
	}
}

// load returns the namespace's state, reading it from the store first if
// needed, then unloads others if memory is over budget.
//
// The read runs detached from the caller's context: a search that gives up
// (its retriever deadline passed while a large namespace was read) leaves
// the read to finish, so the next search finds the namespace loaded instead
// of starting over and missing its deadline in turn. Concurrent searches of
// an unloaded namespace share one read.
func (x *Index) load(ctx context.Context, ns kgmem.Namespace) (*space, error) {
	sp := x.space(ns)
	sp.mu.RLock()
	loaded := sp.loaded
	sp.mu.RUnlock()
	if loaded {
		return sp, nil
	}
	ch := x.fills.DoChan(string(ns), func() (any, error) {
		filled, err := x.fill(context.WithoutCancel(ctx), ns, sp)
		if err != nil {
			return nil, err
		}
		if filled {
			x.evict(ns)
		}
		return sp, nil
	})
	select {
	case r := <-ch:
		if r.Err != nil {
			return nil, r.Err
		}
		// The space filled, which may be one an eviction replaced since
		// this caller looked it up: search the one that holds the vectors.
		return r.Val.(*space), nil
	case <-ctx.Done():
		return nil, fmt.Errorf("load vectors of %q (the load goes on for later searches): %w", ns, context.Cause(ctx))
	}
}

// fill reads the namespace from the store into sp unless another search
// did meanwhile, or sp was evicted or deleted since the caller looked it up
// (filled, it would hold arena slots nobody releases; the caller's search
// looks the namespace up again). It reports whether it did the reading.
func (x *Index) fill(ctx context.Context, ns kgmem.Namespace, sp *space) (bool, error) {
	sp.mu.Lock()
	defer sp.mu.Unlock()
	if sp.loaded {
		return false, nil
	}
	x.mu.Lock()
	current, closed := x.spaces[ns] == sp, x.closed
	x.mu.Unlock()
	if closed {
		return false, errIndexClosed
	}
	if !current {
		return false, nil
	}
	shards := map[kgmem.Kind]*shard{}
	err := x.store.load(ctx, ns, func(r kgmem.VectorRecord) error {
		// The store decoded r.Vector into a fresh slice: normalise it in
		// place, the arena copies it.
		return x.shardOf(shards, r.Kind).put(r.ID, normalizeInPlace(r.Vector))
	})
	if err != nil {
		for _, sh := range shards {
			sh.release()
		}
		return false, err
	}
	sp.shards, sp.loaded = shards, true
	return true, nil
}

// Loaded reports how many namespaces and vectors are held in memory.
func (x *Index) Loaded() (namespaces, vectors int) {
	x.mu.Lock()
	spaces := make([]*space, 0, len(x.spaces))
	for _, sp := range x.spaces {
		spaces = append(spaces, sp)
	}
	x.mu.Unlock()
	for _, sp := range spaces {
		if n, ok := sp.size(); ok {
			namespaces++
			vectors += n
		}
	}
	return namespaces, vectors
}

// evict unloads the least recently searched namespaces, never keep, while
// the loaded vectors exceed Options.MaxLoadedBytes.
func (x *Index) evict(keep kgmem.Namespace) {
	perVector := int64(4*x.dim + 8*x.opts.M + 64)
	type entry struct {
		ns       kgmem.Namespace
		sp       *space
		lastUsed uint64
		size     int
	}
	x.mu.Lock()
	entries := make([]entry, 0, len(x.spaces))
	for ns, sp := range x.spaces {
		entries = append(entries, entry{ns: ns, sp: sp, lastUsed: sp.lastUsed})
	}
	x.mu.Unlock()
	var total int64
	for i := range entries {
		n, _ := entries[i].sp.size()
		entries[i].size = n
		total += int64(n) * perVector
	}
	if total <= x.opts.MaxLoadedBytes {
		return
	}
	slices.SortFunc(entries, func(a, b entry) int { return cmp.Compare(a.lastUsed, b.lastUsed) })
	var evicted []*space
	x.mu.Lock()
	for _, e := range entries {
		if total <= x.opts.MaxLoadedBytes {
			break
		}
		if e.ns == keep || e.size == 0 || x.spaces[e.ns] != e.sp {
			continue
		}
		// Writers look spaces up under x.mu, so once removed here no later
		// write goes to it.
		delete(x.spaces, e.ns)
		evicted = append(evicted, e.sp)
		total -= int64(e.size) * perVector
	}
	x.mu.Unlock()
	// Unloading waits for the searches under way on each to finish.
	for _, sp := range evicted {
		sp.unload()
	}
}

// size returns the number of vectors held, and whether the space is loaded.
func (sp *space) size() (int, bool) {
	sp.mu.RLock()
	defer sp.mu.RUnlock()
	if !sp.loaded {
		return 0, false
	}
	n := 0
	for _, sh := range sp.shards {
		n += sh.live()
	}
	return n, true
}

// unload waits for the searches under way, then returns the space's vectors
// to the arena: later searches find it unloaded and load it again.
func (sp *space) unload() {
	sp.mu.Lock()
	defer sp.mu.Unlock()
	sp.unloadLocked()
}

// unloadLocked is unload with sp.mu held.
func (sp *space) unloadLocked() {
	for _, sh := range sp.shards {
		sh.release()
	}
	sp.shards, sp.loaded = map[kgmem.Kind]*shard{}, false
}

// shardOf returns the shard of kind k, creating it.
func (x *Index) shardOf(shards map[kgmem.Kind]*shard, k kgmem.Kind) *shard {
	sh := shards[k]
	if sh == nil {
		sh = newShard(x.opts, x.arena)
		shards[k] = sh
	}
	return sh
}
