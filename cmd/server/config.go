package main

import (
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/kgmem/kgmem/embed"
	"github.com/kgmem/kgmem/graph/neo4j"
	"github.com/kgmem/kgmem/memory"

	"github.com/kgmem/kgmem/triples"
	"github.com/kgmem/kgmem/vector/milvus"
)

// config is the server's effective configuration: every field is a flag and a
// KGMEM_* environment variable (the flag wins).
type config struct {
	Addr    string
	DataDir string

	Graph         string
	Neo4jURI      string
	Neo4jUser     string
	Neo4jPassword string
	Neo4jDatabase string
	// Neo4jScope isolates this deployment in a shared database (neo4j.Config.Scope).
	Neo4jScope string

	Vector            string
	MilvusAddr        string
	MilvusCollection  string
	MilvusConsistency string
	MilvusExactBelow  int
	// MilvusCheckInterval is how often a server checks that its Milvus
	// collection is still there (a Milvus restarted empty loses it).
	MilvusCheckInterval time.Duration

	Embedder string
	EmbedDim int
	// embedderNote says how --embedder auto was resolved (logged at start).
	embedderNote string
	// EmbedStaticModel is the model directory of the static embedder
	// (scripts/embedder.sh install writes it).
	EmbedStaticModel string
	EmbedBaseURL     string
	EmbedModel       string
	EmbedAPIKey      string
	EmbedAzure       bool
	EmbedBatch       int
	EmbedTimeout     time.Duration

	LLMBaseURL   string
	LLMModel     string
	LLMAPIKey    string
	LLMMode      string
	LLMAzure     bool
	LLMTimeout   time.Duration
	LLMPrompt    string
	LLMContext   int
	LLMMaxTokens int
	// Synonyms extends the predicate synonym map: "works_for=works_at,boss_of=manages".
	Synonyms string

	VectorWeight float64
	TextWeight   float64
	RRFK         float64
	// ThreadWeight, SpeakerWeight and GraphWeight weigh the thread, speaker
	// and graph retrievers (0 switches one off); GraphDepth bounds expansion.
	ThreadWeight     float64
	SpeakerWeight    float64
	GraphWeight      float64
	GraphDepth       int
	RetrieverTimeout time.Duration
	// SearchTimeout bounds one search end to end (its retrievers, loading
	// what they found, reranking).
	SearchTimeout time.Duration
	MMRLambda     float64
	// SearchRecipe names the recipe of searches that name none in
	// namespaces whose settings name none (memory.Recipes).
	SearchRecipe string
	// RerankBaseURL, when set, enables the reranker (an OpenAI-style /rerank endpoint).
	RerankBaseURL    string
	RerankAPI        string
	RerankModel      string
	RerankAPIKey     string
	RerankTimeout    time.Duration
	RerankCandidates int

	SweepInterval     time.Duration
	TTLSweepInterval  time.Duration
	ReinforceInterval time.Duration

	MaxBodyBytes   int64
	RequestTimeout time.Duration
	ShutdownGrace  time.Duration
	LogLevel       string
	LogFormat      string

	// GCHeadroomMiB is the heap growth, in MiB, the collector allows past
	// the live heap before it runs again (gc.go); 0: GOGC alone.
	GCHeadroomMiB int

	// envErrs collects malformed KGMEM_* values, reported by validate.
	envErrs []error
	// ignoreEnv binds the flags to their built-in defaults whatever the
	// environment holds: for the configuration reference (configdoc.go).
	ignoreEnv bool
	// bulkImport opens the embedded stores for a process that only writes
	// (server ingest in-process): their WAL checkpoints run beside the
	// writers instead of inside their commits.
	bulkImport bool
	// reembed opens the embedded vector index whatever embedder built it:
	// reindex rebuilds it with the configured one.
	reembed bool
}

