// Package nscache keeps read-only views derived from a namespace's stored
// records (a graph's topology, a BM25 index) in memory, each valid at one
// graph version of its namespace, within a budget of held items.
//
// A graph store raises a namespace's version on every write that can change
// such a view and reads it on every use; a view read at another version is
// read again. Versions are compared for equality, so a store may use a
// random token per write. A store whose versions only grow (VersionsGrow)
// is served a view read at a newer version than it asked for as it is,
// since a read of the store now would find that newer state too: under
// load, a search that read its namespace's version just before a write
// advanced the views found them one version ahead, and read them whole
// again. Version 0 (a
// namespace never written, or purged) matches only 0 either way.
//
// A missing or small view is read while the caller waits. A large view that
// a write made stale is read again in the background, one read per key at a
// time, while callers are told it is not cached and read the store directly
// (which is always current): a namespace written between every two searches
// does not make each search wait for a rebuild.
package nscache

import (
	"container/list"
	"context"
	"errors"
	"strconv"
	"sync"

	"golang.org/x/sync/singleflight"
)

// ErrTooLarge is what a load returns for a view too large to hold; Get then
// reports the view as not cached, and the caller reads the store directly.
var ErrTooLarge = errors.New("nscache: view too large to cache")

// Loaded is a view read from the store: the value, the graph version it was
// read at (which may be newer than the one asked for) and its size in the
// budget's units.
type Loaded[V any] struct {
	Value   V
	Version int64
	Size    int
}

// Cache holds the views of the most recently used keys, at most budget units
// in all: past it the least recently used keys are dropped. Concurrent loads
// of one key at one version are done once. A Cache is safe for concurrent use.
type Cache[V any] struct {
	budget       int
	refreshAbove int
	grows        bool // VersionsGrow
	loads        singleflight.Group
	refreshes    singleflight.Group

	mu      sync.Mutex
	entries map[string]*list.Element // of *entry[V]
	lru     *list.List               // most recently used first
	held    int
	// tooLarge holds, for each key whose load found its view too large,
	// the version it was found at: a Get at that version is answered "not
	// cached" without reading the store again (a count over a large
	// namespace per call), and Advance carries the mark along.
	tooLarge map[string]int64
}

// entry is one cached view.
type entry[V any] struct {
	key  string
	view Loaded[V]
}

// Option configures New.
type Option func(*options)

// options are what the Options set.
type options struct{ grows bool }

// VersionsGrow tells the cache that the store's versions only grow (but
// for 0), so that a view read at a newer version than a caller asks for
// serves it (see the package doc). Without it versions are tokens, compared
// for equality.
func VersionsGrow() Option { return func(o *options) { o.grows = true } }

// New returns an empty cache holding at most budget units, which reads
// stale views larger than refreshAbove units in the background.
func New[V any](budget, refreshAbove int, opts ...Option) *Cache[V] {
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	return &Cache[V]{budget: budget, refreshAbove: refreshAbove, grows: o.grows, entries: map[string]*list.Element{}, lru: list.New(),
		tooLarge: map[string]int64{}}
}

// Get returns the view of key at version: the cached one when it was read at
// that version (or a newer one, with VersionsGrow), else the result of load,
// which is cached. ok is false when
// load returned ErrTooLarge or a view larger than the whole budget (and,
// without a load, when one did at this version), and when
// the cached view is stale and larger than refreshAbove: load then runs in
// the background (see the package doc). A load is shared by every caller
// waiting on it, so it runs without the caller's cancellation: one caller's
// deadline must not fail the others.
func (c *Cache[V]) Get(ctx context.Context, key string, version int64, load func(context.Context) (Loaded[V], error)) (v V, ok bool, err error) {
	if l, ok := c.cached(key, version); ok {
		return l.Value, true, nil
	}
	c.mu.Lock()
	if marked, found := c.tooLarge[key]; found && c.serves(marked, version) {
		c.mu.Unlock()
		return v, false, nil
	}
	el, found := c.entries[key]
	stale := found && el.Value.(*entry[V]).view.Size > c.refreshAbove
	c.mu.Unlock()
	if stale {
		c.refreshes.DoChan(key, func() (any, error) {
			_, _, err := c.load(ctx, key, version, load)
			return nil, err // a failed refresh is retried by the next Get
		})
		return v, false, nil
	}
	return c.load(ctx, key, version, load)
}

// load reads the view of key at version once for all concurrent callers
// and caches it.
func (c *Cache[V]) load(ctx context.Context, key string, version int64, load func(context.Context) (Loaded[V], error)) (v V, ok bool, err error) {
	got, err, _ := c.loads.Do(key+"\x00"+strconv.FormatInt(version, 10), func() (any, error) {
		// A caller that missed the cache just before an earlier load of
		// this version put its view, and reached Do just after that load
		// left it, finds the view here instead of loading it again.
		if l, ok := c.cached(key, version); ok {
			return l, nil
		}
		l, err := load(context.WithoutCancel(ctx))
		if errors.Is(err, ErrTooLarge) || err == nil && l.Size > c.budget {
			c.markTooLarge(key, max(version, l.Version))
			return nil, nil
		}
		if err != nil {
			return nil, err
		}
		c.put(key, l)
		return l, nil
	})
	if err != nil || got == nil {
		return v, false, err
	}
	return got.(Loaded[V]).Value, true, nil
}

