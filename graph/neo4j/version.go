package neo4j

import (
	"context"
	"fmt"
	"math/rand/v2"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"
)

// Graph versions. Each stored namespace key that has been written has one
// (:KgmemGraphVersion {namespace, version}) node. Every write transaction
// that can change the namespace's facts (their existence or graph fields:
// ends, predicate, confidence, importance, the four times) sets version to a
// fresh random token inside the same transaction, so a view derived from
// the facts (the topology of topology.go) and labelled with the version it
// was read at is current exactly while the version is unchanged, whichever
// process wrote. A missing node reads as version 0 (never written with
// facts, or purged); since tokens are random, a purged and re-created
// namespace never meets a version of its former life. Tokens are compared
// for equality only.
//
// PurgeNamespace deletes in many transactions, so it first marks the node
// purging (readers then walk in Cypher and cache nothing), and deletes it
// last; an interrupted purge leaves the mark until a later purge finishes.
const (
	// qBumpVersion gives the namespace $ns the version $version.
	qBumpVersion = stablePlan + `MERGE (v:` + labelGraphVersion + ` {namespace: $ns}) SET v.version = $version`
	// qMarkPurging gives $ns the version $version and the purging mark.
	qMarkPurging = stablePlan + `MERGE (v:` + labelGraphVersion + ` {namespace: $ns}) SET v.version = $version, v.purging = true`
	// qVersion binds version and purging (false without a mark) to the graph
	// version of $ns, 0 without a node: the start of the queries that read it.
	qVersion = stablePlan + `OPTIONAL MATCH (v:` + labelGraphVersion + ` {namespace: $ns})
		WITH coalesce(v.version, 0) AS version, coalesce(v.purging, false) AS purging`
)

// graphVersion is a namespace's graph version as read by one query.
type graphVersion struct {
	// version is the token of the last write of the namespace's facts, or 0.
	version int64
	// purging is true while a purge of the namespace is under way (or was
	// interrupted): its facts may change without a new version.
	purging bool
}

// newVersion returns a fresh random version token, never 0 (the version of
// a namespace without a version node).
func newVersion() int64 {
	for {
		if v := rand.Int64(); v != 0 {
			return v
		}
	}
}

// bumpVersion gives the namespace key a fresh version inside the write
// transaction tx; every write that can change its facts calls it.
func bumpVersion(ctx context.Context, tx neo4j.ManagedTransaction, key string) error {
	if _, err := run(ctx, tx, qBumpVersion, map[string]any{"ns": key, "version": newVersion()}); err != nil {
		return fmt.Errorf("graph version: %w", err)
	}
	return nil
}

// decodeVersion reads a graphVersion from the columns vi (version) and pi
// (purging) of the single record of recs.
func decodeVersion(recs []*neo4j.Record, vi, pi int) (graphVersion, error) {
	if len(recs) != 1 {
		return graphVersion{}, fmt.Errorf("graph version: %d records, want 1", len(recs))
	}
	v, ok := recs[0].Values[vi].(int64)
	if !ok {
		return graphVersion{}, fmt.Errorf("graph version: unexpected type %T", recs[0].Values[vi])
	}
	purging, ok := recs[0].Values[pi].(bool)
	if !ok {
		return graphVersion{}, fmt.Errorf("graph version: purging mark of unexpected type %T", recs[0].Values[pi])
	}
	return graphVersion{version: v, purging: purging}, nil
}