// bindFlags registers every config field on fs, defaulting from the environment.
func (c *config) bindFlags(fs *flag.FlagSet) {
	str := func(p *string, name, env, def, usage string) {
		fs.StringVar(p, name, envValue(c, env, def, func(s string) (string, error) { return s, nil }), usage+" ($"+env+")")
	}
	integer := func(p *int, name, env string, def int, usage string) {
		fs.IntVar(p, name, c.envInt(env, def), usage+" ($"+env+")")
	}
	boolean := func(p *bool, name, env string, usage string) {
		fs.BoolVar(p, name, c.envBool(env), usage+" ($"+env+")")
	}
	dur := func(p *time.Duration, name, env string, def time.Duration, usage string) {
		fs.DurationVar(p, name, c.envDuration(env, def), usage+" ($"+env+")")
	}
	str(&c.Addr, "addr", "KGMEM_ADDR", "127.0.0.1:8080", "listen address")
	str(&c.DataDir, "data-dir", "KGMEM_DATA_DIR", "kgmem-data", "directory of the embedded graph store and vector index")
	str(&c.Graph, "graph", "KGMEM_GRAPH", "sqlite", "graph backend: sqlite (embedded) or neo4j")
	str(&c.Neo4jURI, "neo4j-uri", "KGMEM_NEO4J_URI", "bolt://127.0.0.1:7687", "Neo4j Bolt URI")
	str(&c.Neo4jUser, "neo4j-user", "KGMEM_NEO4J_USER", "neo4j", "Neo4j user")
	str(&c.Neo4jPassword, "neo4j-password", "KGMEM_NEO4J_PASSWORD", "", "Neo4j password (empty: auth disabled)")
	str(&c.Neo4jDatabase, "neo4j-database", "KGMEM_NEO4J_DATABASE", "neo4j", "Neo4j database")
	str(&c.Neo4jScope, "neo4j-scope", "KGMEM_NEO4J_SCOPE", "", "keep this deployment's records and API keys apart from others' in a shared Neo4j database (empty: none)")
	str(&c.Vector, "vector", "KGMEM_VECTOR", "hnsw", "vector backend: hnsw (embedded) or milvus")
	str(&c.MilvusAddr, "milvus-addr", "KGMEM_MILVUS_ADDR", "127.0.0.1:19530", "Milvus gRPC address")
	str(&c.MilvusCollection, "milvus-collection", "KGMEM_MILVUS_COLLECTION", "kgmem_vectors", "Milvus collection")
	integer(&c.MilvusExactBelow, "milvus-exact-below", "KGMEM_MILVUS_EXACT_BELOW", milvus.DefaultExactBelow, "rank filters matching at most this many Milvus records in the server process (-1: off; safe only on a Milvus with its interim index off, as scripts/milvus.sh starts it)")
	dur(&c.MilvusCheckInterval, "milvus-check-interval", "KGMEM_MILVUS_CHECK_INTERVAL", milvus.DefaultCheckInterval, "how often the server checks that its Milvus collection still exists; a lost one (Milvus restarted empty) is recreated and rebuilt from the graph")
	str(&c.MilvusConsistency, "milvus-consistency", "KGMEM_MILVUS_CONSISTENCY", "Session", "Milvus read consistency: Session (read-your-writes in this server, ~4 ms), Strong (across servers, one time tick ~200 ms per search), Bounded")
	str(&c.Embedder, "embedder", "KGMEM_EMBEDDER", "auto", "embedder: static (offline, a static embedding model distilled from all-MiniLM-L6-v2 by scripts/embedder.sh install), hash (offline, lexical, no model), openai (any OpenAI-compatible endpoint) or auto: the one that built the data directory's vector index, else static when its model is installed, else hash")
	integer(&c.EmbedDim, "embed-dim", "KGMEM_EMBED_DIM", 256, "embedding dimension (hash and openai; a static model has its own)")
	str(&c.EmbedStaticModel, "embed-static-model", "KGMEM_EMBED_STATIC_MODEL", embed.DefaultStaticDir(), "directory of the static embedder's model")
	str(&c.EmbedBaseURL, "embed-base-url", "KGMEM_EMBED_BASE_URL", "https://api.openai.com/v1", "embeddings endpoint base URL")
	str(&c.EmbedModel, "embed-model", "KGMEM_EMBED_MODEL", "text-embedding-3-small", "embeddings model")
	str(&c.EmbedAPIKey, "embed-api-key", "KGMEM_EMBED_API_KEY", os.Getenv("OPENAI_API_KEY"), "embeddings API key")
	boolean(&c.EmbedAzure, "embed-azure", "KGMEM_EMBED_AZURE", "the embeddings endpoint is Azure OpenAI")
	integer(&c.EmbedBatch, "embed-batch", "KGMEM_EMBED_BATCH", 64, "texts per embeddings request")
	dur(&c.EmbedTimeout, "embed-timeout", "KGMEM_EMBED_TIMEOUT", 30*time.Second, "embeddings request timeout")
	str(&c.LLMBaseURL, "llm-base-url", "KGMEM_LLM_BASE_URL", "", "chat endpoint base URL for extraction (empty: extraction off)")
	str(&c.LLMModel, "llm-model", "KGMEM_LLM_MODEL", "", "chat model for extraction")
	str(&c.LLMAPIKey, "llm-api-key", "KGMEM_LLM_API_KEY", os.Getenv("OPENAI_API_KEY"), "chat API key")
	str(&c.LLMMode, "llm-mode", "KGMEM_LLM_MODE", "auto", "structured output: auto, json_schema, json_object or text")
	boolean(&c.LLMAzure, "llm-azure", "KGMEM_LLM_AZURE", "the chat endpoint is Azure OpenAI")
	dur(&c.LLMTimeout, "llm-timeout", "KGMEM_LLM_TIMEOUT", 60*time.Second, "chat request timeout")
	str(&c.LLMPrompt, "llm-prompt", "KGMEM_LLM_PROMPT", "full", "extraction prompt: full (entities with types and attributes, facts with sentences) or compact (subject, predicate, object and times; for small local models)")
	integer(&c.LLMContext, "llm-context", "KGMEM_LLM_CONTEXT", 0, "the chat model's context window in tokens: extraction splits batches to fit it and caps answers (0: unknown)")
	integer(&c.LLMMaxTokens, "llm-max-tokens", "KGMEM_LLM_MAX_TOKENS", 0, "cap on each completion's tokens (0: the server's default)")
	str(&c.Synonyms, "predicate-synonyms", "KGMEM_PREDICATE_SYNONYMS", "", "extra predicate synonyms, spelling=canonical pairs separated by commas (works_for=works_at)")
	fs.Float64Var(&c.VectorWeight, "vector-weight", c.envFloat("KGMEM_VECTOR_WEIGHT", -1), "weight of vector recall in rank fusion; -1: by embedder, 0.3 with static, 0.01 with the lexical hash, 1 with openai ($KGMEM_VECTOR_WEIGHT)")
	fs.Float64Var(&c.TextWeight, "text-weight", c.envFloat("KGMEM_TEXT_WEIGHT", 1), "weight of BM25 in rank fusion ($KGMEM_TEXT_WEIGHT)")
	d := memory.DefaultSearchOptions()
	fs.Float64Var(&c.RRFK, "rrf-k", c.envFloat("KGMEM_RRF_K", d.RRFK), "k of reciprocal rank fusion ($KGMEM_RRF_K)")
	fs.Float64Var(&c.ThreadWeight, "thread-weight", c.envFloat("KGMEM_THREAD_WEIGHT", d.ThreadWeight), "weight in rank fusion of the episodes next to the best episode hits in their threads; 0: off ($KGMEM_THREAD_WEIGHT)")
	fs.Float64Var(&c.SpeakerWeight, "speaker-weight", c.envFloat("KGMEM_SPEAKER_WEIGHT", d.SpeakerWeight), "weight in rank fusion of episodes said by someone the query names; 0: off ($KGMEM_SPEAKER_WEIGHT)")
	fs.Float64Var(&c.GraphWeight, "graph-weight", c.envFloat("KGMEM_GRAPH_WEIGHT", d.GraphWeight), "weight in rank fusion of graph expansion from the query's entities; 0: off ($KGMEM_GRAPH_WEIGHT)")
	integer(&c.GraphDepth, "graph-depth", "KGMEM_GRAPH_DEPTH", d.GraphDepth, "hops of graph expansion (1..4)")
	str(&c.SearchRecipe, "search-recipe", "KGMEM_SEARCH_RECIPE", memory.RecipeDefault, "search recipe of the searches and namespaces that name none: "+recipeNames())
	str(&c.RerankBaseURL, "rerank-base-url", "KGMEM_RERANK_BASE_URL", "", "rerank endpoint base URL (POST {base}/rerank: Jina, Cohere-compatible, vLLM, TEI); empty: no reranker")
	str(&c.RerankAPI, "rerank-api", "KGMEM_RERANK_API", "rerank", "reranker API: rerank (POST {base}/rerank) or chat (an OpenAI-compatible chat model grades the passages)")
	str(&c.RerankModel, "rerank-model", "KGMEM_RERANK_MODEL", "", "rerank model")
	str(&c.RerankAPIKey, "rerank-api-key", "KGMEM_RERANK_API_KEY", "", "rerank API key")
	dur(&c.RerankTimeout, "rerank-timeout", "KGMEM_RERANK_TIMEOUT", d.RerankTimeout, "reranker deadline; a late or failed reranker leaves the fused order, with a warning")
	integer(&c.RerankCandidates, "rerank-candidates", "KGMEM_RERANK_CANDIDATES", d.RerankCandidates, "facts and episodes each sent to the reranker")
	fs.Float64Var(&c.MMRLambda, "mmr-lambda", c.envFloat("KGMEM_MMR_LAMBDA", d.MMRLambda), "maximal marginal relevance: 1 keeps the fused order, lower trades relevance for diversity (0 < λ ≤ 1) ($KGMEM_MMR_LAMBDA)")
	dur(&c.RetrieverTimeout, "retriever-timeout", "KGMEM_RETRIEVER_TIMEOUT", d.RetrieverTimeout, "deadline of each search retriever; a late one is dropped with a warning")
	dur(&c.SearchTimeout, "search-timeout", "KGMEM_SEARCH_TIMEOUT", d.Timeout, "deadline of one search end to end (at least --retriever-timeout): a retriever still running then is dropped with a warning, and a search that cannot load its results in time fails (504, or 503 when a backend did not answer)")
	dur(&c.SweepInterval, "sweep-interval", "KGMEM_SWEEP_INTERVAL", time.Hour, "how often the forgetting sweep runs over every namespace (0: never)")
	dur(&c.TTLSweepInterval, "ttl-sweep-interval", "KGMEM_TTL_SWEEP_INTERVAL", time.Minute, "how often the items whose TTL ran out are deleted, each sweep given at most this long (0: never; reads hide expired items all the same)")
	dur(&c.ReinforceInterval, "reinforce-interval", "KGMEM_REINFORCE_INTERVAL", 5*time.Second, "how often recalls are applied to decay state")
	fs.Int64Var(&c.MaxBodyBytes, "max-body-bytes", int64(c.envInt("KGMEM_MAX_BODY_BYTES", 8<<20)), "request body limit in bytes ($KGMEM_MAX_BODY_BYTES)")
	dur(&c.RequestTimeout, "request-timeout", "KGMEM_REQUEST_TIMEOUT", 30*time.Second, "per-request deadline")
	integer(&c.GCHeadroomMiB, "gc-headroom-mib", "KGMEM_GC_HEADROOM_MIB", defaultGCHeadroomMiB, "let the heap grow by at least this many MiB past what is live before Go's collector runs again, and by GOGC percent when that is more; trades that much memory for fewer collections under load (0: GOGC alone)")
	dur(&c.ShutdownGrace, "shutdown-grace", "KGMEM_SHUTDOWN_GRACE", 20*time.Second, "time in-flight requests get to finish on SIGINT/SIGTERM")
	str(&c.LogLevel, "log-level", "KGMEM_LOG_LEVEL", "info", "debug, info, warn or error")
	str(&c.LogFormat, "log-format", "KGMEM_LOG_FORMAT", "text", "text or json")
}

