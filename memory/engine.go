package memory

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/decay"
	"github.com/kgmem/kgmem/episodes"
	"github.com/kgmem/kgmem/internal/nslock"
	"github.com/kgmem/kgmem/triples"
	"github.com/prometheus/client_golang/prometheus"
)

// Config wires an Engine to its backends. Graph, Vectors and Embedder are required.
type Config struct {
	Graph    kgmem.GraphStore
	Vectors  kgmem.VectorIndex
	Embedder kgmem.Embedder
	// Extractor turns messages into triples; nil disables "extract": true.
	Extractor kgmem.Extractor
	// Integrator resolves triples into graph changes; nil builds a rule-based one.
	Integrator *triples.Integrator
	// Clock defaults to the system clock.
	Clock kgmem.Clock
	// Logger defaults to slog.Default().
	Logger *slog.Logger
	// Limits bound incoming messages; zero fields take episodes.DefaultLimits.
	Limits episodes.Limits
	// Search tunes retrieval; zero fields take DefaultSearchOptions.
	Search SearchOptions
	// Recipe names the search recipe of a request that names none, in a
	// namespace whose settings name none ("": RecipeDefault).
	Recipe string
	// Reranker, when set, reorders the best search candidates (see SearchOptions.RerankCandidates).
	Reranker kgmem.Reranker
	// Decay gives each namespace's forgetting-curve model; nil reads the
	// parameters from the namespace settings in Graph (a search then reads
	// the settings once for its recipe and its model).
	Decay decay.ModelFunc
	// Reinforcer records recalls (search results, feedback) off the request
	// path; nil disables search-time reinforcement and POST /v1/feedback.
	Reinforcer *decay.Reinforcer
	// WriteLocks serialises the writes to each namespace (with several
	// servers on one Neo4j, chain the database's lease locks after the
	// process's own: nslock.Chain); give the Reinforcer's Lock the same
	// locker so that its decay writes do not interleave with the engine's.
	// nil: an nslock.Local (in-process, per namespace) of the engine's own.
	WriteLocks kgmem.NamespaceLocker
	// Metrics receives the engine's Prometheus counters (nil: not exported).
	Metrics prometheus.Registerer
	// Outbox journals every write's vector ops before its graph write and
	// keeps those whose vector write fails for RunOutbox to retry. nil: an
	// in-memory queue, used only while RunOutbox runs; without a drain loop a
	// failed vector write is logged (repair: `server reindex`). An outbox
	// kept in Graph's own database (kgmem.JournalingOutbox) journals a
	// change set's ops in the change set's transaction: it must be Graph's.
	Outbox kgmem.VectorOutbox
	// OutboxOptions tune vector write and recall deadlines and the drain.
	OutboxOptions OutboxOptions
	// InlineWhenBusy runs a search stage's parts one after another once as
	// many searches are in flight as the process has cores (fanOut). Set it
	// when Graph and Vectors run in this process (the embedded SQLite store
	// and HNSW index), whose parts spend CPU; leave it off for backends
	// over a network, whose parts mostly wait and gain from overlapping.
	InlineWhenBusy bool
}

// Engine runs ingestion and search over one graph store and one vector index.
// It is safe for concurrent use: writes to one namespace are serialised, writes
// to different namespaces and all reads run in parallel.
type Engine struct {
	graph   kgmem.GraphStore
	vectors kgmem.VectorIndex
	// recipe is the search recipe of a search that names none (Config.Recipe).
	recipe Recipe
	// modelsFromSettings is true when models reads the namespace settings
	// from graph (Config.Decay nil): a search that read them derives its
	// model from them instead of reading them again.
	modelsFromSettings bool
	embedder           kgmem.Embedder
	extractor          kgmem.Extractor
	integrator         *triples.Integrator
	clock              kgmem.Clock
	log                *slog.Logger
	limits             episodes.Limits
	search             SearchOptions
	reranker           kgmem.Reranker
	models             decay.ModelFunc
	reinforcer         *decay.Reinforcer
	metrics            *metrics
	outbox             *outboxState
	writeLocks         kgmem.NamespaceLocker
	// timelines caches each namespace's latest time, for relative time
	// expressions in queries (timeline.go).
	timelines timelines
	// fusing keeps fuse's scratch indexes (*fuseScratch) between searches.
	fusing sync.Pool
	// searching counts the searches in flight, and inlineWhenBusy is
	// Config.InlineWhenBusy (fanOut).
	searching      atomic.Int64
	inlineWhenBusy bool
	// predicates keeps the stems of predicates' words for the graph
	// retriever (expand.go).
	predicates predicateStems
}

