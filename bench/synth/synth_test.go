package synth_test

import (
	"cmp"
	"context"
	"errors"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/bench/synth"
	"github.com/kgmem/kgmem/embed"
	"github.com/kgmem/kgmem/graph/sqlite"
	"github.com/kgmem/kgmem/memory"
	"github.com/kgmem/kgmem/vector/hnsw"
)

// small is a memory of a few thousand facts, generated in milliseconds.
func small(seed uint64) synth.Config {
	c := synth.DefaultConfig()
	c.Seed, c.Facts, c.Entities, c.Namespaces, c.Prefix = seed, 3000, 600, 3, "synthtest"
	return c
}

func newGen(t *testing.T, c synth.Config) *synth.Generator {
	t.Helper()
	g, err := synth.NewGenerator(c)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// openEmbedded opens a SQLite graph store and an HNSW index of dimension dim
// in a fresh temporary directory; both close when the test ends.
func openEmbedded(t *testing.T, dim int) (*sqlite.Store, *hnsw.Index) {
	t.Helper()
	dir := t.TempDir()
	graph, err := sqlite.Open(t.Context(), filepath.Join(dir, "graph.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = graph.Close() })
	vectors, err := hnsw.Open(t.Context(), filepath.Join(dir, "vectors.db"), dim, hnsw.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = vectors.Close() })
	return graph, vectors
}

func TestGeneratorIsDeterministic(t *testing.T) {
	a, b := newGen(t, small(1)), newGen(t, small(1))
	for i := range 3 {
		// Generate b's namespaces in reverse order: each has its own stream.
		ma, mb := a.Namespace(i), b.Namespace(2-i)
		if want := b.Namespace(i); !reflect.DeepEqual(ma, want) {
			t.Fatalf("namespace %d differs between two generators with seed 1", i)
		}
		if len(mb.Facts) == 0 {
			t.Fatalf("namespace %d is empty", 2-i)
		}
	}
	if qa, qb := a.Queries(7, 50, 2), b.Queries(7, 50, 1); !reflect.DeepEqual(qa, qb) {
		t.Fatal("the same query seed gave different queries")
	}
	other := newGen(t, small(2)).Namespace(0)
	same := a.Namespace(0)
	if other.Facts[0].ID == same.Facts[0].ID || other.Facts[0].Text == same.Facts[0].Text && other.Facts[1].Text == same.Facts[1].Text {
		t.Fatalf("seeds 1 and 2 gave the same first facts: %q", same.Facts[0].Text)
	}
}

func TestPlan(t *testing.T) {
	tests := []struct {
		name        string
		skew        float64
		wantEqual   bool
		wantMaxOver float64 // largest / smallest namespace at least this
	}{
		{"uniform", 0, true, 1},
		{"skewed", 1, false, 10},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := synth.DefaultConfig()
			c.Facts, c.Entities, c.Namespaces, c.Skew = 100_000, 20_000, 100, tt.skew
			plan := c.Plan()
			if len(plan) != c.Namespaces {
				t.Fatalf("%d namespaces planned, want %d", len(plan), c.Namespaces)
			}
			facts, entities, seen := 0, 0, map[kgmem.Namespace]bool{}
			for i, p := range plan {
				facts, entities = facts+p.Facts, entities+p.Entities
				if _, err := kgmem.ParseNamespace(string(p.Namespace)); err != nil || seen[p.Namespace] {
					t.Fatalf("namespace %d %q invalid or repeated: %v", i, p.Namespace, err)
				}
				seen[p.Namespace] = true
				if i > 0 && p.Facts > plan[i-1].Facts {
					t.Fatalf("namespace %d is larger than %d", i, i-1)
				}
			}
			if facts != c.Facts || entities != c.Entities {
				t.Fatalf("plan sums to %d facts, %d entities; want %d, %d", facts, entities, c.Facts, c.Entities)
			}
			first, last := plan[0].Facts, plan[len(plan)-1].Facts
			if tt.wantEqual && first != last {
				t.Fatalf("uniform plan has sizes %d..%d", last, first)
			}
			if ratio := float64(first) / float64(last); ratio < tt.wantMaxOver {
				t.Fatalf("largest/smallest = %.1f, want ≥ %v", ratio, tt.wantMaxOver)
			}
		})
	}
}

