package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"strings"
	"time"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/bench/synth"
	"github.com/kgmem/kgmem/embed"
	"github.com/kgmem/kgmem/graph/neo4j"
	"github.com/kgmem/kgmem/graph/sqlite"
	"github.com/kgmem/kgmem/internal/cpuprofile"
	"github.com/kgmem/kgmem/memory"
	"github.com/kgmem/kgmem/vector/hnsw"
	"github.com/kgmem/kgmem/vector/milvus"
	"github.com/schollz/progressbar/v3"
)

// synthFlags are the flags of `bench synth`.
type synthFlags struct {
	cfg synth.Config

	dataDir      string
	graph        string
	neo4jURI     string
	neo4jUser    string
	neo4jPass    string
	neo4jDB      string
	vector       string
	milvusAddr   string
	milvusColl   string
	milvusCons   string
	milvusExact  int
	flush        bool
	settle       time.Duration
	hnswEf       int
	hnswMaxBytes int64

	queries       int
	querySeed     uint64
	concurrency   int
	limit         int
	recallQueries int
	k             int
	vectorWeight  float64
	textWeight    float64

	batch        int
	search       bool
	rebuild      bool
	buildOnly    bool
	keep         bool
	reuse        bool
	jsonOut      string
	progress     bool
	cpuProfile   string
	callTimes    bool
	buildProfile string
	warmProfile  string
	heapProfile  string
	allocProfile string
}

