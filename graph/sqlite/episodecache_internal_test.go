package sqlite

import (
	"slices"
	"testing"

	"github.com/kgmem/kgmem"
)

// TestEpisodeCacheEvictsByClock fills a cache of three past its capacity
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
	c := newEpisodeCache(3)
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

// TestEpisodeCacheOfNothing checks that a cache of capacity 0 holds nothing.
func TestEpisodeCacheOfNothing(t *testing.T) {
	c := newEpisodeCache(0)
	c.fill("epc/none", 1, []kgmem.Episode{{ID: "a", Namespace: "epc/none"}})
	if hits, missing := c.lookup("epc/none", 1, []string{"a"}); len(hits) != 0 || !slices.Equal(missing, []string{"a"}) {
		t.Errorf("lookup = %v, %v; want nothing cached", hits, missing)
	}
}