func TestConfigValidate(t *testing.T) {
	tests := []struct {
		field  string
		mutate func(*synth.Config)
	}{
		{"namespaces", func(c *synth.Config) { c.Namespaces = 0 }},
		{"facts", func(c *synth.Config) { c.Facts = 2 }},
		{"entities", func(c *synth.Config) { c.Entities = 1 }},
		{"skew", func(c *synth.Config) { c.Skew = -1 }},
		{"prefix", func(c *synth.Config) { c.Prefix = "a b" }},
		{"span", func(c *synth.Config) { c.Span = 0 }},
	}
	for _, tt := range tests {
		c := small(1)
		tt.mutate(&c)
		err := c.Validate()
		var fe *kgmem.FieldError
		if !errors.Is(err, kgmem.ErrInvalid) || !errors.As(err, &fe) || fe.Field != tt.field {
			t.Errorf("%s: got %v, want an invalid-field error naming it", tt.field, err)
		}
	}
}

// TestDegreesAreHeavyTailed checks the power law against the uniform draw
// of the same sizes.
func TestDegreesAreHeavyTailed(t *testing.T) {
	tests := []struct {
		name             string
		uniform          float64
		minTop1, maxTop1 float64
	}{
		{"preferential attachment", 0.2, 0.12, 1},
		{"uniform", 1, 0, 0.05},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := small(3)
			c.Facts, c.Entities, c.UniformShare = 5000, 1000, tt.uniform
			g := newGen(t, c)
			var d synth.Degrees
			for i := range c.Namespaces {
				d.Add(g.Namespace(i))
			}
			st := d.Stats()
			if st.Entities != c.Entities || st.Endpoints != 2*c.Facts {
				t.Fatalf("counted %d entities and %d endpoints, want %d and %d", st.Entities, st.Endpoints, c.Entities, 2*c.Facts)
			}
			if st.Top1Share < tt.minTop1 || st.Top1Share > tt.maxTop1 {
				t.Fatalf("top 1%% of entities hold %.3f of endpoints, want within %v..%v (%+v)", st.Top1Share, tt.minTop1, tt.maxTop1, st)
			}
		})
	}
}

func TestChangeSetsAreValidAndOrdered(t *testing.T) {
	m := newGen(t, small(4)).Namespace(0)
	const batch = 100
	written := map[string]bool{}
	facts, episodes, mentions := 0, 0, 0
	for i, cs := range m.ChangeSets(batch) {
		if err := cs.Validate(); err != nil {
			t.Fatalf("change set %d: %v", i, err)
		}
		if n := len(cs.Entities) + len(cs.Episodes) + len(cs.Facts); n > batch+3 {
			t.Fatalf("change set %d holds %d records, batch is %d", i, n, batch)
		}
		for _, e := range cs.Entities {
			written[e.ID] = true
		}
		for _, ep := range cs.Episodes {
			written[ep.ID] = true
		}
		for _, f := range cs.Facts {
			if !written[f.SubjectID] || !written[f.ObjectID] || !written[f.Episodes[0]] {
				t.Fatalf("fact %s refers to a record not written before or with it", f.ID)
			}
		}
		for _, mn := range cs.Mentions {
			if !written[mn.EpisodeID] || !written[mn.EntityID] {
				t.Fatalf("mention %+v refers to a record not written before or with it", mn)
			}
		}
		facts, episodes, mentions = facts+len(cs.Facts), episodes+len(cs.Episodes), mentions+len(cs.Mentions)
	}
	if facts != len(m.Facts) || episodes != len(m.Episodes) || mentions != len(m.Mentions) {
		t.Fatalf("change sets hold %d facts, %d episodes, %d mentions; the memory %d, %d, %d",
			facts, episodes, mentions, len(m.Facts), len(m.Episodes), len(m.Mentions))
	}
}