func parseSynthFlags(args []string, stderr io.Writer) (synthFlags, error) {
	f := synthFlags{cfg: synth.DefaultConfig()}
	fs := flag.NewFlagSet("bench synth", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Uint64Var(&f.cfg.Seed, "seed", f.cfg.Seed, "generator seed: equal seeds and sizes give the same memory")
	fs.IntVar(&f.cfg.Facts, "facts", f.cfg.Facts, "facts in the memory")
	fs.IntVar(&f.cfg.Entities, "entities", f.cfg.Entities, "entities in the memory")
	fs.IntVar(&f.cfg.Namespaces, "namespaces", f.cfg.Namespaces, "namespaces the memory is split over")
	fs.StringVar(&f.cfg.Prefix, "prefix", f.cfg.Prefix, "first segment of the generated namespaces (<prefix>/n0000…)")
	fs.Float64Var(&f.cfg.Skew, "skew", f.cfg.Skew, "namespace size skew: share ∝ 1/(i+10)^skew; 0 makes all equal")
	fs.StringVar(&f.dataDir, "data-dir", "kgmem-synth", "data directory of the embedded stores; reused when it holds the same memory")
	fs.StringVar(&f.graph, "graph", "sqlite", "graph store: sqlite (in --data-dir) or neo4j")
	fs.StringVar(&f.neo4jURI, "neo4j-uri", neo4j.DefaultURI, "Neo4j Bolt URI")
	fs.StringVar(&f.neo4jUser, "neo4j-user", "neo4j", "Neo4j user")
	fs.StringVar(&f.neo4jPass, "neo4j-password", "", "Neo4j password (empty: auth disabled)")
	fs.StringVar(&f.neo4jDB, "neo4j-database", "", "Neo4j database (empty: the server default)")
	fs.StringVar(&f.vector, "vector", "hnsw", "vector index: hnsw (in --data-dir) or milvus")
	fs.StringVar(&f.milvusAddr, "milvus-addr", "127.0.0.1:19530", "Milvus gRPC address")
	fs.StringVar(&f.milvusColl, "milvus-collection", "kgmem_synth", "Milvus collection (its own, so the bench never touches the server's)")
	fs.StringVar(&f.milvusCons, "milvus-consistency", "Session", "Milvus read consistency: Session, Strong or Bounded")
	fs.BoolVar(&f.flush, "flush", false, "before searching, flush the vector index and wait until every row is indexed (Milvus: the steady state, not the minutes after a bulk load while segments are sealed and indexed)")
	fs.DurationVar(&f.settle, "milvus-settle", 90*time.Second, "with --flush on Milvus, then wait until the collection's segments have stayed the same, indexed and served, this long: Milvus merges a bulk load's segments about a minute later and indexes them again, slowing searches meanwhile (0: do not wait)")
	fs.IntVar(&f.milvusExact, "milvus-exact-below", 0, "rank filters matching at most this many Milvus records in the client (0: the index default, 2048; -1: off, for a server with its interim index off)")
	fs.IntVar(&f.hnswEf, "hnsw-ef", 0, "embedded HNSW search beam width (0: the index default)")
	fs.Int64Var(&f.hnswMaxBytes, "hnsw-max-loaded-bytes", 0, "embedded HNSW memory budget for loaded namespaces (0: the index default)")
	fs.IntVar(&f.queries, "queries", 2000, "searches per measured pass")
	fs.Uint64Var(&f.querySeed, "query-seed", 7, "seed of the query draw")
	fs.IntVar(&f.concurrency, "concurrency", 4, "searches in flight in the concurrent pass (a pass at 1 always runs)")
	fs.IntVar(&f.limit, "limit", 10, "results per kind per search")
	fs.IntVar(&f.recallQueries, "recall-queries", 200, "queries whose vector step is checked against exact search (0: skip)")
	fs.IntVar(&f.k, "k", 10, "k of recall@k")
	fs.Float64Var(&f.vectorWeight, "vector-weight", 0.25, "weight of vector recall in rank fusion (the server's default with the hash embedder)")
	fs.Float64Var(&f.textWeight, "text-weight", 1, "weight of BM25 in rank fusion")
	fs.IntVar(&f.batch, "batch", 5000, "records per change set and per vector upsert while building")
	fs.BoolVar(&f.search, "search", true, "warm up and run the search passes; --search=false runs only the recall check")
	fs.BoolVar(&f.rebuild, "rebuild", false, "delete the embedded stores in --data-dir and build again")
	fs.BoolVar(&f.buildOnly, "build-only", false, "build (or reuse) the memory and stop")
	fs.BoolVar(&f.keep, "keep", false, "with neo4j or milvus, keep the generated namespaces after the run (default: purge them)")
	fs.BoolVar(&f.reuse, "reuse", false, "with neo4j and milvus, search the memory an earlier run left with --keep (same --seed and sizes) instead of building it again")
	fs.StringVar(&f.jsonOut, "json", "", "also write the full report as JSON to this file")
	fs.BoolVar(&f.progress, "progress", false, "draw a progress bar while building")
	fs.StringVar(&f.cpuProfile, "cpuprofile", "", "write a CPU profile of the measured searches to this file")
	fs.BoolVar(&f.callTimes, "call-times", false, "time every store call of the measured searches and print where their wall time goes")
	fs.StringVar(&f.buildProfile, "build-cpuprofile", "", "write a CPU profile of the build to this file")
	fs.StringVar(&f.warmProfile, "warm-cpuprofile", "", "write a CPU profile of the warm-up (loading every namespace) to this file")
	fs.StringVar(&f.allocProfile, "allocprofile", "", "write what the process allocated by the start of the measured searches to this file + .base, and by their end to this file (each after a collection, which the measured pass then starts from)")
	fs.StringVar(&f.heapProfile, "memprofile", "", "write a heap profile of what the process holds at the end of the run (after a garbage collection) to this file")
	if err := parseFlags(fs, args); err != nil {
		return f, err
	}
	switch {
	case f.graph != "sqlite" && f.graph != "neo4j":
		return f, kgmem.Invalidf("graph", "is %q; use sqlite or neo4j", f.graph)
	case f.vector != "hnsw" && f.vector != "milvus":
		return f, kgmem.Invalidf("vector", "is %q; use hnsw or milvus", f.vector)
	case f.queries < 1:
		return f, kgmem.Invalidf("queries", "must be at least 1, got %d", f.queries)
	case f.concurrency < 1:
		return f, kgmem.Invalidf("concurrency", "must be at least 1, got %d", f.concurrency)
	case f.limit < 1 || f.limit > 100:
		return f, kgmem.Invalidf("limit", "must be within 1..100, got %d", f.limit)
	case f.k < 1 || f.k > 100:
		return f, kgmem.Invalidf("k", "must be within 1..100, got %d", f.k)
	case f.batch < 1:
		return f, kgmem.Invalidf("batch", "must be at least 1, got %d", f.batch)
	case f.recallQueries < 0:
		return f, kgmem.Invalidf("recall-queries", "must not be negative, got %d", f.recallQueries)
	case f.settle < 0:
		return f, kgmem.Invalidf("milvus-settle", "must not be negative, got %s", f.settle)
	case f.reuse && (f.graph != "neo4j" || f.vector != "milvus"):
		return f, kgmem.Invalidf("reuse", "needs --graph neo4j --vector milvus (embedded stores are reused from --data-dir by themselves)")
	}
	return f, f.cfg.Validate()
}

// synthReport is everything one `bench synth` run measured.
type synthReport struct {
	Machine      machine             `json:"machine"`
	Config       synth.Config        `json:"config"`
	Graph        string              `json:"graph"`
	Vector       string              `json:"vector"`
	Embedder     string              `json:"embedder"`
	Reused       bool                `json:"reused"`
	Build        synth.BuildStats    `json:"build"`
	DiskBytes    int64               `json:"disk_bytes,omitempty"`
	AfterBuild   synth.Resources     `json:"resources_after_build"`
	Settle       *milvus.SettleStats `json:"settle,omitempty"`
	WarmUpSecs   float64             `json:"warm_up_seconds"`
	Search       []synth.SearchStats `json:"search"`
	Recall       *synth.RecallStats  `json:"recall,omitempty"`
	LoadedNS     int                 `json:"loaded_namespaces,omitempty"`
	LoadedVecs   int                 `json:"loaded_vectors,omitempty"`
	Resources    synth.Resources     `json:"resources"`
	Purged       *kgmem.PurgeStats   `json:"purged,omitempty"`
	CommandLine  string              `json:"command_line"`
	MeasuredAt   time.Time           `json:"measured_at"`
	DataDir      string              `json:"data_dir,omitempty"`
	QueryStyles  map[string]int      `json:"query_styles"`
	RecallSample int                 `json:"recall_sample"`
}

type machine struct {
	GOOS      string `json:"goos"`
	GOARCH    string `json:"goarch"`
	NumCPU    int    `json:"num_cpu"`
	GoVersion string `json:"go_version"`
}

func runSynth(ctx context.Context, args []string, stdout, stderr io.Writer) (err error) {
	f, err := parseSynthFlags(args, stderr)
	if err != nil {
		return err
	}
	gen, err := synth.NewGenerator(f.cfg)
	if err != nil {
		return err
	}
	embedder := embed.NewHashing(embed.DefaultHashingDim)
	rep := synthReport{
		Machine: machine{runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), runtime.Version()},
		Config:  f.cfg, Graph: f.graph, Vector: f.vector, Embedder: embedder.Name(),
		CommandLine: "bench synth " + strings.Join(args, " "), MeasuredAt: time.Now().UTC(),
	}
	embedded := f.graph == "sqlite" || f.vector == "hnsw"
	if embedded {
		rep.DataDir = f.dataDir
		if rep.Reused, err = prepareDataDir(f, embedder.Name()); err != nil {
			return err
		}
	}
	sink, closeAll, err := openSynthStores(ctx, f, embedder)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, closeAll()) }()

	if rep.Reused {
		m, err := synth.ReadManifest(f.dataDir)
		if err != nil {
			return err
		}
		rep.Build = m.Build
		fmt.Fprintf(stderr, "reusing the memory in %s (built in %.0f s)\n", f.dataDir, m.Build.Seconds)
	} else if f.reuse {
		if rep.Build, err = synth.CheckBuilt(ctx, gen, sink); err != nil {
			return fmt.Errorf("--reuse: %w", err)
		}
		rep.Reused = true
		fmt.Fprintln(stderr, "reusing the memory on the servers")
	} else {
		if !embedded || f.graph == "neo4j" || f.vector == "milvus" {
			// Start from a clean slate on the shared servers.
			if _, err := synth.Purge(ctx, gen, sink); err != nil {
				return err
			}
		}
		if rep.Build, err = buildSynth(ctx, f, gen, sink, stderr); err != nil {
			return err
		}
		if embedded {
			if err := synth.WriteManifest(f.dataDir, synth.Manifest{Version: synth.Version, Config: f.cfg, Embedder: embedder.Name(), Build: rep.Build, BuiltAt: time.Now().UTC()}); err != nil {
				return err
			}
		}
	}
	if embedded {
		if rep.DiskBytes, err = synth.DirSize(f.dataDir); err != nil {
			return err
		}
	}
	rep.AfterBuild = synth.ReadResources()
	var peakAnon int64
	if !f.buildOnly {
		stopWatch := synth.WatchAnon(250 * time.Millisecond)
		err := measureSynth(ctx, f, gen, sink, &rep, stderr)
		peakAnon = stopWatch()
		if err != nil {
			return err
		}
	}
	if !f.keep && (f.graph == "neo4j" || f.vector == "milvus") {
		purge := sink
		if f.vector == "milvus" {
			// The collection is dropped on close: deleting its rows first
			// would only set Milvus compacting and indexing them again in
			// the background, into the next run's measurement.
			purge.Vectors = nil
		}
		st, err := synth.Purge(ctx, gen, purge)
		if err != nil {
			return err
		}
		rep.Purged = &st
	}
	rep.Resources = synth.ReadResources()
	rep.Resources.PeakAnonBytes = peakAnon
	if err := writeHeapProfile(f.heapProfile); err != nil {
		return err
	}
	if err := writeSynthReport(stdout, rep); err != nil {
		return err
	}
	if err := writeJSON(f.jsonOut, rep); err != nil {
		return err
	}
	if !f.buildOnly && len(rep.Search) > 0 && rep.Search[0].Errors > 0 {
		return fmt.Errorf("%d searches failed, the first: %s", rep.Search[0].Errors, rep.Search[0].FirstError)
	}
	return nil
}

