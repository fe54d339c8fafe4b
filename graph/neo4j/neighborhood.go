package neo4j

import (
	"context"
	"fmt"

	"github.com/kgmem/kgmem"
	"github.com/neo4j/neo4j-go-driver/v5/neo4j"
)

// Neighborhood defaults, for zero fields of kgmem.NeighborhoodQuery.
const (
	defaultDepth  = 1
	defaultFanOut = 50
)

// qExpand returns, for every frontier entity, at most $fanout of its facts
// (either direction, most important first, then by id) and their ends. The
// subquery sorts one entity's facts at a time, so a hub costs its degree once
// and returns $fanout rows.
const qExpand = `UNWIND $frontier AS fid
	MATCH (e:Entity {namespace: $ns, id: fid})
	CALL (e) {
		MATCH (e)-[r]-(:Entity)
		WHERE r.namespace = $ns AND r.id IS NOT NULL AND ($all OR r.expired_at IS NULL)
		WITH DISTINCT r
		ORDER BY r.importance DESC, r.id
		LIMIT $fanout
		RETURN r
	}
	WITH fid, r, startNode(r) AS s, endNode(r) AS o
	RETURN properties(r) AS fact, s.name AS subject, o.name AS object, s.type AS subject_type, o.type AS object_type
	ORDER BY fid, r.importance DESC, r.id`

// Neighborhood walks breadth-first from the seeds of ns, ignoring fact
// direction: each entity reached at distance d < q.Depth contributes at most
// q.FanOut facts (most important first, then by id), whose other ends are
// reached at d+1 unless already nearer. One read transaction, one query per
// level. With q.FactsOnly the walk runs in memory over the namespace's
// cached topology (topology.go), current as of the namespace's graph version
// (version.go), and returns facts with their graph fields only; a namespace
// over the cache's budget, or being purged, is walked in Cypher.
func (s *Store) Neighborhood(ctx context.Context, ns kgmem.Namespace, q kgmem.NeighborhoodQuery) (kgmem.Subgraph, error) {
	if err := checkNamespace(ns); err != nil {
		return kgmem.Subgraph{}, fmt.Errorf("neo4j: neighborhood: %w", err)
	}
	depth, fanOut, err := s.checkNeighborhoodQuery(q)
	if err != nil {
		return kgmem.Subgraph{}, fmt.Errorf("neo4j: neighborhood: %w", err)
	}
	if q.FactsOnly {
		g, ok, err := s.walkFactsOnly(ctx, ns, q, depth, fanOut)
		if err != nil {
			return kgmem.Subgraph{}, fmt.Errorf("neo4j: neighborhood in %s: %w", ns, err)
		}
		if ok {
			return g, nil
		}
	}
	g, err := s.cypherWalk(ctx, ns, q, depth, fanOut)
	if err != nil {
		return kgmem.Subgraph{}, fmt.Errorf("neo4j: neighborhood in %s: %w", ns, err)
	}
	return g, nil
}

// cypherWalk is Neighborhood in Cypher, in one read transaction (walk).
func (s *Store) cypherWalk(ctx context.Context, ns kgmem.Namespace, q kgmem.NeighborhoodQuery, depth, fanOut int) (kgmem.Subgraph, error) {
	key := s.key(ns)
	g, err := execute(ctx, s, neo4j.AccessModeRead, func(tx neo4j.ManagedTransaction) (kgmem.Subgraph, error) {
		return walk(ctx, tx, ns, key, q, depth, fanOut)
	})
	return g, mapErr(err)
}

// WalkFacts is Neighborhood with FactsOnly handed to visit (kgmem.GraphStore):
// over the namespace's cached topology without making a fact of each, or
// over the walk in Cypher when there is none to walk.
func (s *Store) WalkFacts(ctx context.Context, ns kgmem.Namespace, q kgmem.NeighborhoodQuery, visit func(kgmem.WalkedFact)) error {
	if err := checkNamespace(ns); err != nil {
		return fmt.Errorf("neo4j: walk facts: %w", err)
	}
	depth, fanOut, err := s.checkNeighborhoodQuery(q)
	if err != nil {
		return fmt.Errorf("neo4j: walk facts: %w", err)
	}
	topo, existing, ok, err := s.topologyWalk(ctx, ns, q)
	if err != nil {
		return fmt.Errorf("neo4j: walk facts in %s: %w", ns, err)
	}
	if ok {
		topo.Visit(existing, depth, fanOut, q.IncludeExpired, visit)
		return nil
	}
	q.FactsOnly = true
	g, err := s.cypherWalk(ctx, ns, q, depth, fanOut)
	if err != nil {
		return fmt.Errorf("neo4j: walk facts in %s: %w", ns, err)
	}
	kgmem.VisitSubgraph(g, visit)
	return nil
}

// walk is the breadth-first traversal inside one transaction: one query
// per level (kgmem.WalkNeighborhood keeps the books).
func walk(ctx context.Context, tx neo4j.ManagedTransaction, ns kgmem.Namespace, key string, q kgmem.NeighborhoodQuery, depth, fanOut int) (kgmem.Subgraph, error) {
	return kgmem.WalkNeighborhood(ctx, q, depth, kgmem.NeighborhoodSteps{
		Entities: func(ctx context.Context, ids []string) ([]kgmem.Entity, error) {
			recs, err := run(ctx, tx, `UNWIND $ids AS id MATCH (e:Entity {namespace: $ns, id: id}) RETURN properties(e) AS e ORDER BY e.id`,
				map[string]any{"ns": key, "ids": ids})
			if err != nil {
				return nil, err
			}
			return decodeEntities(ns, recs)
		},
		Expand: func(ctx context.Context, frontier []string, dst []kgmem.Fact) ([]kgmem.Fact, error) {
			recs, err := run(ctx, tx, qExpand, map[string]any{
				"ns": key, "frontier": frontier, "fanout": int64(fanOut), "all": q.IncludeExpired,
			})
			if err != nil {
				return dst, err
			}
			facts, err := decodeFacts(ns, recs)
			return append(dst, facts...), err
		},
	})
}

// checkNeighborhoodQuery validates q against the configured caps and returns
// its effective depth and fan-out.
func (s *Store) checkNeighborhoodQuery(q kgmem.NeighborhoodQuery) (int, int, error) {
	depth, fanOut := q.Depth, q.FanOut
	switch {
	case depth < 0:
		return 0, 0, kgmem.Invalidf("depth", "must not be negative, got %d", depth)
	case fanOut < 0:
		return 0, 0, kgmem.Invalidf("fan_out", "must not be negative, got %d", fanOut)
	case depth > s.cfg.MaxTraversalDepth:
		return 0, 0, kgmem.Invalidf("depth", "must be at most %d, got %d", s.cfg.MaxTraversalDepth, depth)
	case fanOut > s.cfg.MaxTraversalFanOut:
		return 0, 0, kgmem.Invalidf("fan_out", "must be at most %d, got %d", s.cfg.MaxTraversalFanOut, fanOut)
	}
	if depth == 0 {
		depth = defaultDepth
	}
	if fanOut == 0 {
		fanOut = defaultFanOut
	}
	return depth, fanOut, nil
}
