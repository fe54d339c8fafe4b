package neo4j

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/kgmem/kgmem"
	"github.com/neo4j/neo4j-go-driver/v5/neo4j"
)

// Thread order: timestamp, then created_at, then seq (the place in the
// change set that stored the episode), which matches the storage order the
// embedded store uses. Each neighbour comes with its role, and each
// episode asked about with its own (kgmem.ThreadNeighbor.RolesKnown).
//
// Neo4j plans the nearest episodes of a thread as a seek of the thread's
// (namespace, thread_id, timestamp) index followed by a sort of everything
// the seek returns: it does not read the index in order and stop at the
// window, whatever the index. A seek of the whole thread on one side of an
// episode costs a read of every episode there, per search hit, so a long
// thread made every search slow. The seeks are bounded instead, ring by
// ring of time around each episode asked about (threadRings): the first
// ring is read for every side, each further ring only for the sides that
// found fewer episodes than the window and have some beyond (a check that
// stops at the first one). The answer is exactly what one unbounded seek
// would give; a hit costs one query that reads the turns of the day around
// it, and one at a thread's end no more.

// threadRings are the bounds, in time from the episode, of the rings of
// thread neighbours read one after the other; the last ring has no outer
// bound.
var threadRings = []time.Duration{24 * time.Hour, 30 * 24 * time.Hour}

// Predicates of a thread neighbour n of a on each side, in thread order:
// a closed range of timestamps, which the index seeks, and the order of
// the sort keys, compared as lists. Written as ORs of comparisons, the
// order made the planner seek each alternative apart, one of them over
// the whole thread before the anchor, and filter the ring's bound after.
const (
	threadBefore = `n.timestamp <= a.timestamp AND [n.timestamp, n.created_at, coalesce(n.seq, 0)] < threadKey`
	threadAfter  = `n.timestamp >= a.timestamp AND [n.timestamp, n.created_at, coalesce(n.seq, 0)] > threadKey`
)

// qThreadRing lists, for each row {id, before, after} of $rows, the ids and
// roles of the episodes just before the episode id in its thread (when
// before) and just after it (when after), nearest first on each side, up to
// $window each, among those between $inner (when inner) and $outer (when
// outer) from it in time; with outer, whether any episode of the thread
// lies beyond $outer on each side.
func qThreadRing(inner, outer bool) string {
	// The bounds are computed once per episode asked about, not once per
	// neighbour read: date-time arithmetic is not cheap in Cypher.
	before, after := []string{threadBefore}, []string{threadAfter}
	bounds := []string{`[a.timestamp, a.created_at, coalesce(a.seq, 0)] AS threadKey`}
	if inner {
		before = append(before, `n.timestamp < innerBefore`)
		after = append(after, `n.timestamp > innerAfter`)
		bounds = append(bounds, `a.timestamp - $inner AS innerBefore`, `a.timestamp + $inner AS innerAfter`)
	}
	beyond, probes := `false AS moreBefore, false AS moreAfter`, ``
	if outer {
		before = append(before, `n.timestamp >= outerBefore`)
		after = append(after, `n.timestamp <= outerAfter`)
		bounds = append(bounds, `a.timestamp - $outer AS outerBefore`, `a.timestamp + $outer AS outerAfter`)
		beyond = `moreBefore, moreAfter`
		probes = `
	CALL (a, outerBefore, wantBefore) {
		WITH a, outerBefore WHERE wantBefore
		MATCH (m:Episode {namespace: $ns, thread_id: a.thread_id}) USING INDEX m:Episode(namespace, thread_id, timestamp)
		WHERE m.timestamp < outerBefore
		WITH m LIMIT 1
		RETURN count(m) > 0 AS moreBefore
	}
	CALL (a, outerAfter, wantAfter) {
		WITH a, outerAfter WHERE wantAfter
		MATCH (m:Episode {namespace: $ns, thread_id: a.thread_id}) USING INDEX m:Episode(namespace, thread_id, timestamp)
		WHERE m.timestamp > outerAfter
		WITH m LIMIT 1
		RETURN count(m) > 0 AS moreAfter
	}`
	}
	scope := strings.Join(append([]string{"a"}, boundNames(bounds)...), ", ")
	return stablePlan + `UNWIND $rows AS row
	MATCH (a:Episode {namespace: $ns, id: row.id})
	WITH ` + strings.Join(append([]string{"a", "row.id AS id", "row.before AS wantBefore", "row.after AS wantAfter"}, bounds...), ", ") + `
	CALL (` + scope + `, wantBefore) {
		WITH ` + scope + ` WHERE wantBefore
		MATCH (n:Episode {namespace: $ns, thread_id: a.thread_id}) USING INDEX n:Episode(namespace, thread_id, timestamp)
		WHERE ` + strings.Join(before, " AND ") + `
		WITH n ORDER BY n.timestamp DESC, n.created_at DESC, coalesce(n.seq, 0) DESC LIMIT $window
		RETURN collect([n.id, n.role]) AS before
	}
	CALL (` + scope + `, wantAfter) {
		WITH ` + scope + ` WHERE wantAfter
		MATCH (n:Episode {namespace: $ns, thread_id: a.thread_id}) USING INDEX n:Episode(namespace, thread_id, timestamp)
		WHERE ` + strings.Join(after, " AND ") + `
		WITH n ORDER BY n.timestamp, n.created_at, coalesce(n.seq, 0) LIMIT $window
		RETURN collect([n.id, n.role]) AS after
	}` + probes + `
	RETURN id, a.role, before, after, ` + beyond
}