// prepareDataDir decides whether --data-dir holds the requested memory
// (reuse it), nothing (build), or something else (refuse, or delete the
// embedded stores with --rebuild).
func prepareDataDir(f synthFlags, embedder string) (reuse bool, err error) {
	if err := os.MkdirAll(f.dataDir, 0o755); err != nil {
		return false, fmt.Errorf("create --data-dir: %w", err)
	}
	stores, err := filepath.Glob(filepath.Join(f.dataDir, "*.db*"))
	if err != nil {
		return false, fmt.Errorf("list --data-dir: %w", err)
	}
	if f.rebuild {
		for _, p := range append(stores, filepath.Join(f.dataDir, synth.ManifestFile)) {
			if err := os.Remove(p); err != nil && !errors.Is(err, os.ErrNotExist) {
				return false, fmt.Errorf("--rebuild: %w", err)
			}
		}
		return false, nil
	}
	m, err := synth.ReadManifest(f.dataDir)
	switch {
	case errors.Is(err, kgmem.ErrNotFound) && len(stores) == 0:
		return false, nil
	case errors.Is(err, kgmem.ErrNotFound):
		return false, kgmem.Invalidf("data-dir", "%s holds stores but no %s; pass --rebuild to replace them, or another --data-dir", f.dataDir, synth.ManifestFile)
	case err != nil:
		return false, err
	case !m.Matches(f.cfg, embedder):
		return false, kgmem.Invalidf("data-dir", "%s holds another memory (seed %d, %d facts, %d namespaces); pass --rebuild to replace it", f.dataDir, m.Config.Seed, m.Config.Facts, m.Config.Namespaces)
	}
	// Only the embedded stores live in the data dir; a production backend
	// next to it is rebuilt every run.
	return f.graph == "sqlite" && f.vector == "hnsw", nil
}