// validate rejects unknown choices before anything is opened.
func (c *config) validate() error {
	if err := errors.Join(c.envErrs...); err != nil {
		return err
	}
	checks := []struct {
		name, value string
		allowed     []string
	}{
		{"graph", c.Graph, []string{"sqlite", "neo4j"}},
		{"vector", c.Vector, []string{"hnsw", "milvus"}},
		{"embedder", c.Embedder, []string{"auto", "hash", "static", "openai"}},
		{"llm-mode", c.LLMMode, []string{"auto", "json_schema", "json_object", "text"}},
		{"llm-prompt", c.LLMPrompt, []string{"full", "compact"}},
		{"milvus-consistency", c.MilvusConsistency, []string{"Session", "Strong", "Bounded"}},
		{"log-level", c.LogLevel, []string{"debug", "info", "warn", "error"}},
		{"log-format", c.LogFormat, []string{"text", "json"}},
		{"rerank-api", c.RerankAPI, []string{"rerank", "chat"}},
	}
	for _, ch := range checks {
		if !slices.Contains(ch.allowed, ch.value) {
			return fmt.Errorf("--%s is %q; use one of %s", ch.name, ch.value, strings.Join(ch.allowed, ", "))
		}
	}
	if c.EmbedDim < 8 || c.EmbedDim > 8192 {
		return fmt.Errorf("--embed-dim is %d; use 8..8192", c.EmbedDim)
	}
	if c.Embedder == "auto" {
		var err error
		if c.Embedder, c.embedderNote, err = resolveAutoEmbedder(c.Vector, c.DataDir, c.EmbedStaticModel); err != nil {
			return err
		}
	}
	if c.VectorWeight < 0 {
		switch c.Embedder {
		case "hash":
			// The hash embedder is lexical: it finds what BM25 finds,
			// ranked worse (memory.HashingVectorWeight).
			c.VectorWeight = memory.HashingVectorWeight
		case "static":
			// Token-level semantics: it adds what BM25 misses, but ranks
			// worse than BM25 alone at equal weight.
			c.VectorWeight = embed.StaticVectorWeight
		default:
			c.VectorWeight = 1
		}
	}
	if c.TextWeight < 0 || c.RRFK <= 0 || c.VectorWeight+c.TextWeight == 0 {
		return fmt.Errorf("--vector-weight and --text-weight must be >= 0 and not both 0, --rrf-k > 0")
	}
	if c.ThreadWeight < 0 || c.SpeakerWeight < 0 || c.GraphWeight < 0 || c.GraphDepth < 1 || c.GraphDepth > 4 || c.RetrieverTimeout <= 0 || c.MMRLambda <= 0 || c.MMRLambda > 1 {
		return fmt.Errorf("--thread-weight, --speaker-weight and --graph-weight must be >= 0, --graph-depth within 1..4, --retriever-timeout > 0, --mmr-lambda within (0, 1]")
	}
	if err := memory.ValidRecipe("--search-recipe", c.SearchRecipe); err != nil {
		return err
	}
	if c.SearchTimeout < c.RetrieverTimeout {
		return fmt.Errorf("--search-timeout (%s) must be at least --retriever-timeout (%s)", c.SearchTimeout, c.RetrieverTimeout)
	}
	if c.RerankBaseURL != "" && (c.RerankModel == "" || c.RerankTimeout <= 0 || c.RerankCandidates < 1) {
		return fmt.Errorf("--rerank-base-url needs --rerank-model, --rerank-timeout > 0 and --rerank-candidates >= 1")
	}
	if c.GCHeadroomMiB < 0 || c.GCHeadroomMiB > maxGCHeadroomMiB {
		return fmt.Errorf("--gc-headroom-mib is %d; use 0..%d", c.GCHeadroomMiB, maxGCHeadroomMiB)
	}
	if c.SweepInterval < 0 || c.TTLSweepInterval < 0 || c.ReinforceInterval <= 0 {
		return fmt.Errorf("--sweep-interval and --ttl-sweep-interval must be >= 0 and --reinforce-interval > 0")
	}
	if c.MilvusCheckInterval <= 0 {
		return fmt.Errorf("--milvus-check-interval must be > 0")
	}
	if _, err := c.synonyms(); err != nil {
		return err
	}
	if c.LLMMaxTokens < 0 || c.LLMContext < 0 || (c.LLMContext > 0 && (c.LLMContext < triples.MinContextSize || c.LLMMaxTokens >= c.LLMContext)) {
		return fmt.Errorf("--llm-context must be 0 or at least %d, --llm-max-tokens >= 0 and below --llm-context", triples.MinContextSize)
	}
	if (c.LLMBaseURL == "") != (c.LLMModel == "") {
		return fmt.Errorf("set both --llm-base-url and --llm-model to enable extraction, or neither")
	}
	return nil
}

