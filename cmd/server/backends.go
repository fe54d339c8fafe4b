package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/decay"
	"github.com/kgmem/kgmem/embed"
	"github.com/kgmem/kgmem/graph/neo4j"
	"github.com/kgmem/kgmem/graph/sqlite"
	"github.com/kgmem/kgmem/instrument"
	"github.com/kgmem/kgmem/internal/nslock"
	"github.com/kgmem/kgmem/internal/serverid"
	"github.com/kgmem/kgmem/memory"
	"github.com/kgmem/kgmem/outbox"
	"github.com/kgmem/kgmem/rerank"
	"github.com/kgmem/kgmem/triples"
	"github.com/kgmem/kgmem/vector/hnsw"
	"github.com/kgmem/kgmem/vector/milvus"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
)

// backends are the opened stores and the engine over them.
type backends struct {
	metrics    *prometheus.Registry
	graph      kgmem.GraphStore
	vectors    kgmem.VectorIndex
	reinforcer *decay.Reinforcer
	// outbox queues vector writes that failed after their graph write; only
	// serve opens it: a journal in the data directory (one process per
	// file), or with Neo4j the database's, shared by every server on it.
	outbox closingOutbox
	engine *memory.Engine
	// embedder embeds for the engine and the integrator.
	embedder kgmem.Embedder
	// dirLock holds the data directory for this process (see lockDataDir).
	dirLock *dataDirLock
	// dataDir is the data directory; log the process's logger.
	dataDir string
	log     *slog.Logger
}

// openMode says what a command needs of the backends.
type openMode int

const (
	// forMaintenance: vector writes that fail are queued in memory only,
	// and every backend must answer at start.
	forMaintenance openMode = iota
	// forServing: the durable vector outbox in the data directory (or
	// Neo4j's), drained by the server; Milvus may be away at start (the
	// server starts degraded and connects in the background).
	forServing
	// forImport: the durable vector outbox too, so that an import killed
	// between a graph write and its vectors repairs them when it resumes;
	// Milvus may be away at start, as for serving (the vector writes wait
	// in the outbox for it, or for the next run).
	// With Neo4j + Milvus it takes no lock on the data directory (a server
	// may use it) and keeps its ops under an owner of its own.
	forImport
)

// openBackends opens the configured graph store, vector index, embedder and
// extractor, and builds the engine, for maintenance commands: vector writes
// that fail are queued in memory only (see openBackendsWith).
func openBackends(ctx context.Context, cfg *config, log *slog.Logger) (*backends, error) {
	return openBackendsWith(ctx, cfg, log, forMaintenance)
}

