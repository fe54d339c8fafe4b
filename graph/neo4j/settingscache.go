package neo4j

import (
	"sync"
	"time"
)

// settingsMaxAge is how long settings read from Neo4j answer Settings
// before they are read again. Every search and ingest reads its
// namespace's settings, one query each; changes made through this store
// (PutSettings, PurgeNamespace) take effect here at once, and those made
// through another server within settingsMaxAge.
const settingsMaxAge = time.Second

// maxCachedSettings bounds the namespaces whose settings are held; past it
// the cache starts over.
const maxCachedSettings = 100_000

// settingsCache holds namespaces' settings as read, by stored namespace
// key: the JSON (empty for none), decoded per read so that no caller shares
// another's maps. A read keeps what it read only if no change of the
// namespace through this store ended while it ran (gen).
type settingsCache struct {
	mu      sync.Mutex
	gen     uint64
	entries map[string]cachedSettings
	// changing counts the changes of each namespace under way: while one
	// runs, reads of it are neither served from nor kept in the cache.
	changing map[string]int
}

// cachedSettings is one namespace's settings JSON and when it was read.
type cachedSettings struct {
	json   string
	readAt time.Time
}

// get returns the JSON held for key when it is fresh, and the generation
// a read of it must present to keep what it reads.
func (c *settingsCache) get(key string) (json string, ok bool, gen uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.changing[key] == 0 {
		if e, held := c.entries[key]; held && time.Since(e.readAt) < settingsMaxAge {
			return e.json, true, c.gen
		}
	}
	return "", false, c.gen
}

// put keeps json, read at gen, unless a change of key began or ended since.
func (c *settingsCache) put(key, json string, gen uint64, readAt time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if gen != c.gen || c.changing[key] > 0 {
		return
	}
	if c.entries == nil || len(c.entries) >= maxCachedSettings {
		c.entries = map[string]cachedSettings{}
	}
	c.entries[key] = cachedSettings{json: json, readAt: readAt}
}

// change marks a change of key under way and drops what is held of it; the
// returned function ends the change.
func (c *settingsCache) change(key string) (done func()) {
	c.mu.Lock()
	if c.changing == nil {
		c.changing = map[string]int{}
	}
	c.changing[key]++
	c.gen++
	delete(c.entries, key)
	c.mu.Unlock()
	return func() {
		c.mu.Lock()
		defer c.mu.Unlock()
		if c.changing[key]--; c.changing[key] == 0 {
			delete(c.changing, key)
		}
		c.gen++
		delete(c.entries, key)
	}
}