// boundNames are the variables "expr AS name" items bind.
func boundNames(items []string) []string {
	names := make([]string, len(items))
	for i, item := range items {
		_, names[i], _ = strings.Cut(item, " AS ")
	}
	return names
}

var (
	// qThreadFirst reads the first ring, qThreadMiddle the ones between two
	// bounds, qThreadLast the one beyond the last bound.
	qThreadFirst, qThreadMiddle, qThreadLast = qThreadRing(false, true), qThreadRing(true, true), qThreadRing(true, false)
)

// ThreadNeighbors returns the ids of the episodes up to q.Window places
// before and after each episode of q.IDs in its thread: one query for all
// ids and both sides in the first ring of time around them, and one per
// further ring for the sides that need it.
func (s *Store) ThreadNeighbors(ctx context.Context, ns kgmem.Namespace, q kgmem.ThreadNeighborsQuery) ([]kgmem.ThreadNeighbor, error) {
	if err := checkNamespace(ns); err != nil {
		return nil, fmt.Errorf("neo4j: thread neighbors: %w", err)
	}
	window := q.Window
	switch {
	case window < 0 || window > kgmem.MaxThreadWindow:
		return nil, fmt.Errorf("neo4j: thread neighbors: %w", kgmem.Invalidf("window", "is %d, must be within 0..%d", window, kgmem.MaxThreadWindow))
	case window == 0:
		window = 1
	}
	if len(q.IDs) == 0 {
		return nil, nil
	}
	found := make(map[string]threadSides, len(q.IDs))
	rows := make([]any, len(q.IDs))
	for i, id := range q.IDs {
		rows[i] = map[string]any{"id": id, "before": true, "after": true}
	}
	for ring := 0; ring <= len(threadRings) && len(rows) > 0; ring++ {
		query, params := qThreadMiddle, map[string]any{"ns": s.key(ns), "window": int64(window), "rows": rows}
		switch {
		case ring == 0:
			query = qThreadFirst
		case ring == len(threadRings):
			query = qThreadLast
		}
		if ring > 0 {
			params["inner"] = cypherDuration(threadRings[ring-1])
		}
		if ring < len(threadRings) {
			params["outer"] = cypherDuration(threadRings[ring])
		}
		more, err := s.readThreadSides(ctx, query, params)
		if err != nil {
			return nil, fmt.Errorf("neo4j: thread neighbors in %s: %w", ns, err)
		}
		rows = rows[:0:0]
		for _, id := range q.IDs {
			got, ok := more[id]
			if !ok {
				continue
			}
			delete(more, id) // an id asked twice is answered once
			sides := found[id]
			sides.role = got.role
			sides.before = append(sides.before, got.before[:min(len(got.before), window-len(sides.before))]...)
			sides.after = append(sides.after, got.after[:min(len(got.after), window-len(sides.after))]...)
			found[id] = sides
			before := got.moreBefore && len(sides.before) < window
			after := got.moreAfter && len(sides.after) < window
			if before || after {
				rows = append(rows, map[string]any{"id": id, "before": before, "after": after})
			}
		}
	}
	var out []kgmem.ThreadNeighbor
	for _, id := range q.IDs {
		sides, ok := found[id]
		if !ok {
			continue
		}
		delete(found, id)
		for _, side := range []struct {
			sign int
			eps  []threadEpisode
		}{{-1, sides.before}, {1, sides.after}} {
			for i, n := range side.eps {
				out = append(out, kgmem.ThreadNeighbor{Of: id, Offset: side.sign * (i + 1), ID: n.id, Role: n.role, OfRole: sides.role, RolesKnown: true})
			}
		}
	}
	return out, nil
}

// cypherDuration is d as a Cypher duration.
func cypherDuration(d time.Duration) neo4j.Duration {
	return neo4j.DurationOf(0, 0, int64(d/time.Second), int(d%time.Second))
}

// threadEpisode is a thread neighbour's id and role.
type threadEpisode struct{ id, role string }

// threadSides is what one query found on each side of an episode, nearest
// first, with the episode's own role and whether the thread holds episodes
// on each side beyond the ring read.
type threadSides struct {
	role                  string
	before, after         []threadEpisode
	moreBefore, moreAfter bool
}

// readThreadSides runs a thread neighbours query and returns its sides by
// the id asked about; ids not stored in the namespace are absent.
func (s *Store) readThreadSides(ctx context.Context, query string, params map[string]any) (map[string]threadSides, error) {
	recs, err := s.read(ctx, query, params)
	if err != nil {
		return nil, err
	}
	out := make(map[string]threadSides, len(recs))
	for _, rec := range recs {
		id, _ := rec.Values[0].(string)
		sides := threadSides{}
		sides.role, _ = rec.Values[1].(string)
		for i, side := range []*[]threadEpisode{&sides.before, &sides.after} {
			eps, _ := rec.Values[2+i].([]any)
			for _, raw := range eps {
				pair, _ := raw.([]any)
				var n threadEpisode
				if len(pair) == 2 {
					n.id, _ = pair[0].(string)
					n.role, _ = pair[1].(string)
				}
				if n.id == "" {
					return nil, fmt.Errorf("the neighbours of %s: an episode without an id", id)
				}
				*side = append(*side, n)
			}
		}
		sides.moreBefore, _ = rec.Values[4].(bool)
		sides.moreAfter, _ = rec.Values[5].(bool)
		out[id] = sides
	}
	return out, nil
}