// logValue lists the effective configuration for the start-up log, secrets masked.
func (c *config) logValue() []any {
	return []any{
		"addr", c.Addr, "data_dir", c.DataDir, "graph", c.Graph, "neo4j_uri", c.Neo4jURI, "neo4j_password", mask(c.Neo4jPassword),
		"vector", c.Vector, "milvus_addr", c.MilvusAddr, "embedder", c.Embedder, "embedder_choice", c.embedderNote, "embed_dim", c.EmbedDim, "embed_static_model", c.EmbedStaticModel,
		"embed_base_url", c.EmbedBaseURL, "embed_model", c.EmbedModel, "embed_api_key", mask(c.EmbedAPIKey),
		"llm_base_url", c.LLMBaseURL, "llm_model", c.LLMModel, "llm_api_key", mask(c.LLMAPIKey), "llm_mode", c.LLMMode,
		"vector_weight", c.VectorWeight, "text_weight", c.TextWeight, "rrf_k", c.RRFK,
		"thread_weight", c.ThreadWeight, "speaker_weight", c.SpeakerWeight, "graph_weight", c.GraphWeight, "graph_depth", c.GraphDepth,
		"rerank_base_url", c.RerankBaseURL, "rerank_api", c.RerankAPI, "rerank_model", c.RerankModel, "rerank_api_key", mask(c.RerankAPIKey),
		"max_body_bytes", c.MaxBodyBytes, "request_timeout", c.RequestTimeout, "gc_headroom_mib", c.GCHeadroomMiB,
	}
}