// markTooLarge records that the view of key at version is too large to
// hold.
func (c *Cache[V]) markTooLarge(key string, version int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.tooLarge[key] = version
}

// Peek returns the view of key read at version (or a newer one, with
// VersionsGrow) if it is cached, without reading it when it is not.
func (c *Cache[V]) Peek(key string, version int64) (v V, ok bool) {
	l, ok := c.cached(key, version)
	return l.Value, ok
}

// cached returns the view of key read at version (or a newer one, with
// VersionsGrow), if it is cached.
func (c *Cache[V]) cached(key string, version int64) (Loaded[V], bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, found := c.entries[key]; found && c.serves(el.Value.(*entry[V]).view.Version, version) {
		c.lru.MoveToFront(el)
		return el.Value.(*entry[V]).view, true
	}
	return Loaded[V]{}, false
}

// serves reports whether a view read at version held serves a caller that
// read version asked (see the package doc).
func (c *Cache[V]) serves(held, asked int64) bool {
	return held == asked || c.grows && asked > 0 && held > asked
}

// put caches l as the view of key, replacing the one cached, and drops the
// least recently used views to stay within the budget.
func (c *Cache[V]) put(key string, l Loaded[V]) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.putLocked(key, l)
}

// putLocked is put with c.mu held.
func (c *Cache[V]) putLocked(key string, l Loaded[V]) {
	c.dropLocked(key)
	for c.held+l.Size > c.budget && c.lru.Len() > 0 {
		last := c.lru.Back()
		old := last.Value.(*entry[V])
		c.held -= old.view.Size
		c.lru.Remove(last)
		delete(c.entries, old.key)
	}
	c.entries[key] = c.lru.PushFront(&entry[V]{key: key, view: l})
	c.held += l.Size
}

// Seed caches l as the view of key when the cache holds none: a store that
// wrote a namespace's first records knows its whole view without reading it,
// so the first search of a fresh namespace need not wait for a read. It
// reports whether l was cached (not when a view of key is cached already,
// or l is larger than the whole budget).
func (c *Cache[V]) Seed(key string, l Loaded[V]) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, found := c.entries[key]; found || l.Size > c.budget {
		return false
	}
	delete(c.tooLarge, key)
	c.putLocked(key, l)
	return true
}

// Drop forgets what the cache holds of key, its view and any mark that it
// is too large: for a namespace purged, whose view would otherwise stay in
// memory until newer ones pushed it out of the budget.
func (c *Cache[V]) Drop(key string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.dropLocked(key)
}

// dropLocked is Drop with c.mu held.
func (c *Cache[V]) dropLocked(key string) {
	delete(c.tooLarge, key)
	if el, found := c.entries[key]; found {
		c.held -= el.Value.(*entry[V]).view.Size
		c.lru.Remove(el)
		delete(c.entries, key)
	}
}

// Advance moves key's view from version from to version to by update, when
// the view cached is the one read at from: a store that knows what a write
// changed derives the next view instead of reading it again. A key found too
// large at from is taken as too large at to: a write advanced over that
// shrinks a view below the budget leaves it uncached (read from the store
// directly) until its version moves otherwise. update runs
// without the cache's lock and must not change the view it is given (with its
// size); it returns the new view and its size. Advance reports whether the view moved; it does
// not when none is cached at from (missing, or stale already: the next Get
// reads it) or when another view was put meanwhile.
func (c *Cache[V]) Advance(key string, from, to int64, update func(value V, size int) (V, int)) bool {
	c.mu.Lock()
	if marked, found := c.tooLarge[key]; found && marked == from {
		c.tooLarge[key] = to
	}
	el, found := c.entries[key]
	if !found || el.Value.(*entry[V]).view.Version != from {
		c.mu.Unlock()
		return false
	}
	old := el.Value.(*entry[V])
	c.mu.Unlock()
	v, size := update(old.view.Value, old.view.Size)
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, found := c.entries[key]; !found || el.Value.(*entry[V]) != old || size > c.budget {
		return false
	}
	c.putLocked(key, Loaded[V]{Value: v, Version: to, Size: size})
	return true
}

// Unchanged is the update for Advance when a write leaves the view as it
// was: the view is only relabelled to the new version.
func Unchanged[V any](view V, size int) (V, int) { return view, size }

// Held returns the units held and the number of views cached.
func (c *Cache[V]) Held() (units, views int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.held, c.lru.Len()
}