// openSynthStores opens the configured graph store and vector index.
func openSynthStores(ctx context.Context, f synthFlags, embedder kgmem.Embedder) (synth.Sink, func() error, error) {
	sink := synth.Sink{Embedder: embedder}
	var err error
	switch f.graph {
	case "sqlite":
		// Exclusive, as the server opens its store: versions and settings
		// are kept in memory rather than read per call.
		sink.Graph, err = sqlite.Open(ctx, filepath.Join(f.dataDir, "graph.db"), sqlite.Exclusive())
	default:
		sink.Graph, err = neo4j.Open(ctx, neo4j.Config{URI: f.neo4jURI, Username: f.neo4jUser, Password: f.neo4jPass, Database: f.neo4jDB})
	}
	if err != nil {
		return sink, nil, fmt.Errorf("open %s graph store: %w", f.graph, err)
	}
	drop := func() error { return nil }
	switch f.vector {
	case "hnsw":
		sink.Vectors, err = hnsw.Open(ctx, filepath.Join(f.dataDir, "vectors.db"), embedder.Dimension(), hnsw.Options{EfSearch: f.hnswEf, MaxLoadedBytes: f.hnswMaxBytes})
	default:
		var ix *milvus.Index
		ix, err = milvus.Open(ctx, milvus.Config{Address: f.milvusAddr, Collection: f.milvusColl, Dim: embedder.Dimension(), ConsistencyLevel: milvus.Consistency(f.milvusCons), ExactBelow: f.milvusExact})
		sink.Vectors = ix
		if !f.keep {
			// The collection is the bench's own: dropped, not only emptied,
			// so that no loaded collection of an earlier run takes the
			// server's time in the next.
			drop = func() error { return ix.Drop(context.WithoutCancel(ctx)) }
		}
	}
	if err != nil {
		_ = sink.Graph.Close()
		return sink, nil, fmt.Errorf("open %s vector index: %w", f.vector, err)
	}
	return sink, func() error { return errors.Join(drop(), sink.Vectors.Close(), sink.Graph.Close()) }, nil
}