// openBackendsWith is openBackends for a mode: forServing and forImport
// also open the durable vector outbox in the data directory (their caller
// drains it). On failure everything opened is closed.
func openBackendsWith(ctx context.Context, cfg *config, log *slog.Logger, mode openMode) (b *backends, err error) {
	withOutbox := mode != forMaintenance
	opened := &backends{metrics: prometheus.NewRegistry(), dataDir: cfg.DataDir, log: log}
	b = opened
	b.metrics.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	defer func() {
		// Not b: a failing return sets it to nil.
		if err != nil {
			opened.close(log)
		}
	}()
	embedder, err := openEmbedder(cfg)
	if err != nil {
		return nil, err
	}
	b.embedder = embedder
	// The data directory always holds the recall journal; with the embedded
	// backends it holds the graph and the vectors too.
	if err := os.MkdirAll(cfg.DataDir, 0o755); err != nil {
		return nil, fmt.Errorf("create data directory: %w", err)
	}
	// One process per data directory: a server's journal and outbox live
	// there whatever the backends, and the embedded backends' files too.
	// Maintenance commands on Neo4j + Milvus may run next to servers.
	if embedded := cfg.graphInDataDir() || cfg.Vector == "hnsw"; embedded || mode == forServing {
		if b.dirLock, err = lockDataDir(cfg.DataDir, embedded); err != nil {
			return nil, err
		}
	}
	if b.graph, err = openGraph(ctx, cfg); err != nil {
		return nil, err
	}
	if cfg.Vector == "hnsw" && !cfg.reembed {
		if err := checkEmbedderStamp(cfg.DataDir, embedder.Name(), log); err != nil {
			return nil, err
		}
	}
	if b.vectors, err = openVectors(ctx, cfg, embedder, mode != forMaintenance, log); err != nil {
		return nil, err
	}
	// With an LLM configured it extracts triples and settles what the rules
	// leave ambiguous; without one, posted triples are still resolved by rules.
	synonyms, err := cfg.synonyms()
	if err != nil {
		return nil, err
	}
	integratorOpts := triples.IntegratorOptions{Embedder: embedder, Synonyms: synonyms}
	var extractor kgmem.Extractor
	if cfg.LLMBaseURL != "" {
		llm := triples.LLMConfig{
			BaseURL: cfg.LLMBaseURL, APIKey: cfg.LLMAPIKey, Model: cfg.LLMModel, Azure: cfg.LLMAzure,
			Timeout: cfg.LLMTimeout, Mode: triples.Mode(cfg.LLMMode), Logger: log,
			PromptStyle: triples.PromptStyle(cfg.LLMPrompt), ContextSize: cfg.LLMContext, MaxTokens: cfg.LLMMaxTokens,
		}
		if extractor, err = triples.NewExtractor(llm); err != nil {
			return nil, fmt.Errorf("configure extraction LLM: %w", err)
		}
		integratorOpts.LLM = &llm
	}
	models := decay.StoreModels(b.graph)
	// The engine and the reinforcer serialise their writes of a namespace
	// on the same locks.
	// The engine's store calls are timed on /metrics, and their failures
	// counted (kgmem_backend_call_duration_seconds by backend and
	// operation; kgmem_backend_errors_total by backend, operation and kind).
	backendMetrics := instrument.New(b.metrics)
	locks := namespaceLocks(b.graph, cfg.Graph, backendMetrics, log)
	b.reinforcer, err = decay.NewReinforcer(decay.ReinforcerConfig{
		Store: b.graph, JournalPath: filepath.Join(cfg.DataDir, "recall.journal"), Models: models,
		Interval: cfg.ReinforceInterval, Logger: log, Lock: locks,
	})
	if err != nil {
		return nil, fmt.Errorf("open recall journal: %w", err)
	}
	var box kgmem.VectorOutbox
	if withOutbox {
		owner := ""
		if mode == forImport {
			owner = "ingest"
		}
		if b.outbox, err = openOutbox(ctx, cfg, b.graph, owner, log); err != nil {
			return nil, err
		}
		box = b.outbox
	}
	var reranker kgmem.Reranker
	if cfg.RerankBaseURL != "" {
		rc := rerank.Config{BaseURL: cfg.RerankBaseURL, Model: cfg.RerankModel, APIKey: cfg.RerankAPIKey}
		if cfg.RerankAPI == "chat" {
			reranker, err = rerank.NewChat(rc)
		} else {
			reranker, err = rerank.New(rc)
		}
		if err != nil {
			return nil, fmt.Errorf("configure reranker: %w", err)
		}
	}
	graph, vectors := instrument.Graph(b.graph, cfg.Graph, backendMetrics), instrument.Vectors(b.vectors, cfg.Vector, backendMetrics)
	if box != nil {
		keeper := "file"
		if _, kept := b.graph.(kgmem.VectorOutboxStore); kept {
			keeper = cfg.Graph
		}
		box = instrument.Outbox(box, keeper, backendMetrics)
	}
	b.engine, err = memory.New(memory.Config{
		Outbox: box,
		Graph:  graph, Vectors: vectors, Embedder: embedder, Extractor: extractor, Logger: log,
		Integrator: triples.NewIntegrator(graph, integratorOpts), Reinforcer: b.reinforcer, WriteLocks: locks,
		Search:   cfg.searchOptions(),
		Recipe:   cfg.SearchRecipe,
		Reranker: reranker,
		Metrics:  b.metrics,
		// Both stores in this process: a search's parts spend CPU rather
		// than wait on a network, so they stop fanning out once the cores
		// are busy.
		InlineWhenBusy: kgmem.RunsInProcess(b.graph, b.vectors),
	})
	if err != nil {
		return nil, err
	}
	return b, nil
}

