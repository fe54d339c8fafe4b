package sqlite

import (
	"cmp"
	"container/list"
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strconv"
	"sync"

	"github.com/kgmem/kgmem"
	"golang.org/x/sync/singleflight"
)

// topologyBudget bounds the facts the topology cache holds over all
// namespaces (about 200 bytes each): past it the least recently walked
// namespaces are dropped, and a namespace larger than it is walked in SQL.
const topologyBudget = 2_000_000

// topology is the shape of one namespace's graph at one graph version: every
// fact's graph fields, and per entity its facts as subject and as object in
// walk order. Graph expansion (Neighborhood with FactsOnly) walks it in
// memory instead of reading a few thousand rows per search.
type topology struct {
	version int64
	edges   []edge
	// bySubject and byObject list the edges of each entity in that role,
	// most important first, then by id: the order of the facts_subject and
	// facts_object indexes the SQL walk reads.
	bySubject, byObject map[string][]int32
}

// edge is a fact's graph fields.
type edge struct {
	id, subject, predicate, object       string
	confidence                           float64
	importance                           int
	validAt, invalidAt, created, expired sql.NullInt64
}

// fact returns the edge as a fact of ns with its graph fields only.
func (e *edge) fact(ns kgmem.Namespace) kgmem.Fact {
	return kgmem.Fact{ID: e.id, Namespace: ns, SubjectID: e.subject, Predicate: e.predicate, ObjectID: e.object,
		Confidence: e.confidence, Importance: e.importance, ValidAt: fromMillis(e.validAt), InvalidAt: fromMillis(e.invalidAt),
		CreatedAt: fromMillis(e.created), ExpiredAt: fromMillis(e.expired)}
}

// expand returns, for each entity of frontier, at most fanOut of its facts
// in either role (unexpired ones unless includeExpired), most important
// first, then by id: what the SQL walk's expand query returns.
func (t *topology) expand(ns kgmem.Namespace, frontier []string, fanOut int, includeExpired bool) []kgmem.Fact {
	var out []kgmem.Fact
	picked := make([]int32, 0, 2*fanOut)
	for _, ent := range frontier {
		picked = picked[:0]
		for _, side := range [][]int32{t.bySubject[ent], t.byObject[ent]} {
			n := 0
			for _, i := range side {
				if n == fanOut {
					break
				}
				if includeExpired || !t.edges[i].expired.Valid {
					picked = append(picked, i)
					n++
				}
			}
		}
		slices.SortFunc(picked, t.walkOrder)
		picked = slices.Compact(picked) // a fact from ent to itself is on both sides
		for _, i := range picked[:min(fanOut, len(picked))] {
			out = append(out, t.edges[i].fact(ns))
		}
	}
	return out
}

// walkOrder orders edge indexes most important first, then by fact id.
func (t *topology) walkOrder(a, b int32) int {
	ea, eb := &t.edges[a], &t.edges[b]
	return cmp.Or(cmp.Compare(eb.importance, ea.importance), cmp.Compare(ea.id, eb.id))
}

// topologyCache keeps the topologies of the most recently walked namespaces,
// each valid while its namespace's graph version (graph_versions, raised by
// every write that can change the graph, from this process or another) is
// the one it was read at.
type topologyCache struct {
	mu      sync.Mutex
	entries map[kgmem.Namespace]*list.Element // of *cachedTopology
	lru     *list.List                        // most recently used first
	held    int                               // edges held
	budget  int
	loads   singleflight.Group
}

// cachedTopology is one entry of the cache.
type cachedTopology struct {
	ns   kgmem.Namespace
	topo *topology
}

// newTopologyCache returns an empty cache holding at most budget edges.
func newTopologyCache(budget int) *topologyCache {
	return &topologyCache{entries: map[kgmem.Namespace]*list.Element{}, lru: list.New(), budget: budget}
}

