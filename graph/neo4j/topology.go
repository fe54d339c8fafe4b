package neo4j

import (
	"context"
	"fmt"
	"slices"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/graph/topology"
	"github.com/kgmem/kgmem/internal/nscache"
	"github.com/neo4j/neo4j-go-driver/v5/neo4j"
)

// Topology queries.
const (
	// qSeedsAndVersion returns, in one round trip, the graph version of $ns
	// and which of $ids are entities of $ns: all that a FactsOnly walk reads
	// from the server when the topology is cached.
	qSeedsAndVersion = qVersion + `
		CALL () {
			UNWIND $ids AS id
			MATCH (e:Entity {namespace: $ns, id: id})
			RETURN collect(e.id) AS found
		}
		RETURN version, purging, found`
	// qVersionAndSize returns the graph version of $ns and its number of
	// facts, counted by their (:FactText) index nodes.
	qVersionAndSize = qVersion + `
		CALL () { MATCH (t:FactText {namespace: $ns}) RETURN count(t) AS facts }
		RETURN version, purging, facts`
	// qTopologyFacts returns the graph fields of every fact of $ns, as one
	// row per subject holding a list per fact (in the order of
	// topologyFields): a fact relationship leaves its subject, an entity
	// of $ns. Rows of lists rather than a row per fact: the driver's cost
	// is mostly per row.
	qTopologyFacts = `MATCH (e:Entity {namespace: $ns})
		CALL (e) {
			MATCH (e)-[r]->()
			WHERE r.namespace = $ns AND r.id IS NOT NULL
			RETURN collect([r.id, r.subject_id, r.predicate, r.object_id, r.confidence, r.importance,
				r.valid_at, r.invalid_at, r.created_at, r.expired_at]) AS facts
		}
		WITH facts WHERE size(facts) > 0
		RETURN facts`
)

// topologyFields are the properties of each fact list of qTopologyFacts.
var topologyFields = []string{"id", "subject_id", "predicate", "object_id", "confidence", "importance",
	"valid_at", "invalid_at", "created_at", "expired_at"}

// walkFactsOnly answers a FactsOnly Neighborhood query in memory, over the
// cached topology of ns (topologyWalk); ok is false, and the caller walks in
// Cypher, when there is none to walk.
func (s *Store) walkFactsOnly(ctx context.Context, ns kgmem.Namespace, q kgmem.NeighborhoodQuery, depth, fanOut int) (g kgmem.Subgraph, ok bool, err error) {
	topo, existing, ok, err := s.topologyWalk(ctx, ns, q)
	if err != nil || !ok {
		return g, false, err
	}
	return topo.Walk(existing, depth, fanOut, q.IncludeExpired), true, nil
}

// topologyWalk returns the cached topology of ns (graph/topology) current
// as of its graph version (version.go) and the seeds of q that exist: one
// round trip reads the version and the seeds, and a topology missing or read
// at another version is read again (readTopology). ok is false when ns has
// more facts than the cache's budget or is being purged.
func (s *Store) topologyWalk(ctx context.Context, ns kgmem.Namespace, q kgmem.NeighborhoodQuery) (topo *topology.Topology, existing []string, ok bool, err error) {
	key := s.key(ns)
	seeds := slices.Compact(slices.Sorted(slices.Values(q.Seeds)))
	recs, err := s.read(ctx, qSeedsAndVersion, map[string]any{"ns": key, "ids": seeds})
	if err != nil {
		return nil, nil, false, fmt.Errorf("seeds and graph version: %w", err)
	}
	v, err := decodeVersion(recs, 0, 1)
	if err != nil {
		return nil, nil, false, err
	}
	if v.purging {
		return nil, nil, false, nil
	}
	topo, ok, err = s.topology(ctx, key, ns, v.version)
	if err != nil || !ok {
		return nil, nil, false, err
	}
	// With FactsOnly the walk needs only which seeds exist.
	list, _ := recs[0].Values[2].([]any)
	for _, id := range list {
		if id, ok := id.(string); ok && slices.Contains(seeds, id) {
			existing = append(existing, id)
		}
	}
	return topo, existing, true, nil
}

// topology returns the topology of the namespace key (ns to callers) at
// version, reading it when the cached one is missing or was read at another
// version, or ok false when the namespace is to be walked in Cypher (more
// facts than the budget, or a purge under way). Such a namespace is cached
// as a nil topology of size 0, so its facts are counted once per version
// rather than on every walk.
func (s *Store) topology(ctx context.Context, key string, ns kgmem.Namespace, version int64) (t *topology.Topology, ok bool, err error) {
	t, ok, err = s.topo.Get(ctx, key, version, func(ctx context.Context) (nscache.Loaded[*topology.Topology], error) {
		return s.readTopology(ctx, key, ns)
	})
	if err != nil {
		return nil, false, fmt.Errorf("topology: %w", err)
	}
	return t, ok && t != nil, nil
}

// readTopology reads the topology of the namespace key in one read
// transaction, labelled with the graph version read first: Neo4j reads
// committed data statement by statement, not from one snapshot, so facts
// read after the version are at least as new as it, and a write after the
// version read only makes the topology newer than its label (which costs a
// needless reload, never a stale walk). The topology is nil, and no fact is
// read, when the namespace has more facts than the budget or is marked
// purging.
func (s *Store) readTopology(ctx context.Context, key string, ns kgmem.Namespace) (nscache.Loaded[*topology.Topology], error) {
	l, err := execute(ctx, s, neo4j.AccessModeRead, func(tx neo4j.ManagedTransaction) (nscache.Loaded[*topology.Topology], error) {
		var l nscache.Loaded[*topology.Topology]
		recs, err := run(ctx, tx, qVersionAndSize, map[string]any{"ns": key})
		if err != nil {
			return l, fmt.Errorf("graph version and facts count: %w", err)
		}
		v, err := decodeVersion(recs, 0, 1)
		if err != nil {
			return l, err
		}
		l.Version = v.version
		if n, _ := recs[0].Values[2].(int64); n > topology.CacheBudget || v.purging {
			return l, nil
		}
		facts, err := readTopologyFacts(ctx, tx, key, ns)
		if err != nil {
			return l, err
		}
		l.Value, l.Size = topology.New(ns, facts), len(facts)
		return l, nil
	})
	if err != nil {
		return l, mapErr(err)
	}
	return l, nil
}

// readTopologyFacts streams the graph fields of every fact of the namespace
// key inside tx (qTopologyFacts).
func readTopologyFacts(ctx context.Context, tx neo4j.ManagedTransaction, key string, ns kgmem.Namespace) ([]kgmem.Fact, error) {
	res, err := tx.Run(ctx, qTopologyFacts, map[string]any{"ns": key})
	if err != nil {
		return nil, fmt.Errorf("read facts: %w", err)
	}
	var facts []kgmem.Fact
	m := make(map[string]any, len(topologyFields))
	for res.Next(ctx) {
		list, _ := res.Record().Values[0].([]any)
		for _, x := range list {
			vals, _ := x.([]any)
			if len(vals) != len(topologyFields) {
				return nil, fmt.Errorf("read facts: a fact of %d fields, want %d", len(vals), len(topologyFields))
			}
			for i, k := range topologyFields {
				m[k] = vals[i]
			}
			f, err := decodeFact(ns, m, "", "")
			if err != nil {
				return nil, fmt.Errorf("read facts: %w", err)
			}
			facts = append(facts, f)
		}
	}
	if err := res.Err(); err != nil {
		return nil, fmt.Errorf("read facts: %w", err)
	}
	return facts, nil
}