// buildSynth writes the memory, with a progress bar and a CPU profile when asked.
func buildSynth(ctx context.Context, f synthFlags, gen *synth.Generator, sink synth.Sink, stderr io.Writer) (synth.BuildStats, error) {
	stop, err := cpuprofile.Start(f.buildProfile)
	if err != nil {
		return synth.BuildStats{}, err
	}
	defer stop()
	opts := synth.BuildOptions{Batch: f.batch}
	if f.progress {
		bar := progressbar.NewOptions(f.cfg.Namespaces, progressbar.OptionSetWriter(stderr), progressbar.OptionSetDescription("build"),
			progressbar.OptionShowCount(), progressbar.OptionSetItsString("ns"), progressbar.OptionShowIts(),
			progressbar.OptionOnCompletion(func() { fmt.Fprintln(stderr) }))
		opts.Progress = func(done, _ int) { _ = bar.Set(done) }
	}
	st, err := synth.Build(ctx, gen, sink, opts)
	if err != nil {
		return st, err
	}
	fmt.Fprintf(stderr, "built %d facts, %d entities, %d episodes in %d namespaces in %.1f s (%.0f facts/s)\n",
		st.Facts, st.Entities, st.Episodes, st.Namespaces, st.Seconds, st.FactsPerSecond())
	return st, nil
}

// measureSynth warms every namespace up, runs the query passes and the recall check.
func measureSynth(ctx context.Context, f synthFlags, gen *synth.Generator, sink synth.Sink, rep *synthReport, stderr io.Writer) error {
	graph, vectors := sink.Graph, sink.Vectors
	var times *synth.CallTimes
	if f.callTimes {
		times = synth.NewCallTimes()
		graph, vectors = times.Graph(graph), times.Vectors(vectors)
	}
	engine, err := memory.New(memory.Config{
		Graph: graph, Vectors: vectors, Embedder: sink.Embedder,
		Logger: slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn})),
		Search: memory.SearchOptions{VectorWeight: f.vectorWeight, TextWeight: f.textWeight},
		// As the server sets it (cmd/server/backends.go).
		InlineWhenBusy: f.graph == "sqlite" && f.vector == "hnsw",
	})
	if err != nil {
		return err
	}
	if fl, ok := sink.Vectors.(interface{ Flush(context.Context) error }); ok && f.flush {
		fmt.Fprintln(stderr, "flushing the vector index and waiting for it to be indexed…")
		t0 := time.Now()
		if err := fl.Flush(ctx); err != nil {
			return err
		}
		fmt.Fprintf(stderr, "flushed and indexed in %.1f s\n", time.Since(t0).Seconds())
	}
	if ix, ok := sink.Vectors.(*milvus.Index); ok && f.flush && f.settle > 0 {
		fmt.Fprintf(stderr, "waiting until the Milvus segments stay the same for %s…\n", f.settle)
		st, err := ix.Settle(ctx, f.settle)
		if err != nil {
			return err
		}
		rep.Settle = &st
		fmt.Fprintf(stderr, "settled in %.1f s (%d segment changes)\n", st.Waited.Seconds(), st.Changes)
	}
	queries := gen.Queries(f.querySeed, f.queries, runtime.GOMAXPROCS(0))
	rep.QueryStyles = map[string]int{}
	for _, q := range queries {
		rep.QueryStyles[q.Style]++
	}
	if f.search {
		if err := searchSynth(ctx, f, gen, sink, engine, queries, rep, times, stderr); err != nil {
			return err
		}
	}
	if ix, ok := sink.Vectors.(*hnsw.Index); ok {
		rep.LoadedNS, rep.LoadedVecs = ix.Loaded()
	}
	if f.recallQueries > 0 {
		sample := queries[:min(f.recallQueries, len(queries))]
		rep.RecallSample = len(sample)
		fmt.Fprintf(stderr, "checking the vector step of %d queries against exact search…\n", len(sample))
		st, err := synth.MeasureRecall(ctx, gen, sink.Vectors, sink.Embedder, sample, f.k, hnsw.DefaultExactBelow)
		if err != nil {
			return err
		}
		rep.Recall = &st
	}
	return nil
}

