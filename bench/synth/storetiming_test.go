package synth_test

import (
	"context"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/bench/synth"
	"github.com/kgmem/kgmem/embed"
	"github.com/kgmem/kgmem/graph/neo4j"
	"github.com/kgmem/kgmem/internal/testenv"
	"github.com/kgmem/kgmem/vector/milvus"
)

// TestStoreCallTimings times, on Neo4j + Milvus, each store call a search
// makes, for 200 queries of the 100,000-fact memory one at a time: where the
// engine's search time goes on the production backends. It builds the memory
// (about two minutes) in namespaces synthtiming/…, purges them afterwards,
// and runs only with KGMEM_SYNTH_STORE_TIMING=1 (and the test servers):
//
//	KGMEM_SYNTH_STORE_TIMING=1 KGMEM_TEST_NEO4J_URI=bolt://127.0.0.1:7687 \
//	KGMEM_TEST_MILVUS_ADDR=127.0.0.1:19530 go test -run TestStoreCallTimings -v -timeout 30m ./bench/synth
func TestStoreCallTimings(t *testing.T) {
	if os.Getenv("KGMEM_SYNTH_STORE_TIMING") != "1" {
		t.Skip("set KGMEM_SYNTH_STORE_TIMING=1 to time the store calls on Neo4j + Milvus (minutes)")
	}
	ctx := context.Background()
	c := synth.DefaultConfig()
	c.Facts, c.Entities, c.Namespaces, c.Prefix = 100_000, 20_000, 100, "synthtiming"
	g, err := synth.NewGenerator(c)
	if err != nil {
		t.Fatal(err)
	}
	gs, err := neo4j.Open(ctx, neo4j.Config{URI: testenv.Neo4jURI(t)})
	if err != nil {
		t.Fatal(err)
	}
	defer gs.Close()
	vx, err := milvus.Open(ctx, milvus.Config{Address: testenv.MilvusAddr(t), Collection: "kgmem_synth_timing", Dim: 256, ConsistencyLevel: milvus.Session})
	if err != nil {
		t.Fatal(err)
	}
	defer vx.Close()
	emb := embed.NewHashing(0)
	sink := synth.Sink{Graph: gs, Vectors: vx, Embedder: emb}
	defer func() { // before the stores close (defers run last in, first out)
		if _, err := synth.Purge(context.Background(), g, sink); err != nil {
			t.Errorf("purge: %v", err)
		}
	}()
	if _, err := synth.Purge(ctx, g, sink); err != nil {
		t.Fatal(err)
	}
	st, err := synth.Build(ctx, g, sink, synth.BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("built %d facts in %.1f s", st.Facts, st.Seconds)

	lat := map[string][]time.Duration{}
	timeIt := func(name string, fn func() error) {
		t0 := time.Now()
		if err := fn(); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		lat[name] = append(lat[name], time.Since(t0))
	}
	ids := func(hs []kgmem.Hit) []string {
		out := make([]string, len(hs))
		for i, h := range hs {
			out[i] = h.ID
		}
		return out
	}
	for _, q := range g.Queries(7, 200, 2) {
		ns := q.Namespace
		hits := map[kgmem.Kind][]kgmem.Hit{}
		for _, k := range kgmem.AllKinds() {
			timeIt("SearchText "+string(k), func() (err error) {
				hits[k], err = gs.SearchText(ctx, ns, kgmem.TextQuery{Text: q.Text, Kinds: []kgmem.Kind{k}, Limit: 40})
				return err
			})
		}
		vec, err := emb.Embed(ctx, []string{q.Text})
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range kgmem.AllKinds() {
			timeIt("Milvus Search "+string(k), func() error {
				_, err := vx.Search(ctx, kgmem.VectorQuery{Namespace: ns, Vector: vec[0], Kinds: []kgmem.Kind{k}, K: 40})
				return err
			})
		}
		timeIt("FindEntities by name", func() error {
			_, err := gs.FindEntities(ctx, ns, kgmem.EntityFilter{Names: []string{q.Text}, Page: kgmem.Page{Limit: 100}})
			return err
		})
		if seeds := ids(hits[kgmem.KindEntity][:min(3, len(hits[kgmem.KindEntity]))]); len(seeds) > 0 {
			// FactsOnly, as graph expansion asks (memory/expand.go), and
			// the full walk with entity records, as the graph API asks.
			timeIt("Neighborhood depth 2 fan-out 20 facts only", func() error {
				_, err := gs.Neighborhood(ctx, ns, kgmem.NeighborhoodQuery{Seeds: seeds, Depth: 2, FanOut: 20, FactsOnly: true})
				return err
			})
			timeIt("Neighborhood depth 2 fan-out 20 full", func() error {
				_, err := gs.Neighborhood(ctx, ns, kgmem.NeighborhoodQuery{Seeds: seeds, Depth: 2, FanOut: 20, IncludeExpired: true})
				return err
			})
		}
		if eps := hits[kgmem.KindEpisode]; len(eps) > 0 {
			timeIt("ThreadNeighbors of 10", func() error {
				_, err := gs.ThreadNeighbors(ctx, ns, kgmem.ThreadNeighborsQuery{IDs: ids(eps[:min(10, len(eps))]), Window: 1})
				return err
			})
		}
		timeIt("Facts by id", func() error { _, err := gs.Facts(ctx, ns, ids(hits[kgmem.KindFact])); return err })
		timeIt("Entities by id", func() error { _, err := gs.Entities(ctx, ns, ids(hits[kgmem.KindEntity])); return err })
		timeIt("Episodes by id", func() error { _, err := gs.Episodes(ctx, ns, ids(hits[kgmem.KindEpisode])); return err })
	}
	names := make([]string, 0, len(lat))
	for n := range lat {
		names = append(names, n)
	}
	slices.Sort(names)
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	for _, n := range names {
		d := slices.Clone(lat[n])
		slices.Sort(d)
		if len(d) == 0 || d[0] <= 0 {
			t.Fatalf("%s: no timings", n)
		}
		t.Logf("%-32s n=%3d p50 %6.1f ms  p95 %6.1f ms", n, len(d), ms(synth.Percentile(d, 0.5)), ms(synth.Percentile(d, 0.95)))
	}
}
