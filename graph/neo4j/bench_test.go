package neo4j_test

import (
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/graph/graphtest"
)

// benchEnv enables TestBenchmarkFigures, which writes 100,000 facts.
const benchEnv = "KGMEM_NEO4J_BENCH"

// TestBenchmarkFigures measures the figures reported in docs/neo4j.md on the
// real server:
//
//	scripts/neo4j.sh start
//	KGMEM_TEST_NEO4J_URI=bolt://127.0.0.1:7687 KGMEM_NEO4J_BENCH=1 \
//	  go test -run TestBenchmarkFigures -v -timeout 30m ./graph/neo4j/
//
// KGMEM_NEO4J_BENCH sets the number of facts (1 means 100,000). It writes
// 10,000 entities and the facts in Apply batches of 1,000, then times
// lookups by id, 2-hop neighbourhoods (in Cypher, and FactsOnly over the
// cached topology, whose first walk reads it), full-text queries, the
// per-namespace scan that the (:FactText) index node avoids, and the purge.
func TestBenchmarkFigures(t *testing.T) {
	v := os.Getenv(benchEnv)
	if v == "" {
		t.Skip("set " + benchEnv + "=1 to write 100,000 facts and print throughput and latency figures")
	}
	nFacts := 100_000
	if n, err := strconv.Atoi(v); err == nil && n > 1 {
		nFacts = n
	}
	const nEntities, batch = 10_000, 1_000
	scope, s := newScope(t)
	ctx := t.Context()
	ns := kgmem.Namespace("bench")
	rng := rand.New(rand.NewPCG(1, 2))
	words := []string{"violin", "orchestra", "sourdough", "bread", "robotics", "lighthouse", "alps", "hiking",
		"team", "machine", "learning", "garden", "coffee", "chess", "python", "tokyo", "zurich", "marathon", "novel", "piano"}
	preds := []string{"knows", "leads", "works_at", "lives_in", "likes", "plays", "owns", "visited", "member_of", "mentors"}

	start := time.Now()
	for i := 0; i < nEntities; i += batch {
		cs := kgmem.ChangeSet{Namespace: ns}
		for j := i; j < i+batch; j++ {
			cs.Entities = append(cs.Entities, graphtest.Entity(ns, fmt.Sprintf("ent_b_%05d", j), fmt.Sprintf("Person %d %s", j, words[j%len(words)])))
		}
		if err := s.Apply(ctx, cs); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("entities: %d in %v (%.0f/s)", nEntities, time.Since(start).Round(time.Millisecond), float64(nEntities)/time.Since(start).Seconds())

	start = time.Now()
	for i := 0; i < nFacts; i += batch {
		cs := kgmem.ChangeSet{Namespace: ns}
		for j := i; j < min(i+batch, nFacts); j++ {
			// A Zipf-like subject choice makes a few hubs, as real memories have.
			subj := int(float64(nEntities) * rng.Float64() * rng.Float64() * rng.Float64())
			obj := rng.IntN(nEntities)
			text := fmt.Sprintf("Person %d %s person %d: %s %s %s.", subj, preds[j%len(preds)], obj,
				words[rng.IntN(len(words))], words[rng.IntN(len(words))], words[rng.IntN(len(words))])
			f := graphtest.Fact(ns, fmt.Sprintf("fact_b_%06d", j), fmt.Sprintf("ent_b_%05d", subj), preds[j%len(preds)], fmt.Sprintf("ent_b_%05d", obj), text)
			f.Importance = 1 + rng.IntN(10)
			cs.Facts = append(cs.Facts, f)
		}
		if err := s.Apply(ctx, cs); err != nil {
			t.Fatal(err)
		}
	}
	el := time.Since(start)
	t.Logf("facts: %d in %v = %.0f facts/s (Apply batches of %d, one transaction each)", nFacts, el.Round(time.Millisecond), float64(nFacts)/el.Seconds(), batch)

	const queries = 300
	measure := func(name string, n int, fn func(i int) error) {
		t.Helper()
		lat := make([]time.Duration, 0, n)
		for i := range n {
			st := time.Now()
			if err := fn(i); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			lat = append(lat, time.Since(st))
		}
		slices.Sort(lat)
		p := func(q float64) time.Duration { return lat[int(q*float64(len(lat)-1))].Round(10 * time.Microsecond) }
		t.Logf("%-44s n=%d p50=%v p99=%v", name, n, p(0.5), p(0.99))
	}
	factID := func() string { return fmt.Sprintf("fact_b_%06d", rng.IntN(nFacts)) }
	measure("Fact(id) via (:FactText) + Expand(Into)", queries, func(int) error {
		_, err := s.Fact(ctx, ns, factID())
		return err
	})
	measure("Facts(20 ids)", queries, func(int) error {
		ids := make([]string, 20)
		for i := range ids {
			ids[i] = factID()
		}
		fs, err := s.Facts(ctx, ns, ids)
		if err == nil && len(fs) != 20 {
			err = fmt.Errorf("got %d facts", len(fs))
		}
		return err
	})
	key := scope + ":" + string(ns)
	measure("alternative: relationship scan of namespace", 20, func(int) error {
		recs := rawQuery(t, `MATCH (:Entity {namespace: $ns})-[r]->() WHERE r.id = $id RETURN r.id`, map[string]any{"ns": key, "id": factID()})
		if len(recs) != 1 {
			return fmt.Errorf("scan found %d", len(recs))
		}
		return nil
	})
	measure("FindEntities by 2 names (entity resolution)", queries, func(int) error {
		es, err := s.FindEntities(ctx, ns, kgmem.EntityFilter{Names: []string{
			fmt.Sprintf("person %d %s", 42, words[42%len(words)]), fmt.Sprintf("Person %d nobody", rng.IntN(nEntities))}})
		if err == nil && len(es) != 1 {
			err = fmt.Errorf("found %d entities", len(es))
		}
		return err
	})
	measure("ListFacts of one entity", queries, func(int) error {
		_, err := s.ListFacts(ctx, ns, kgmem.FactFilter{EntityID: fmt.Sprintf("ent_b_%05d", rng.IntN(nEntities))})
		return err
	})
	measure("Neighborhood depth 2, fan-out 50", queries, func(int) error {
		_, err := s.Neighborhood(ctx, ns, kgmem.NeighborhoodQuery{Seeds: []string{fmt.Sprintf("ent_b_%05d", rng.IntN(nEntities))}, Depth: 2, FanOut: 50})
		return err
	})
	measure("Neighborhood depth 2, fan-out 50, top hub", 20, func(int) error {
		_, err := s.Neighborhood(ctx, ns, kgmem.NeighborhoodQuery{Seeds: []string{"ent_b_00000"}, Depth: 2, FanOut: 50})
		return err
	})
	measure("Neighborhood depth 2, fan-out 50, FactsOnly", queries, func(int) error {
		_, err := s.Neighborhood(ctx, ns, kgmem.NeighborhoodQuery{Seeds: []string{fmt.Sprintf("ent_b_%05d", rng.IntN(nEntities))}, Depth: 2, FanOut: 50, FactsOnly: true})
		return err
	})
	measure("SearchText 2 words, all kinds, limit 10", queries, func(int) error {
		hits, err := s.SearchText(ctx, ns, kgmem.TextQuery{Text: words[rng.IntN(len(words))] + " " + words[rng.IntN(len(words))]})
		if err == nil && len(hits) == 0 {
			err = fmt.Errorf("no hits")
		}
		return err
	})
	start = time.Now()
	st, err := s.PurgeNamespace(ctx, ns)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("purge: %+v in %v", st, time.Since(start).Round(time.Millisecond))
}