// searchSynth warms every namespace up and runs the measured query passes.
// With times, each pass ends with where its searches' wall time went.
func searchSynth(ctx context.Context, f synthFlags, gen *synth.Generator, sink synth.Sink, engine *memory.Engine, queries []synth.Query, rep *synthReport, times *synth.CallTimes, stderr io.Writer) error {
	fmt.Fprintf(stderr, "warming up %d namespaces…\n", f.cfg.Namespaces)
	stopWarm, err := cpuprofile.Start(f.warmProfile)
	if err != nil {
		return err
	}
	warm, err := synth.WarmUp(ctx, engine, sink.Vectors, gen.Plan(), runtime.GOMAXPROCS(0))
	stopWarm()
	if err != nil {
		return err
	}
	rep.WarmUpSecs = warm.Seconds()
	stop, err := cpuprofile.Start(f.cpuProfile)
	if err != nil {
		return err
	}
	if f.allocProfile != "" {
		if err := writeAllocs(f.allocProfile + ".base"); err != nil {
			return err
		}
	}
	levels := []int{1}
	if f.concurrency > 1 {
		levels = append(levels, f.concurrency)
	}
	for _, c := range levels {
		fmt.Fprintf(stderr, "searching: %d queries at concurrency %d…\n", len(queries), c)
		if times != nil {
			times.Reset()
		}
		rep.Search = append(rep.Search, synth.MeasureSearch(ctx, engine, queries, c, f.limit))
		if times != nil {
			times.Report(stderr, len(queries))
		}
	}
	stop()
	if f.allocProfile != "" {
		return writeAllocs(f.allocProfile)
	}
	return nil
}

// writeAllocs writes the allocations since the process started to path;
// two of them, around the measured passes, give what the passes allocated
// (go tool pprof -sample_index=alloc_space -diff_base PATH.base PATH). The
// profile is as of the last collection, so it collects first.
func writeAllocs(path string) error {
	runtime.GC()
	out, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("create allocation profile: %w", err)
	}
	if err := pprof.Lookup("allocs").WriteTo(out, 0); err != nil {
		out.Close()
		return fmt.Errorf("write allocation profile: %w", err)
	}
	return out.Close()
}

// writeHeapProfile writes what the heap holds now, after a collection, to
// path ("": nothing).
func writeHeapProfile(path string) error {
	if path == "" {
		return nil
	}
	out, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("create heap profile: %w", err)
	}
	runtime.GC()
	if err := pprof.Lookup("heap").WriteTo(out, 0); err != nil {
		out.Close()
		return fmt.Errorf("write heap profile: %w", err)
	}
	return out.Close()
}