// namespaceLocks returns the namespace write locks of this process,
// chained, when the graph store offers them (kgmem.NamespaceLeases, as
// Neo4j does), with the store's lease locks, which every server on it
// shares, timed under backend on m.
func namespaceLocks(graph kgmem.GraphStore, backend string, m *instrument.Metrics, log *slog.Logger) kgmem.NamespaceLocker {
	var locks kgmem.NamespaceLocker = new(nslock.Local)
	if shared, ok := graph.(kgmem.NamespaceLeases); ok {
		locks = nslock.Chain{locks, instrument.Locks(shared.NamespaceLocks(0, log), backend, m)}
	}
	return locks
}

func openEmbedder(cfg *config) (kgmem.Embedder, error) {
	switch cfg.Embedder {
	case "hash":
		return embed.NewHashing(cfg.EmbedDim), nil
	case "static":
		e, err := embed.LoadStatic(cfg.EmbedStaticModel)
		if errors.Is(err, embed.ErrNoModel) {
			return nil, fmt.Errorf("--embedder static: %w; run scripts/embedder.sh install (it builds the model under ~/.cache/kgmem/embedder) or point --embed-static-model at the model's directory", err)
		}
		if err != nil {
			return nil, fmt.Errorf("--embedder static: %w", err)
		}
		return e, nil
	}
	e, err := embed.NewOpenAI(embed.OpenAIConfig{
		BaseURL: cfg.EmbedBaseURL, APIKey: cfg.EmbedAPIKey, Model: cfg.EmbedModel, Dimensions: cfg.EmbedDim,
		Azure: cfg.EmbedAzure, BatchSize: cfg.EmbedBatch, Timeout: cfg.EmbedTimeout,
	})
	if err != nil {
		return nil, fmt.Errorf("configure embeddings endpoint: %w", err)
	}
	return e, nil
}

// graphInDataDir reports whether cfg's graph store is a file of the data
// directory (the embedded store), which one process owns: what must be
// known before the store is opened.
func (c *config) graphInDataDir() bool { return c.Graph == "sqlite" }

func openGraph(ctx context.Context, cfg *config) (kgmem.GraphStore, error) {
	switch cfg.Graph {
	case "sqlite":
		path := filepath.Join(cfg.DataDir, "graph.db")
		// The process owns its data directory (datadir.go), so the store
		// owns the file and keeps its versions in memory.
		opts := []sqlite.Option{sqlite.Exclusive()}
		if cfg.bulkImport {
			opts = append(opts, sqlite.BulkImport()...)
		}
		s, err := sqlite.Open(ctx, path, opts...)
		if err != nil {
			return nil, fmt.Errorf("open embedded graph store %s: %w", path, err)
		}
		return s, nil
	case "neo4j":
		s, err := neo4j.Open(ctx, cfg.neo4jConfig())
		if err != nil {
			return nil, fmt.Errorf("open Neo4j graph store at %s: %w", cfg.Neo4jURI, err)
		}
		return s, nil
	}
	return nil, fmt.Errorf("graph backend %q is not built into this binary", cfg.Graph)
}

