package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"sync"
	"unsafe"

	"github.com/kgmem/kgmem"
)

// episodeCacheBudget bounds the bytes of the episodes a Store keeps in
// memory for Episodes, the most recently used, over all namespaces, as
// episodeBytes estimates them: about 120,000 chat messages of a sentence or
// two without metadata: what a loaded server stores in a minute or more,
// so that the episodes a search returns are rarely read from the file.
const episodeCacheBudget = 64 << 20

// episodeCache keeps recently loaded episodes in memory, so that a search
// loads the episodes it returns without a query per batch of ids.
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
// some of its episodes are.
//
// When full, the cache evicts by the clock algorithm: a read marks its
// episodes used, and the hand going round the slots spares a used episode
// once (clearing the mark) and evicts the first that is not. It keeps
// about what a least-recently-used list keeps, without moving an element
// of a list on every read, which cost a search under load more than its map
// lookups. An episodeCache is safe for concurrent use.
type episodeCache struct {
	budget int // bytes

	mu     sync.Mutex
	held   int         // bytes of the episodes held, at most budget
	slots  []cacheSlot // grown while the episodes held fit the budget
	free   []int32     // slots emptied by drops and evictions, reused first
	hand   int         // the next slot the clock looks at
	spaces map[kgmem.Namespace]*cachedSpace
}

// cacheSlot holds one cached episode, or none (the zero value).
type cacheSlot struct {
	ep kgmem.Episode
	// bytes is the episode's weight against the budget; 0 for an empty
	// slot.
	bytes int
	// used marks an episode read since the hand last passed.
	used bool
}

// cachedSpace is what the cache holds of one namespace, valid at version:
// the slot of each of its episodes.
type cachedSpace struct {
	version int64
	byID    map[string]int32
}

// newEpisodeCache returns an empty cache of episodes of at most budget bytes
// (episodeBytes) in all.
func newEpisodeCache(budget int) *episodeCache {
	return &episodeCache{budget: budget, spaces: map[kgmem.Namespace]*cachedSpace{}}
}

// episodeBytes estimates the memory a cached episode takes: its slot, its
// entry in the namespace's map and the allocations of its strings and
// metadata (TestEpisodeBytesEstimate compares it with the heap). An episode
// loaded from the file owns its strings, so none is counted as shared.
func episodeBytes(ep kgmem.Episode) int {
	const slotAndEntry = int(unsafe.Sizeof(cacheSlot{})) + 32
	return slotAndEntry + allocBytes(len(ep.ID)) + allocBytes(len(ep.Namespace)) + allocBytes(len(ep.ThreadID)) +
		allocBytes(len(ep.MessageID)) + allocBytes(len(ep.Role)) + allocBytes(len(ep.Name)) + allocBytes(len(ep.Content)) +
		jsonValueBytes(ep.Metadata)
}

// allocBytes is about what the heap gives an allocation of n bytes, rounded
// up to the allocator's 16-byte classes.
func allocBytes(n int) int { return (n + 15) &^ 15 }

// jsonValueBytes estimates the heap memory of a decoded JSON value held in
// an interface: a map's header and groups of eight 32-byte slots, each
// value's box, each string's bytes.
func jsonValueBytes(v any) int {
	switch v := v.(type) {
	case nil:
		return 0
	case map[string]any:
		if v == nil {
			return 0
		}
		n := 48 + (len(v)+7)/8*(8+8*32)
		for k, x := range v {
			n += allocBytes(len(k)) + jsonValueBytes(x)
		}
		return n
	case []any:
		n := 24 + allocBytes(16*len(v))
		for _, x := range v {
			n += jsonValueBytes(x)
		}
		return n
	case string:
		return 16 + allocBytes(len(v))
	default:
		return 16
	}
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
		if i, ok := sp.get(id); ok {
			slot := &c.slots[i]
			slot.used = true
			hits = append(hits, cloneEpisode(slot.ep))
		} else {
			missing = append(missing, id)
		}
	}
	return hits, missing
}

// get returns the slot of the episode id; sp may be nil.
func (sp *cachedSpace) get(id string) (int32, bool) {
	if sp == nil {
		return 0, false
	}
	i, ok := sp.byID[id]
	return i, ok
}

// fill adds episodes of ns read after reading its episode version as
// version. They are at least that new, so they replace an older cached
// namespace; a newer one (this Store's SetDecay committed since) keeps what
// it holds.
func (c *episodeCache) fill(ns kgmem.Namespace, version int64, eps []kgmem.Episode) {
	if len(eps) == 0 || c.budget <= 0 {
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
		sp = &cachedSpace{version: version, byID: map[string]int32{}}
	}
	for _, ep := range eps {
		if _, ok := sp.byID[ep.ID]; ok {
			continue
		}
		size := episodeBytes(ep)
		if size > c.budget {
			continue
		}
		i := c.takeSlotLocked(size)
		// Unmarked: an episode loaded once and not read again goes first.
		c.slots[i] = cacheSlot{ep: cloneEpisode(ep), bytes: size}
		c.held += size
		sp.byID[ep.ID] = i
		// Taking the slot may have evicted the namespace's last episode,
		// and with it the namespace.
		c.spaces[ns] = sp
	}
}

// takeSlotLocked returns an empty slot for an episode of size bytes (at
// most the budget), after the clock has evicted episodes until it fits: a
// dropped or evicted slot, or a new one.
func (c *episodeCache) takeSlotLocked(size int) int32 {
	for c.held+size > c.budget {
		c.evictNextLocked()
	}
	if n := len(c.free); n > 0 {
		i := c.free[n-1]
		c.free = c.free[:n-1]
		return i
	}
	c.slots = append(c.slots, cacheSlot{})
	return int32(len(c.slots) - 1)
}

// evictNextLocked evicts the episode the clock comes to first that was not
// read since the hand last passed, clearing the marks it passes; some
// episode is held. Within two turns the hand finds one.
func (c *episodeCache) evictNextLocked() {
	for {
		if c.hand >= len(c.slots) {
			c.hand = 0
		}
		i := c.hand
		c.hand++
		switch slot := &c.slots[i]; {
		case slot.bytes == 0:
		case slot.used:
			slot.used = false
		default:
			c.evictLocked(int32(i))
			return
		}
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
			if i, ok := sp.byID[u.ID]; ok && u.Kind == kgmem.KindEpisode {
				c.slots[i].ep.Decay = storedDecay(u.State)
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

// dropLocked forgets the namespace sp and its episodes. Once nothing is
// held (the last namespace purged), the slots go too, so that the memory
// they took returns to the runtime.
func (c *episodeCache) dropLocked(ns kgmem.Namespace, sp *cachedSpace) {
	for _, i := range sp.byID {
		c.held -= c.slots[i].bytes
		c.slots[i] = cacheSlot{}
		c.free = append(c.free, i)
	}
	delete(c.spaces, ns)
	if len(c.spaces) == 0 {
		c.slots, c.free, c.hand = nil, nil, 0
	}
}

// evictLocked empties slot i, which holds an episode, for reuse; a
// namespace left with none is forgotten.
func (c *episodeCache) evictLocked(i int32) {
	ep := c.slots[i].ep
	c.held -= c.slots[i].bytes
	c.slots[i] = cacheSlot{}
	c.free = append(c.free, i)
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
