package sqlite

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/kgmem/kgmem"
)

// TestEpisodeCacheEvictsByClock fills a cache of three episodes past its budget
// and checks which episodes the clock keeps: one read since the hand last
// passed is spared once, the unread are evicted in slot order, and a
// namespace goes with its last episode.
func TestEpisodeCacheEvictsByClock(t *testing.T) {
	const ns, other = kgmem.Namespace("epc/clock"), kgmem.Namespace("epc/other")
	eps := func(ns kgmem.Namespace, ids ...string) []kgmem.Episode {
		var out []kgmem.Episode
		for _, id := range ids {
			out = append(out, kgmem.Episode{ID: id, Namespace: ns, Content: "said " + id})
		}
		return out
	}
	held := func(c *episodeCache, ns kgmem.Namespace, ids ...string) []string {
		hits, _ := c.lookup(ns, 1, ids)
		var out []string
		for _, ep := range hits {
			if ep.Content != "said "+ep.ID {
				t.Errorf("episode %s holds %q", ep.ID, ep.Content)
			}
			out = append(out, ep.ID)
		}
		return out
	}
	// peek lists what the cache holds of ns without reading (marking) it.
	peek := func(c *episodeCache, ns kgmem.Namespace) []string {
		var out []string
		if sp := c.spaces[ns]; sp != nil {
			for id := range sp.byID {
				out = append(out, id)
			}
		}
		slices.Sort(out)
		return out
	}
	// Episodes of one-letter ids and equal contents weigh the same: the
	// budget holds three.
	c := newEpisodeCache(3 * episodeBytes(eps(ns, "a")[0]))
	c.fill(ns, 1, eps(ns, "a", "b", "c"))
	if got := held(c, ns, "b", "f"); !slices.Equal(got, []string{"b"}) {
		t.Fatalf("held %v, want [b]", got)
	}
	c.fill(ns, 1, eps(ns, "d")) // evicts a, the first unread
	c.fill(ns, 1, eps(ns, "e")) // spares b (read), evicts c
	if got := peek(c, ns); !slices.Equal(got, []string{"b", "d", "e"}) {
		t.Errorf("holds %v, want [b d e]", got)
	}
	// The hand went round: none is marked, and d is next.
	c.fill(other, 1, eps(other, "x"))
	if got, gotOther := peek(c, ns), peek(c, other); !slices.Equal(got, []string{"b", "e"}) || !slices.Equal(gotOther, []string{"x"}) {
		t.Errorf("holds %v of %s and %v of %s, want [b e] and [x]", got, ns, gotOther, other)
	}
	// Filling other past what it can hold evicts ns's episodes, then its
	// own first; ns goes with its last episode.
	c.fill(other, 1, eps(other, "y", "z", "w"))
	if got := held(c, other, "x", "y", "z", "w"); !slices.Equal(got, []string{"y", "z", "w"}) || len(c.spaces) != 1 {
		t.Errorf("other holds %v over %d namespaces, want [y z w] and only it", got, len(c.spaces))
	}
}

// TestEpisodeCacheOfNothing checks that a cache of budget 0 holds nothing.
func TestEpisodeCacheOfNothing(t *testing.T) {
	c := newEpisodeCache(0)
	c.fill("epc/none", 1, []kgmem.Episode{{ID: "a", Namespace: "epc/none"}})
	if hits, missing := c.lookup("epc/none", 1, []string{"a"}); len(hits) != 0 || !slices.Equal(missing, []string{"a"}) {
		t.Errorf("lookup = %v, %v; want nothing cached", hits, missing)
	}
}