// openVectors opens the vector index. With resilient, a Milvus that does
// not answer yet is no error: the index connects in the background (see
// backends.drainOutbox) and fails every call with kgmem.ErrUnavailable
// meanwhile.
func openVectors(ctx context.Context, cfg *config, embedder kgmem.Embedder, resilient bool, log *slog.Logger) (kgmem.VectorIndex, error) {
	switch cfg.Vector {
	case "hnsw":
		path := filepath.Join(cfg.DataDir, "vectors.db")
		ix, err := hnsw.Open(ctx, path, embedder.Dimension(), hnsw.Options{BackgroundCheckpoints: cfg.bulkImport})
		if err != nil {
			return nil, fmt.Errorf("open embedded vector index %s: %w", path, err)
		}
		return ix, nil
	case "milvus":
		mc := milvus.Config{Address: cfg.MilvusAddr, Collection: cfg.MilvusCollection, Dim: embedder.Dimension(), ConsistencyLevel: milvus.Consistency(cfg.MilvusConsistency), ExactBelow: cfg.MilvusExactBelow}
		if resilient {
			ix, err := milvus.OpenResilient(ctx, mc, milvus.ResilientOptions{Logger: log, CheckInterval: cfg.MilvusCheckInterval})
			if err != nil {
				return nil, fmt.Errorf("open Milvus vector index at %s: %w", cfg.MilvusAddr, err)
			}
			return ix, nil
		}
		ix, err := milvus.Open(ctx, mc)
		if err != nil {
			return nil, fmt.Errorf("open Milvus vector index at %s: %w", cfg.MilvusAddr, err)
		}
		return ix, nil
	}
	return nil, fmt.Errorf("vector backend %q is not built into this binary", cfg.Vector)
}

// close closes whatever was opened, logging failures.
func (b *backends) close(log *slog.Logger) {
	var errs []error
	if b.reinforcer != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		errs = append(errs, b.reinforcer.Close(ctx)) // applies pending recalls
		cancel()
	}
	if b.outbox != nil {
		errs = append(errs, b.outbox.Close()) // queued ops stay for the next start
	}
	if b.vectors != nil {
		errs = append(errs, b.vectors.Close())
	}
	if b.graph != nil {
		errs = append(errs, b.graph.Close())
	}
	errs = append(errs, b.dirLock.release()) // last: nothing of this process touches the directory after
	if err := errors.Join(errs...); err != nil {
		log.Error("closing backends", "error", err)
	}
}

// searchOptions is the engine's search configuration from the flags: a
// retriever weight of 0 switches it off.
func (cfg *config) searchOptions() memory.SearchOptions {
	return memory.SearchOptions{VectorWeight: cfg.VectorWeight, TextWeight: cfg.TextWeight, RRFK: cfg.RRFK,
		ThreadWeight: offIfZero(cfg.ThreadWeight), SpeakerWeight: offIfZero(cfg.SpeakerWeight), GraphWeight: offIfZero(cfg.GraphWeight),
		GraphDepth: cfg.GraphDepth, RetrieverTimeout: cfg.RetrieverTimeout, Timeout: cfg.SearchTimeout, MMRLambda: cfg.MMRLambda,
		RerankTimeout: cfg.RerankTimeout, RerankCandidates: cfg.RerankCandidates}
}

// offIfZero maps a flag's 0 ("off") to the engine's negative weight (off),
// since the engine reads 0 as "default".
func offIfZero(w float64) float64 {
	if w == 0 {
		return -1
	}
	return w
}

// drainOutbox retries, until the returned stop is called, the vector writes
// that failed after their graph write: at once (what a previous run left),
// whenever more are queued, and — with an outbox shared by several servers
// (kgmem.SharedVectorOutbox) — as soon as this server takes over another's.
// With a Milvus index that connects in the background it also runs that:
// once Milvus answers the queued writes are applied, and when its
// collection was created (missing at the first connection, or lost: a
// Milvus restarted empty) the vectors are rebuilt from the graph. stop
// returns once all of it has ended, before b.close closes the outbox.
func (b *backends) drainOutbox(ctx context.Context) (stop func()) {
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Go(func() { b.engine.RunOutbox(ctx) })
	if r, ok := b.vectors.(*milvus.Resilient); ok {
		// A rebuild is marked in the data directory until it is done, so
		// one a kill interrupted runs again at the next start.
		marker := filepath.Join(b.dataDir, rebuildMarker)
		rebuild := func() {
			wg.Go(func() {
				if ran, err := b.engine.RebuildVectors(ctx); ran && err == nil {
					_ = os.Remove(marker)
				}
			})
		}
		if _, err := os.Stat(marker); err == nil {
			rebuild()
		}
		wg.Go(func() {
			r.Run(ctx, milvus.Hooks{
				Connected: b.engine.VectorsRecovered,
				CollectionLost: func() {
					if err := writeMarker(marker); err != nil {
						b.log.Warn("could not mark the vector rebuild in the data directory; a kill before it ends leaves `server reindex` to finish it", "error", err)
					}
				},
				CollectionCreated: rebuild,
			})
		})
	}
	if shared, ok := b.outbox.(kgmem.SharedVectorOutbox); ok {
		wg.Go(func() {
			for {
				select {
				case <-ctx.Done():
					return
				case <-shared.Adopted():
					b.engine.KickOutbox()
				}
			}
		})
	}
	return func() { cancel(); wg.Wait() }
}