func (c *config) logger() *slog.Logger {
	var level slog.Level
	_ = level.UnmarshalText([]byte(c.LogLevel)) // validated
	opts := &slog.HandlerOptions{Level: level}
	if c.LogFormat == "json" {
		return slog.New(slog.NewJSONHandler(os.Stderr, opts))
	}
	return slog.New(slog.NewTextHandler(os.Stderr, opts))
}

func mask(secret string) string {
	if secret == "" {
		return ""
	}
	return "***"
}

// envValue parses $name with parse, falling back to def when unset and
// recording an error when malformed.
func envValue[T any](c *config, name string, def T, parse func(string) (T, error)) T {
	if c.ignoreEnv {
		return def
	}
	raw, ok := os.LookupEnv(name)
	if !ok || raw == "" {
		return def
	}
	v, err := parse(raw)
	if err != nil {
		c.envErrs = append(c.envErrs, fmt.Errorf("$%s is %q: %w", name, raw, err))
		return def
	}
	return v
}

func (c *config) envInt(name string, def int) int { return envValue(c, name, def, strconv.Atoi) }

func (c *config) envFloat(name string, def float64) float64 {
	return envValue(c, name, def, func(s string) (float64, error) { return strconv.ParseFloat(s, 64) })
}

func (c *config) envBool(name string) bool { return envValue(c, name, false, strconv.ParseBool) }

