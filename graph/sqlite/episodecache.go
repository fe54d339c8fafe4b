package sqlite

import (
	"container/list"
	"context"
	"database/sql"
	"fmt"
	"sync"

	"github.com/kgmem/kgmem"
)

// episodeCacheSize is how many episodes a Store keeps in memory for
// Episodes, the most recently used, over all namespaces: about a kilobyte
// each with content and metadata.
const episodeCacheSize = 20_000

// episodeCache keeps recently loaded episodes in memory, so that a search
// loads the episodes it returns without a query per batch of ids (loading
// them was the largest share of a search's CPU under load, bench/README.md).
//
// An episode never changes once written (Apply inserts it or leaves the one
// stored) but for its decay state, which SetDecay rewrites, and a purge
// deletes it. Both raise the namespace's episode version (episode_versions,
// drawn from the one counter of graph versions, so it only grows, across
// purges too). Episodes reads that version first and trusts what the cache
// holds of the namespace only from a version at least as new: what another
// Store on the same file changed is read again, and what this Store's
// SetDecay changed is updated in place, so a flush of recalls does not empty
// the cache.
//
// Versions are compared by order: a cached namespace newer than the version
// a reader read (this Store's SetDecay committed after that read) is served
// as it is, never filled from that read. A namespace is held only while
// some of its episodes are. An episodeCache is safe for concurrent use.
type episodeCache struct {
	capacity int

	mu     sync.Mutex
	lru    *list.List // of kgmem.Episode, most recently used first
	spaces map[kgmem.Namespace]*cachedSpace
}

// cachedSpace is what the cache holds of one namespace, valid at version.
type cachedSpace struct {
	version int64
	byID    map[string]*list.Element
}

// newEpisodeCache returns an empty cache of at most capacity episodes.
func newEpisodeCache(capacity int) *episodeCache {
	return &episodeCache{capacity: capacity, lru: list.New(), spaces: map[kgmem.Namespace]*cachedSpace{}}
}

// lookup returns the cached episodes of ns among ids, in the order of ids,
// and the ids it lacks; version is ns's episode version, read before.
func (c *episodeCache) lookup(ns kgmem.Namespace, version int64, ids []string) (hits []kgmem.Episode, missing []string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	sp := c.spaces[ns]
	if sp != nil && sp.version < version {
		c.dropLocked(ns, sp)
		sp = nil
	}
	// Counted first, so that the episodes, of a few hundred bytes each, are
	// copied once into a slice of their number: grown as found, the copies
	// were a ninth of the bytes a server under cmd/load allocated.
	found := 0
	for _, id := range ids {
		if _, ok := sp.get(id); ok {
			found++
		}
	}
	hits = make([]kgmem.Episode, 0, found) // empty rather than nil when none
	for _, id := range ids {
		if el, ok := sp.get(id); ok {
			c.lru.MoveToFront(el)
			hits = append(hits, cloneEpisode(el.Value.(kgmem.Episode)))
		} else {
			missing = append(missing, id)
		}
	}
	return hits, missing
}

// get returns the list element of the episode id; sp may be nil.
func (sp *cachedSpace) get(id string) (*list.Element, bool) {
	if sp == nil {
		return nil, false
	}
	el, ok := sp.byID[id]
	return el, ok
}

// fill adds episodes of ns read after reading its episode version as
// version. They are at least that new, so they replace an older cached
// namespace; a newer one (this Store's SetDecay committed since) keeps what
// it holds.
func (c *episodeCache) fill(ns kgmem.Namespace, version int64, eps []kgmem.Episode) {
	if len(eps) == 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	sp := c.spaces[ns]
	if sp != nil && sp.version > version {
		return
	}
	if sp != nil && sp.version < version {
		c.dropLocked(ns, sp)
		sp = nil
	}
	if sp == nil {
		sp = &cachedSpace{version: version, byID: map[string]*list.Element{}}
		c.spaces[ns] = sp
	}
	for _, ep := range eps {
		if _, ok := sp.byID[ep.ID]; !ok {
			sp.byID[ep.ID] = c.lru.PushFront(cloneEpisode(ep))
		}
	}
	for c.lru.Len() > c.capacity {
		c.evictLocked(c.lru.Back())
	}
}

// decayWritten records that this Store committed updates to episodes of ns,
// raising its episode version from from to to: the cached episodes follow
// when the cache was current at from, and the namespace is dropped when it
// missed a change in between.
func (c *episodeCache) decayWritten(ns kgmem.Namespace, from, to int64, updates []kgmem.DecayUpdate) {
	c.mu.Lock()
	defer c.mu.Unlock()
	sp := c.spaces[ns]
	switch {
	case sp == nil || sp.version >= to:
		// Nothing held, or read after the commit.
	case sp.version == from:
		for _, u := range updates {
			if el, ok := sp.byID[u.ID]; ok && u.Kind == kgmem.KindEpisode {
				ep := el.Value.(kgmem.Episode)
				ep.Decay = storedDecay(u.State)
				el.Value = ep
			}
		}
		sp.version = to
	default:
		c.dropLocked(ns, sp)
	}
}

// purged drops what the cache holds of ns.
func (c *episodeCache) purged(ns kgmem.Namespace) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if sp := c.spaces[ns]; sp != nil {
		c.dropLocked(ns, sp)
	}
}

// dropLocked forgets the namespace sp and its episodes.
func (c *episodeCache) dropLocked(ns kgmem.Namespace, sp *cachedSpace) {
	for _, el := range sp.byID {
		c.lru.Remove(el)
	}
	delete(c.spaces, ns)
}

// evictLocked removes one episode; a namespace left empty is forgotten.
func (c *episodeCache) evictLocked(el *list.Element) {
	ep := c.lru.Remove(el).(kgmem.Episode)
	sp := c.spaces[ep.Namespace]
	delete(sp.byID, ep.ID)
	if len(sp.byID) == 0 {
		delete(c.spaces, ep.Namespace)
	}
}

// cloneEpisode copies ep deeply enough that neither the cache nor a caller
// sees the other change its metadata.
func cloneEpisode(ep kgmem.Episode) kgmem.Episode {
	if ep.Metadata != nil {
		ep.Metadata = cloneJSONMap(ep.Metadata)
	}
	return ep
}

// cloneJSONMap deep-copies a decoded JSON object.
func cloneJSONMap(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = cloneJSONValue(v)
	}
	return out
}

// cloneJSONValue deep-copies a decoded JSON value.
func cloneJSONValue(v any) any {
	switch v := v.(type) {
	case map[string]any:
		return cloneJSONMap(v)
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = cloneJSONValue(x)
		}
		return out
	default:
		return v
	}
}

// raiseEpisodeVersion gives ns a new episode version inside the write
// transaction tx, returning the one it had (0: none) and the new one.
func (s *Store) raiseEpisodeVersion(ctx context.Context, tx *sql.Tx, ns kgmem.Namespace) (from, to int64, err error) {
	err = tx.StmtContext(ctx, s.ws.getEpisodeVersion).QueryRowContext(ctx, ns).Scan(&from)
	if err != nil && !errNoRows(err) {
		return 0, 0, fmt.Errorf("episode version of %s: %w", ns, err)
	}
	if err := tx.StmtContext(ctx, s.ws.nextVersion).QueryRowContext(ctx).Scan(&to); err != nil {
		return 0, 0, fmt.Errorf("episode version: %w", err)
	}
	if _, err := tx.StmtContext(ctx, s.ws.setEpisodeVersion).ExecContext(ctx, ns, to); err != nil {
		return 0, 0, fmt.Errorf("episode version of %s: %w", ns, err)
	}
	return from, to, nil
}
