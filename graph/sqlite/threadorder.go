package sqlite

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"maps"
	"slices"
	"sync"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/internal/nscache"
)

// threadOrderBudget bounds the episodes the thread orders hold over all
// namespaces; a namespace with more is walked in SQL, and so is one whose
// order of more than threadOrderRefreshAbove episodes a write made stale,
// until it is read again in the background (nscache).
const (
	threadOrderBudget       = 4_000_000
	threadOrderRefreshAbove = 100_000
)

// threadOrder is the order of a namespace's timestamped episodes in their
// threads, by timestamp then rid, as ThreadNeighbors walks it. It is
// read-only once built and safe for concurrent use; with derives the order
// after a write.
type threadOrder struct {
	threads map[string][]threadEntry
	size    int
	// places finds an episode's place in its thread by id, for the
	// episodes ThreadNeighbors starts from.
	places *threadPlaces
}

// threadPlaces maps episode ids to their thread, timestamp and rid. One is
// shared by an order read from the file and every order derived from it by
// writes, each adding the episodes it inserts, so it may hold episodes a
// given order does not; that is harmless, because an episode's place never
// changes while its namespace lives (a purge makes the next order a fresh
// read) and around reports an episode the order lacks as not found. It is
// safe for concurrent use.
type threadPlaces struct {
	mu   sync.RWMutex
	byID map[string]threadInsert
}

// newThreadPlaces indexes ins.
func newThreadPlaces(ins []threadInsert) *threadPlaces {
	p := &threadPlaces{byID: make(map[string]threadInsert, len(ins))}
	for _, in := range ins {
		p.byID[in.id] = in
	}
	return p
}

// add indexes ins.
func (p *threadPlaces) add(ins []threadInsert) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, in := range ins {
		p.byID[in.id] = in
	}
}

// place returns the place of the episode id, if indexed.
func (p *threadPlaces) place(id string) (threadInsert, bool) {
	p.mu.RLock()
	defer p.mu.RUnlock()
	in, ok := p.byID[id]
	return in, ok
}

// threadEntry is one episode's place in its thread.
type threadEntry struct {
	id      string
	ts, rid int64
}

func compareEntries(a, b threadEntry) int {
	return cmp.Or(cmp.Compare(a.ts, b.ts), cmp.Compare(a.rid, b.rid))
}

// threadInsert is an episode a write stored with a timestamp.
type threadInsert struct {
	thread string
	threadEntry
}

// with returns the order with ins added, copying only the threads they
// join; o is unchanged.
func (o *threadOrder) with(ins []threadInsert) *threadOrder {
	if len(ins) == 0 {
		return o
	}
	o.places.add(ins)
	out := &threadOrder{threads: maps.Clone(o.threads), size: o.size + len(ins), places: o.places}
	copied := map[string]bool{}
	for _, in := range ins {
		list := out.threads[in.thread]
		if !copied[in.thread] {
			list = slices.Clip(list) // the next insert copies: o keeps its own
			copied[in.thread] = true
		}
		i, _ := slices.BinarySearchFunc(list, in.threadEntry, compareEntries)
		out.threads[in.thread] = slices.Insert(list, i, in.threadEntry)
	}
	return out
}

// around returns the ids of up to window episodes before (nearest first)
// and after the episode at (ts, rid) in thread; found is false when the
// order does not hold that episode.
func (o *threadOrder) around(thread string, ts, rid int64, window int) (before, after []string, found bool) {
	list := o.threads[thread]
	i, found := slices.BinarySearchFunc(list, threadEntry{ts: ts, rid: rid}, compareEntries)
	if !found {
		return nil, nil, false
	}
	for j := i - 1; j >= 0 && j >= i-window; j-- {
		before = append(before, list[j].id)
	}
	for j := i + 1; j < len(list) && j <= i+window; j++ {
		after = append(after, list[j].id)
	}
	return before, after, true
}

// threadOrderOf returns the current thread order of ns, reading it when the
// cached one is missing or was read at another graph version, or ok false
// when ns has too many episodes to hold.
func (s *Store) threadOrderOf(ctx context.Context, ns kgmem.Namespace, version int64) (*threadOrder, bool, error) {
	return s.threads.Get(ctx, string(ns), version, func(ctx context.Context) (nscache.Loaded[*threadOrder], error) {
		return readView(ctx, s, ns, "episodes", threadOrderBudget, func(q querier) (*threadOrder, int, error) {
			rows, err := collect(ctx, q, func(rows *sql.Rows) (threadInsert, error) {
				var in threadInsert
				return in, rows.Scan(&in.id, &in.thread, &in.ts, &in.rid)
			}, `SELECT id, thread_id, timestamp, rid FROM episodes WHERE namespace = ? AND timestamp IS NOT NULL
				ORDER BY thread_id, timestamp, rid`, ns)
			if err != nil {
				return nil, 0, fmt.Errorf("read thread order: %w", err)
			}
			o := &threadOrder{threads: map[string][]threadEntry{}, size: len(rows), places: newThreadPlaces(rows)}
			for _, in := range rows {
				o.threads[in.thread] = append(o.threads[in.thread], in.threadEntry)
			}
			return o, o.size, nil
		})
	})
}