// writeSynthReport prints the report as text.
func writeSynthReport(w io.Writer, r synthReport) error {
	mb := func(b int64) float64 { return float64(b) / (1 << 20) }
	var b strings.Builder
	fmt.Fprintf(&b, "synthetic memory: seed %d, %d facts, %d entities, %d episodes in %d namespaces (%s + %s, %s)\n",
		r.Config.Seed, r.Build.Facts, r.Build.Entities, r.Build.Episodes, r.Build.Namespaces, r.Graph, r.Vector, r.Embedder)
	fmt.Fprintf(&b, "degrees: top 1%% of entities hold %.1f%% of fact endpoints, top 10%% %.1f%%; max %d, median %d\n",
		100*r.Build.Degrees.Top1Share, 100*r.Build.Degrees.Top10Share, r.Build.Degrees.MaxDegree, r.Build.Degrees.MedianDegree)
	reused := ""
	if r.Reused {
		reused = " (reused)"
	}
	disk := ""
	if r.DiskBytes > 0 {
		disk = fmt.Sprintf("; on disk %.0f MiB", mb(r.DiskBytes))
	}
	fmt.Fprintf(&b, "build: %.1f s%s, %.0f facts/s%s; RSS after build %.0f MiB\n",
		r.Build.Seconds, reused, r.Build.FactsPerSecond(), disk, mb(r.AfterBuild.MaxRSSBytes))
	if len(r.Search) > 0 {
		fmt.Fprintf(&b, "warm-up (one search per namespace): %.1f s\n", r.WarmUpSecs)
		fmt.Fprintf(&b, "%-12s %8s %8s %8s %8s %8s %8s %7s %7s %11s %4s %14s\n", "concurrency", "queries", "p50 ms", "p95 ms", "p99 ms", "max ms", "QPS", "found", "errors", "KiB/search", "GCs", "CPU ms/search")
		for _, s := range r.Search {
			fmt.Fprintf(&b, "%-12d %8d %8.2f %8.2f %8.2f %8.1f %8.0f %6.1f%% %7d %11.0f %4d %14.2f\n",
				s.Concurrency, s.Queries, s.P50Ms, s.P95Ms, s.P99Ms, s.MaxMs, s.QPS, 100*s.Found, s.Errors, s.AllocBytesPerQuery/1024, s.GCCycles, s.CPUMsPerQuery)
		}
		for _, s := range r.Search {
			for _, q := range s.Slowest {
				fmt.Fprintf(&b, "slowest at concurrency %d: %.1f ms for %q in %s\n", s.Concurrency, q.Ms, q.Query.Text, q.Query.Namespace)
			}
		}
	}
	if r.Recall != nil {
		fmt.Fprintf(&b, "vector recall@%d vs exact: mean %.3f (min %.2f) over %d searches of %d queries; on shards ≥ %d vectors %.3f over %d\n",
			r.Recall.K, r.Recall.Mean, r.Recall.Min, r.Recall.Searches, r.Recall.Queries, r.Recall.LargeShard, r.Recall.LargeMean, r.Recall.LargeSearches)
		if w := r.Recall.Worst; w != nil && w.Recall < 1 {
			fmt.Fprintf(&b, "worst: recall %.2f for %q in %s (%s, %d vectors)\n", w.Recall, w.Query.Text, w.Query.Namespace, w.Kind, w.Shard)
		}
	}
	if r.LoadedNS > 0 {
		fmt.Fprintf(&b, "loaded: %d namespaces, %d vectors\n", r.LoadedNS, r.LoadedVecs)
	}
	fmt.Fprintf(&b, "peak RSS %.0f MiB (VmHWM %.0f MiB); at the end %.0f MiB anonymous + %.0f MiB mapped files; heap in use %.0f MiB, from the OS %.0f MiB\n",
		mb(r.Resources.MaxRSSBytes), mb(r.Resources.HWMBytes), mb(r.Resources.AnonBytes), mb(r.Resources.FileBytes),
		mb(int64(r.Resources.HeapInuseBytes)), mb(int64(r.Resources.HeapSysBytes)))
	if r.Resources.PeakAnonBytes > 0 {
		fmt.Fprintf(&b, "peak anonymous memory while searching %.0f MiB (RssAnon sampled every 250 ms from the warm-up on)\n", mb(r.Resources.PeakAnonBytes))
	}
	if r.Purged != nil {
		fmt.Fprintf(&b, "purged: %d facts, %d entities, %d episodes\n", r.Purged.Facts, r.Purged.Entities, r.Purged.Episodes)
	}
	_, err := io.WriteString(w, b.String())
	return err
}
