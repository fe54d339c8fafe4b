package neo4j

import (
	"strings"
	"testing"

	"github.com/kgmem/kgmem/internal/testenv"
	"github.com/neo4j/neo4j-go-driver/v5/neo4j"
)

// TestStablePlansSeek: every query whose cached plan is reused whatever the
// data (stablePlan) must be planned without a label scan, an all-nodes scan,
// a scan of a whole index or a cartesian product, on any data: such a plan
// would be kept as the namespace grows. EXPLAIN plans the queries without
// running them; the plan chosen can depend on the database's statistics,
// so every MATCH of those queries that could scan is pinned with a hint.
func TestStablePlansSeek(t *testing.T) {
	s, err := Open(t.Context(), Config{URI: testenv.Neo4jURI(t), Scope: "plans"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	params := map[string]any{"ns": "plans/ns", "scope": "plans", "ids": []any{"a"}, "rows": []any{}, "window": int64(2),
		"version": int64(1), "token": "t", "seqs": []any{int64(1)}, "owner": "o", "inner": neo4j.DurationOf(0, 0, 60, 0), "outer": neo4j.DurationOf(0, 0, 600, 0), "lease": int64(1000), "limit": int64(10),
		"searches": []any{map[string]any{"index": ftEpisode, "query": "x", "kind": "episode"}, map[string]any{"index": ftFact, "query": "x", "kind": "fact"}}}
	queries := map[string]string{
		"thread neighbours, first ring": qThreadFirst, "thread neighbours, middle rings": qThreadMiddle, "thread neighbours, last ring": qThreadLast,
		"missing entities": qMissingEntities, "missing episodes": qMissingEpisodes, "insert episodes": qInsertEpisodes,
		"upsert entities": qUpsertEntities, "delete fact relationships": qDeleteFactRels, "create facts": qCreateFacts,
		"upsert items": qUpsertItems, "mentions": qMentions, "take lock": qTakeLock, "full-text search": qSearch,
		"bump version": qBumpVersion, "mark purging": qMarkPurging, "seeds and version": qSeedsAndVersion,
		"delete applied vector ops": qDeleteApplied, "count queued vector ops": qQueuedOps,
		"take own vector ops": qTake(whereOwn), "adopt vector ops": qTake(whereAdoptable),
	}
	// A purge's deletes are planned afresh for each namespace, but must seek
	// too: a scan per label reads the whole database for each namespace.
	// EXPLAIN does not show the reading part of CALL { } IN TRANSACTIONS,
	// so that part is planned alone.
	purges := map[string]bool{}
	for _, label := range purgedLabels {
		name := "purge " + label
		if !strings.HasPrefix(qPurge(label), qPurgeMatch(label)) {
			t.Fatalf("%s does not start with the match planned here: %q", name, qPurge(label))
		}
		queries[name], purges[name] = qPurgeMatch(label)+" RETURN n", true
	}
	for name, q := range queries {
		t.Run(name, func(t *testing.T) {
			if !strings.HasPrefix(q, stablePlan) && !purges[name] {
				t.Fatalf("%s does not reuse its plan: %q", name, q)
			}
			sess := s.session(t.Context(), neo4j.AccessModeRead)
			defer func() { _ = sess.Close(t.Context()) }()
			res, err := sess.Run(t.Context(), "EXPLAIN "+q, params)
			if err != nil {
				t.Fatal(err)
			}
			sum, err := res.Consume(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			var walk func(p neo4j.Plan)
			walk = func(p neo4j.Plan) {
				op := p.Operator()
				for _, bad := range []string{"NodeByLabelScan", "AllNodesScan", "NodeIndexScan", "CartesianProduct"} {
					// The version and the seeds are one row each: their product is one row.
					oneRowEach := name == "seeds and version" && bad == "CartesianProduct"
					if strings.HasPrefix(op, bad) && !oneRowEach {
						t.Errorf("%s plans %s %v:\n%s", name, op, p.Arguments()["Details"], q)
					}
				}
				for _, c := range p.Children() {
					walk(c)
				}
			}
			walk(sum.Plan())
		})
	}
}