func TestExactTopKAndRecall(t *testing.T) {
	ids := []string{"a", "b", "c", "d"}
	vecs := [][]float32{{1, 0}, {0.9, 0.1}, {0, 1}, {-1, 0}}
	exact := synth.ExactTopK([]float32{2, 0}, ids, vecs, 2)
	if len(exact) != 2 || exact[0].ID != "a" || exact[1].ID != "b" || exact[0].Score < 0.9999 {
		t.Fatalf("exact top 2 = %+v, want a (1.0) then b", exact)
	}
	hit := func(id string, s float64) kgmem.Hit { return kgmem.Hit{Kind: kgmem.KindFact, ID: id, Score: s} }
	tests := []struct {
		name  string
		ann   []kgmem.Hit
		exact []synth.Scored
		want  float64
		ok    bool
	}{
		{"all found", []kgmem.Hit{hit("a", 1), hit("b", 0.99)}, exact, 1, true},
		{"one missed", []kgmem.Hit{hit("a", 1), hit("c", 0)}, exact, 0.5, true},
		{"order does not matter", []kgmem.Hit{hit("b", 0.99), hit("a", 1)}, exact, 1, true},
		{"short answer", []kgmem.Hit{hit("a", 1)}, exact, 0.5, true},
		{"tie with the k-th counts", []kgmem.Hit{hit("a", 1), hit("x", 0.5)},
			[]synth.Scored{{"a", 1}, {"b", 0.5}}, 1, true},
		{"hits beyond k ignored", []kgmem.Hit{hit("c", 0), hit("d", -1), hit("a", 1)}, exact, 0, true},
		{"nothing to find", nil, nil, 0, false},
	}
	for _, tt := range tests {
		got, ok := synth.Recall(tt.ann, tt.exact, 2)
		if got != tt.want || ok != tt.ok {
			t.Errorf("%s: recall %v (ok %v), want %v (ok %v)", tt.name, got, ok, tt.want, tt.ok)
		}
	}
}