func (c *config) envDuration(name string, def time.Duration) time.Duration {
	return envValue(c, name, def, time.ParseDuration)
}

// synonyms parses --predicate-synonyms into a spelling → canonical map; the
// triples package snake-cases both sides. A side with no letters is an error.
func (c *config) synonyms() (map[string]string, error) {
	out := map[string]string{}
	if strings.TrimSpace(c.Synonyms) == "" {
		return out, nil
	}
	for _, pair := range strings.Split(c.Synonyms, ",") {
		spelling, canonical, ok := strings.Cut(pair, "=")
		if !ok {
			return nil, fmt.Errorf("--predicate-synonyms: %q is not spelling=canonical", strings.TrimSpace(pair))
		}
		_, err1 := triples.NormalizePredicate(spelling)
		_, err2 := triples.NormalizePredicate(canonical)
		if err := errors.Join(err1, err2); err != nil {
			return nil, fmt.Errorf("--predicate-synonyms: %q: %w", strings.TrimSpace(pair), err)
		}
		out[strings.TrimSpace(spelling)] = strings.TrimSpace(canonical)
	}
	return out, nil
}

// neo4jConfig is the Neo4j connection cfg names.
func (c *config) neo4jConfig() neo4j.Config {
	return neo4j.Config{URI: c.Neo4jURI, Username: c.Neo4jUser, Password: c.Neo4jPassword, Database: c.Neo4jDatabase, Scope: c.Neo4jScope}
}

// recipeNames lists the search recipes, for --search-recipe's help.
func recipeNames() string {
	names := make([]string, 0, len(memory.Recipes()))
	for _, r := range memory.Recipes() {
		names = append(names, r.Name)
	}
	return strings.Join(names, ", ")
}