// New checks cfg and returns an Engine.
func New(cfg Config) (*Engine, error) {
	switch {
	case cfg.Graph == nil:
		return nil, errors.New("memory: Config.Graph is required")
	case cfg.Vectors == nil:
		return nil, errors.New("memory: Config.Vectors is required")
	case cfg.Embedder == nil:
		return nil, errors.New("memory: Config.Embedder is required")
	}
	recipe, err := recipeNamed("recipe", cmp.Or(cfg.Recipe, RecipeDefault))
	if err != nil {
		return nil, fmt.Errorf("memory: Config.Recipe: %w", err)
	}
	if d, e := cfg.Vectors.Dimension(), cfg.Embedder.Dimension(); d != e {
		return nil, fmt.Errorf("memory: vector index holds %d-dimensional vectors but embedder %s makes %d: %w",
			d, cfg.Embedder.Name(), e, kgmem.ErrDimensionMismatch)
	}
	e := &Engine{
		graph:      cfg.Graph,
		vectors:    cfg.Vectors,
		embedder:   cfg.Embedder,
		extractor:  cfg.Extractor,
		integrator: cfg.Integrator,
		clock:      cfg.Clock,
		log:        cfg.Logger,
		limits:     withDefaultLimits(cfg.Limits),
		search:     cfg.Search.withDefaults(),
		recipe:     recipe,
		reranker:   cfg.Reranker,
		models:     cfg.Decay,
		reinforcer: cfg.Reinforcer,
		metrics:    newMetrics(cfg.Metrics),
		writeLocks: cfg.WriteLocks,

		inlineWhenBusy: cfg.InlineWhenBusy,
	}
	if e.writeLocks == nil {
		e.writeLocks = new(nslock.Local)
	}
	e.initOutbox(cfg, cfg.Metrics)
	if e.models == nil {
		e.models = decay.StoreModels(cfg.Graph)
		e.modelsFromSettings = true
	}
	if e.clock == nil {
		e.clock = kgmem.SystemClock{}
	}
	if e.log == nil {
		e.log = slog.Default()
	}
	if e.integrator == nil {
		e.integrator = triples.NewIntegrator(cfg.Graph, triples.IntegratorOptions{Clock: e.clock, Embedder: cfg.Embedder})
	}
	return e, nil
}

func withDefaultLimits(l episodes.Limits) episodes.Limits {
	d := episodes.DefaultLimits()
	if l.MaxMessages <= 0 {
		l.MaxMessages = d.MaxMessages
	}
	if l.MaxContentBytes <= 0 {
		l.MaxContentBytes = d.MaxContentBytes
	}
	if l.MaxFieldBytes <= 0 {
		l.MaxFieldBytes = d.MaxFieldBytes
	}
	return l
}

// Limits returns the message limits the engine enforces.
func (e *Engine) Limits() episodes.Limits { return e.limits }

// ExtractionEnabled reports whether an Extractor is configured.
func (e *Engine) ExtractionEnabled() bool { return e.extractor != nil }

// lockNamespace serialises writes to ns (and, when the Reinforcer shares
// the locks, its decay writes).
func (e *Engine) lockNamespace(ctx context.Context, ns kgmem.Namespace) (func(), error) {
	unlock, err := e.writeLocks.Lock(ctx, ns)
	if err != nil {
		return nil, fmt.Errorf("lock namespace %q for writing: %w", ns, err)
	}
	return unlock, nil
}

// Ready checks that every backend answers.
func (e *Engine) Ready(ctx context.Context) error {
	if err := e.graph.Ping(ctx); err != nil {
		return fmt.Errorf("graph store: %w", err)
	}
	if err := e.vectors.Ping(ctx); err != nil {
		return fmt.Errorf("vector index: %w", err)
	}
	return nil
}

func (e *Engine) now() time.Time { return e.clock.Now().UTC().Truncate(time.Millisecond) }