// TestEpisodeCacheKeepsToItsBudget checks that the cache weighs episodes by
// their bytes: a large one evicts as many small ones as it needs room for,
// one larger than the whole budget is not cached and evicts nothing, and
// through random fills, reads and drops the bytes held are those of the
// episodes held and never more than the budget; purged of everything, it
// keeps no slots either.
func TestEpisodeCacheKeepsToItsBudget(t *testing.T) {
	const ns = kgmem.Namespace("epc/bytes")
	ep := func(id string, size int) kgmem.Episode {
		return kgmem.Episode{ID: id, Namespace: ns, Content: strings.Repeat("x", size)}
	}
	small := episodeBytes(ep("a", 10))
	c := newEpisodeCache(4 * small)
	c.fill(ns, 1, []kgmem.Episode{ep("a", 10), ep("b", 10), ep("c", 10), ep("d", 10)})
	// Content of 2.5 small episodes' weight: three must go.
	big := ep("e", 10+5*small/2-small)
	c.fill(ns, 1, []kgmem.Episode{big})
	hits, _ := c.lookup(ns, 1, []string{"a", "b", "c", "d", "e"})
	if got := episodeIDs(hits); !slices.Equal(got, []string{"d", "e"}) || c.held != small+episodeBytes(big) {
		t.Errorf("holds %v in %d bytes, want [d e] in %d", got, c.held, small+episodeBytes(big))
	}
	c.fill(ns, 1, []kgmem.Episode{ep("f", 4*small)})
	if hits, _ := c.lookup(ns, 1, []string{"d", "e", "f"}); !slices.Equal(episodeIDs(hits), []string{"d", "e"}) {
		t.Errorf("after an episode over the budget, holds %v, want [d e]", episodeIDs(hits))
	}

	rng := rand.New(rand.NewPCG(1, 2))
	c = newEpisodeCache(20 * small)
	nss := []kgmem.Namespace{"epc/x", "epc/y", "epc/z"}
	for step := range 2000 {
		ns := nss[rng.IntN(len(nss))]
		id := fmt.Sprintf("e%03d", rng.IntN(200))
		switch rng.IntN(10) {
		case 0:
			c.purged(ns)
		case 1, 2, 3:
			c.lookup(ns, 1, []string{id})
		default:
			c.fill(ns, 1, []kgmem.Episode{{ID: id, Namespace: ns, Content: strings.Repeat("y", rng.IntN(6*small))}})
		}
		sum, held := 0, 0
		for _, slot := range c.slots {
			sum += slot.bytes
		}
		for _, sp := range c.spaces {
			for id, i := range sp.byID {
				if c.slots[i].ep.ID != id || c.slots[i].bytes != episodeBytes(c.slots[i].ep) {
					t.Fatalf("step %d: slot %d holds %q of %d bytes for %q", step, i, c.slots[i].ep.ID, c.slots[i].bytes, id)
				}
				held += c.slots[i].bytes
			}
		}
		if c.held != sum || c.held != held || c.held > c.budget {
			t.Fatalf("step %d: %d bytes counted, %d in slots, %d in namespaces, budget %d", step, c.held, sum, held, c.budget)
		}
	}
	// Purging every namespace lets go of the slots, not only of the
	// episodes: a server's heap returns to what it was before them.
	for _, ns := range nss {
		c.purged(ns)
	}
	if c.held != 0 || c.slots != nil || c.free != nil {
		t.Errorf("after purging everything: %d bytes held, %d slots, %d free", c.held, cap(c.slots), cap(c.free))
	}
}

// episodeIDs returns the ids of eps in order.
func episodeIDs(eps []kgmem.Episode) []string {
	out := make([]string, len(eps))
	for i, ep := range eps {
		out[i] = ep.ID
	}
	return out
}

// TestEpisodeBytesEstimate fills a cache with 50,000 episodes, loaded as
// from the file (each string its own allocation), with and without
// metadata, and checks that the bytes the cache counts are within a
// quarter of what the heap grew by: the budget bounds real memory.
func TestEpisodeBytesEstimate(t *testing.T) {
	own := func(s string) string { return string([]byte(s)) }
	for _, tc := range []struct {
		name     string
		metadata func(i int) map[string]any
	}{
		{"no metadata", func(int) map[string]any { return nil }},
		{"metadata", func(i int) map[string]any {
			return map[string]any{own("session"): float64(i / 100), own("source"): own("import"), own("tags"): []any{own("a"), own("b")}}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			const n = 50_000
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			eps := make([]kgmem.Episode, n)
			for i := range eps {
				ns := kgmem.Namespace(fmt.Sprintf("epc/n%03d", i%500))
				eps[i] = kgmem.Episode{ID: fmt.Sprintf("ep_%021d", i), Namespace: ns, ThreadID: own("thread-1"),
					MessageID: fmt.Sprintf("m%06d", i), Role: own("user"), Name: own("Elias Larsen"),
					Content:  fmt.Sprintf("Elias Larsen spoke at the sailing meeting in West Graz on day %d about the plan", i),
					Metadata: tc.metadata(i)}
			}
			c := newEpisodeCache(1 << 40)
			for _, ep := range eps {
				c.fill(ep.Namespace, 1, []kgmem.Episode{ep})
			}
			eps = nil
			runtime.GC()
			runtime.ReadMemStats(&after)
			heap := int64(after.HeapAlloc) - int64(before.HeapAlloc)
			// The slice of episodes given to fill is released; their
			// strings and the metadata's copies are the cache's now: what
			// the heap grew by is what the cache holds.
			ratio := float64(c.held) / float64(heap)
			t.Logf("counted %d bytes, the heap grew by %d (%.2f)", c.held, heap, ratio)
			if ratio < 0.75 || ratio > 1.25 {
				t.Errorf("counted %d bytes for a heap %d bytes larger (%.2f of it)", c.held, heap, ratio)
			}
			runtime.KeepAlive(c)
		})
	}
}