// topology returns the current topology of ns, reading it when the cached
// one is missing or out of date, or nil when ns is too large to cache.
func (s *Store) topology(ctx context.Context, ns kgmem.Namespace) (*topology, error) {
	version, err := graphVersion(ctx, s.cached(s.r), ns)
	if err != nil {
		return nil, err
	}
	c := s.topo
	c.mu.Lock()
	if el, ok := c.entries[ns]; ok && el.Value.(*cachedTopology).topo.version == version {
		c.lru.MoveToFront(el)
		c.mu.Unlock()
		return el.Value.(*cachedTopology).topo, nil
	}
	c.mu.Unlock()
	v, err, _ := c.loads.Do(string(ns)+"\x00"+strconv.FormatInt(version, 10), func() (any, error) {
		// Shared by every caller waiting on it: one caller's deadline must
		// not fail the others (the read is bounded by the budget).
		t, err := s.readTopology(context.WithoutCancel(ctx), ns)
		if err != nil || t == nil {
			return t, err
		}
		c.put(ns, t)
		return t, nil
	})
	if err != nil {
		return nil, err
	}
	return v.(*topology), nil
}

// put caches t as the topology of ns unless a newer one is cached, evicting
// the least recently used namespaces to stay within the budget.
func (c *topologyCache) put(ns kgmem.Namespace, t *topology) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.entries[ns]; ok {
		old := el.Value.(*cachedTopology)
		if old.topo.version > t.version {
			return
		}
		c.held -= len(old.topo.edges)
		c.lru.Remove(el)
		delete(c.entries, ns)
	}
	for c.held+len(t.edges) > c.budget && c.lru.Len() > 0 {
		last := c.lru.Back()
		evicted := last.Value.(*cachedTopology)
		c.held -= len(evicted.topo.edges)
		c.lru.Remove(last)
		delete(c.entries, evicted.ns)
	}
	c.entries[ns] = c.lru.PushFront(&cachedTopology{ns: ns, topo: t})
	c.held += len(t.edges)
}

// readTopology reads the topology of ns and its version in one read
// transaction, or returns nil when ns holds more facts than the budget.
func (s *Store) readTopology(ctx context.Context, ns kgmem.Namespace) (*topology, error) {
	tx, err := s.r.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return nil, fmt.Errorf("begin: %w", wrapErr(err))
	}
	defer func() { _ = tx.Rollback() }()
	q := s.cached(tx)
	t := &topology{bySubject: map[string][]int32{}, byObject: map[string][]int32{}}
	if t.version, err = graphVersion(ctx, q, ns); err != nil {
		return nil, err
	}
	n, err := integerOn(ctx, q, `SELECT count(*) FROM facts WHERE namespace = ?`, ns)
	if err != nil {
		return nil, fmt.Errorf("count facts: %w", err)
	}
	if n > int64(s.topo.budget) {
		return nil, nil
	}
	t.edges, err = collect(ctx, q, func(rows *sql.Rows) (edge, error) {
		var e edge
		return e, rows.Scan(&e.id, &e.subject, &e.predicate, &e.object, &e.confidence, &e.importance,
			&e.validAt, &e.invalidAt, &e.created, &e.expired)
	}, `SELECT id, subject_id, predicate, object_id, confidence, importance, valid_at, invalid_at, created_at, expired_at
		FROM facts WHERE namespace = ?`, ns)
	if err != nil {
		return nil, fmt.Errorf("read facts: %w", err)
	}
	// Entity ids repeat across facts: keep one copy of each.
	names := map[string]string{}
	intern := func(s string) string {
		if v, ok := names[s]; ok {
			return v
		}
		names[s] = s
		return s
	}
	for i := range t.edges {
		e := &t.edges[i]
		e.subject, e.object, e.predicate = intern(e.subject), intern(e.object), intern(e.predicate)
		t.bySubject[e.subject] = append(t.bySubject[e.subject], int32(i))
		t.byObject[e.object] = append(t.byObject[e.object], int32(i))
	}
	for _, m := range []map[string][]int32{t.bySubject, t.byObject} {
		for _, idx := range m {
			slices.SortFunc(idx, t.walkOrder)
		}
	}
	return t, nil
}

// graphVersion reads the graph version of ns: 0 when it has none (never
// written, or purged).
func graphVersion(ctx context.Context, q querier, ns kgmem.Namespace) (int64, error) {
	v, err := integers(ctx, q, `SELECT version FROM graph_versions WHERE namespace = ?`, ns)
	if err != nil {
		return 0, fmt.Errorf("graph version: %w", err)
	}
	if len(v) == 0 {
		return 0, nil
	}
	return v[0], nil
}