// TestBuildSearchAndRecall writes a small memory to the embedded stores,
// checks every record arrived, searches it through the engine, and checks
// the recall computation: 1 on exact-scan shards, high but measured on
// graph shards.
func TestBuildSearchAndRecall(t *testing.T) {
	ctx := context.Background()
	cfg := small(5)
	cfg.Skew = 0
	g := newGen(t, cfg)
	dir := t.TempDir()
	graph, err := sqlite.Open(ctx, filepath.Join(dir, "graph.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer graph.Close()
	emb := embed.NewHashing(0)
	exactIx, err := hnsw.Open(ctx, filepath.Join(dir, "vectors.db"), emb.Dimension(), hnsw.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer exactIx.Close()
	st, err := synth.Build(ctx, g, synth.Sink{Graph: graph, Vectors: exactIx, Embedder: emb}, synth.BuildOptions{Batch: 400})
	if err != nil {
		t.Fatal(err)
	}
	if st.Facts != cfg.Facts || st.Entities != cfg.Entities || st.Namespaces != cfg.Namespaces || st.Vectors != st.Facts+st.Entities+st.Episodes {
		t.Fatalf("build stats %+v do not match the config", st)
	}
	for _, p := range g.Plan() {
		m := g.Namespace(p.Index)
		n, err := exactIx.Count(ctx, p.Namespace, "")
		if err != nil || n != m.Records() {
			t.Fatalf("%s holds %d vectors (%v), want %d", p.Namespace, n, err, m.Records())
		}
		facts, err := graph.ListFacts(ctx, p.Namespace, kgmem.FactFilter{IncludeExpired: true, Page: kgmem.Page{Limit: 1000}})
		if err != nil || len(facts) != p.Facts {
			t.Fatalf("%s holds %d facts (%v), want %d", p.Namespace, len(facts), err, p.Facts)
		}
		got, err := graph.Fact(ctx, p.Namespace, m.Facts[7].ID)
		if err != nil || got.Text != m.Facts[7].Text || got.SubjectName != m.Facts[7].SubjectName {
			t.Fatalf("fact 7 of %s reads back as %+v (%v), want %q", p.Namespace, got, err, m.Facts[7].Text)
		}
	}

	engine, err := memory.New(memory.Config{Graph: graph, Vectors: exactIx, Embedder: emb})
	if err != nil {
		t.Fatal(err)
	}
	queries := g.Queries(9, 60, 2)
	if _, err := synth.WarmUp(ctx, engine, exactIx, g.Plan(), 2); err != nil {
		t.Fatal(err)
	}
	ss := synth.MeasureSearch(ctx, engine, queries, 2, 10)
	if ss.Errors != 0 || ss.Queries != 60 || ss.P50Ms <= 0 || ss.P99Ms < ss.P50Ms || ss.QPS <= 0 {
		t.Fatalf("search stats %+v", ss)
	}
	if ss.Found < 0.5 {
		t.Fatalf("only %.2f of queries found the record they were drawn from (%v)", ss.Found, ss.FoundByStyle)
	}
	if ss.AllocBytesPerQuery <= 0 || ss.CPUMsPerQuery <= 0 || len(ss.Slowest) != 5 || ss.Slowest[0].Ms != ss.MaxMs ||
		!slices.IsSortedFunc(ss.Slowest, func(a, b synth.SlowSearch) int { return cmp.Compare(b.Ms, a.Ms) }) {
		t.Fatalf("search stats: %.0f bytes and %.3f CPU ms per query, slowest %+v (max %.2f ms); want bytes, CPU, and the five slowest, slowest first", ss.AllocBytesPerQuery, ss.CPUMsPerQuery, ss.Slowest, ss.MaxMs)
	}

	// Shards of about 1,000 vectors are below the exact-scan threshold:
	// the index is exact, so recall must be exactly 1.
	rs, err := synth.MeasureRecall(ctx, g, exactIx, emb, queries[:20], 10, hnsw.DefaultExactBelow)
	if err != nil {
		t.Fatal(err)
	}
	if rs.Mean != 1 || rs.Searches != 60 || rs.LargeSearches != 0 {
		t.Fatalf("recall against an exact index: %+v, want mean 1 over 60 searches", rs)
	}
	// The same vectors through the graph (ExactBelow 1, a narrow beam):
	// approximate, so measured, not assumed.
	if err := exactIx.Close(); err != nil {
		t.Fatal(err)
	}
	graphIx, err := hnsw.Open(ctx, filepath.Join(dir, "vectors.db"), emb.Dimension(), hnsw.Options{ExactBelow: 1, EfSearch: 10, M: 4})
	if err != nil {
		t.Fatal(err)
	}
	defer graphIx.Close()
	rs, err = synth.MeasureRecall(ctx, g, graphIx, emb, queries[:20], 10, 1)
	if err != nil {
		t.Fatal(err)
	}
	if rs.LargeSearches != rs.Searches || rs.Mean < 0.5 || rs.Mean > 1 || rs.Min > rs.Mean {
		t.Fatalf("recall through the graph: %+v", rs)
	}
	t.Logf("recall@10 through a narrow graph (M 4, ef 10): mean %.3f, min %.2f", rs.Mean, rs.Min)
	if _, err := synth.MeasureRecall(ctx, g, graphIx, emb, []synth.Query{{Namespace: "elsewhere/n0000", Text: "x"}}, 10, 1); !errors.Is(err, kgmem.ErrInvalid) {
		t.Fatalf("a query of a foreign namespace: %v, want ErrInvalid", err)
	}
}

// TestPurge checks that Purge empties every namespace of the graph, and of
// the vector index only when the sink has one: a nil Vectors (the bench
// drops its Milvus collection instead) leaves the vectors alone.
func TestPurge(t *testing.T) {
	ctx := context.Background()
	cfg := small(11)
	cfg.Facts, cfg.Entities = 600, 120
	g := newGen(t, cfg)
	emb := embed.NewHashing(0)
	graph, vectors := openEmbedded(t, emb.Dimension())
	sink := synth.Sink{Graph: graph, Vectors: vectors, Embedder: emb}
	if _, err := synth.Build(ctx, g, sink, synth.BuildOptions{}); err != nil {
		t.Fatal(err)
	}
	left := func(when string, wantVectors bool) {
		t.Helper()
		for _, p := range g.Plan() {
			facts, err := graph.ListFacts(ctx, p.Namespace, kgmem.FactFilter{IncludeExpired: true})
			if err != nil || len(facts) != 0 {
				t.Errorf("%s: %s holds %d facts (%v), want none", when, p.Namespace, len(facts), err)
			}
			want := 0
			if wantVectors {
				want = g.Namespace(p.Index).Records()
			}
			if n, err := vectors.Count(ctx, p.Namespace, ""); err != nil || n != want {
				t.Errorf("%s: %s holds %d vectors (%v), want %d", when, p.Namespace, n, err, want)
			}
		}
	}
	graphOnly := sink
	graphOnly.Vectors = nil
	st, err := synth.Purge(ctx, g, graphOnly)
	if err != nil || st.Facts != cfg.Facts || st.Entities != cfg.Entities {
		t.Fatalf("graph-only purge: %+v, %v; want %d facts and %d entities", st, err, cfg.Facts, cfg.Entities)
	}
	left("after the graph-only purge", true)
	if _, err := synth.Purge(ctx, g, sink); err != nil {
		t.Fatal(err)
	}
	left("after the full purge", false)
}

// TestCheckBuilt checks that CheckBuilt accepts the memory Build wrote, with
// the same statistics, and refuses one that differs: another seed's memory
// (same sizes, other facts) and a namespace that lost a vector.
func TestCheckBuilt(t *testing.T) {
	ctx := context.Background()
	cfg := small(13)
	cfg.Facts, cfg.Entities = 600, 120
	g := newGen(t, cfg)
	emb := embed.NewHashing(0)
	graph, vectors := openEmbedded(t, emb.Dimension())
	sink := synth.Sink{Graph: graph, Vectors: vectors, Embedder: emb}
	built, err := synth.Build(ctx, g, sink, synth.BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	found, err := synth.CheckBuilt(ctx, g, sink)
	if err != nil {
		t.Fatalf("CheckBuilt of the memory just built: %v", err)
	}
	built.Seconds = 0
	if found != built {
		t.Fatalf("CheckBuilt = %+v, want Build's %+v", found, built)
	}

	other := cfg
	other.Seed++
	if _, err := synth.CheckBuilt(ctx, newGen(t, other), sink); !errors.Is(err, kgmem.ErrNotFound) {
		t.Errorf("CheckBuilt of another seed's memory: %v, want ErrNotFound", err)
	}
	last := g.Plan()[len(g.Plan())-1]
	m := g.Namespace(last.Index)
	if err := vectors.Delete(ctx, last.Namespace, []string{m.Entities[0].ID}); err != nil {
		t.Fatal(err)
	}
	_, err = synth.CheckBuilt(ctx, g, sink)
	if !errors.Is(err, kgmem.ErrNotFound) || !strings.Contains(err.Error(), string(last.Namespace)) {
		t.Errorf("CheckBuilt with a vector missing from %s: %v, want ErrNotFound naming it", last.Namespace, err)
	}
}