// rebuildMarker is the file in the data directory that marks a rebuild of
// the vector index from the graph as pending.
const rebuildMarker = "vector.rebuild"

// writeMarker creates the file at path, durably.
func writeMarker(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	return errors.Join(f.Sync(), f.Close())
}

// closingOutbox is a vector outbox its opener closes.
type closingOutbox interface {
	kgmem.VectorOutbox
	Close() error
}

// outboxFile is the vector outbox's journal in the data directory.
const outboxFile = "vector.outbox"

// openOutbox opens the vector outbox: the graph store's when it keeps one
// for every server on it (kgmem.VectorOutboxStore, as Neo4j does), owned
// by this server's id, into which the ops a journal in the data directory
// still holds are moved first; otherwise that journal.
//
// A non-empty owner (an import) keeps, in Neo4j, ops of its own under the
// server id suffixed with it, which it drains itself, or a server adopts once
// it has gone; it moves no journal, which a server may be using. The
// journal in the data directory is the server's: only a process holding
// the directory's lock opens it, and what an import leaves there the next
// server or import applies.
func openOutbox(ctx context.Context, cfg *config, graph kgmem.GraphStore, owner string, log *slog.Logger) (closingOutbox, error) {
	path := filepath.Join(cfg.DataDir, outboxFile)
	shared, ok := graph.(kgmem.VectorOutboxStore)
	if !ok {
		f, skipped, err := outbox.Open(path)
		if err != nil {
			return nil, err
		}
		if skipped > 0 {
			log.Warn("vector outbox: skipped torn journal lines", "path", path, "lines", skipped)
		}
		return f, nil
	}
	id, err := serverid.Read(cfg.DataDir)
	if err != nil {
		return nil, err
	}
	if owner != "" {
		id += "-" + owner
	}
	box, err := shared.OpenVectorOutbox(ctx, id, 0, log)
	if err != nil {
		return nil, err
	}
	if owner != "" {
		return box, nil
	}
	if err := moveOutbox(ctx, path, box, log); err != nil {
		_ = box.Close()
		return nil, err
	}
	return box, nil
}

// openExistingOutbox opens the outbox journal at path, or returns nil
// without creating one when there is none.
func openExistingOutbox(path string) (*outbox.File, error) {
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	f, _, err := outbox.Open(path)
	return f, err
}

// moveOutbox moves into dst the ops queued in the journal at path (a
// server that ran before its outbox was kept in Neo4j); a missing journal
// holds none.
func moveOutbox(ctx context.Context, path string, dst kgmem.VectorOutbox, log *slog.Logger) error {
	f, err := openExistingOutbox(path)
	if err != nil || f == nil {
		return err
	}
	defer f.Close()
	left := f.Pending(0)
	if len(left) == 0 {
		return nil
	}
	ops := make([]kgmem.VectorOp, len(left))
	seqs := make([]uint64, len(left))
	for i, q := range left {
		ops[i], seqs[i] = q.VectorOp, q.Seq
	}
	if _, err := dst.Add(ctx, ops); err != nil {
		return fmt.Errorf("move the queued vector writes of %s into Neo4j: %w", path, err)
	}
	if err := f.Done(seqs); err != nil {
		return fmt.Errorf("move the queued vector writes of %s into Neo4j: %w", path, err)
	}
	log.Info("moved queued vector writes into Neo4j", "file", path, "ops", len(ops))
	return nil
}
