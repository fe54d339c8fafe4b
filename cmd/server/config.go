package main

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/auth"
	"github.com/kgmem/kgmem/embed"
	"github.com/kgmem/kgmem/graph/neo4j"
	"github.com/kgmem/kgmem/jobs"
	"github.com/kgmem/kgmem/memory"
	"github.com/kgmem/kgmem/triples"
	"github.com/kgmem/kgmem/vector/milvus"
)

// config is the effective configuration of a command: every field is a row
// of the configuration table (settings), a flag and a KGMEM_* environment
// variable (the flag wins).
type config struct {
	Addr    string
	DataDir string
	// UI and MCP serve the web explorer and MCP over HTTP beside the API;
	// PprofAddr, when set, serves Go's profiler on loopback.
	UI, MCP   bool
	PprofAddr string

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

	// Security holds the authentication, rate-limit and connection
	// settings of serve; Jobs the background ingestion settings.
	Security securityConfig
	Jobs     jobsConfig

	// URL and APIKey name a running server a client command talks to;
	// MCPNamespace is the namespace of every tool of `server mcp`.
	URL, APIKey  string
	MCPNamespace string

	// ConfigFile names a file of KGMEM_* variables the environment and
	// the flags override (configfile.go).
	ConfigFile string

	// on are the commands whose settings bind read from the environment
	// and validate checks.
	on commands
	// given holds the variables of the settings read from the
	// environment or the configuration file.
	given map[string]bool
	// envErrs collects malformed KGMEM_* values, reported by validate.
	envErrs []error
	// bulkImport opens the embedded stores for a process that only writes
	// (server ingest in-process): their WAL checkpoints run beside the
	// writers instead of inside their commits.
	bulkImport bool
	// reembed opens the embedded vector index whatever embedder built it:
	// reindex rebuilds it with the configured one.
	reembed bool
}

// settings is the configuration table: every setting of every command, in
// the order of help and the reference, bound to c's fields. Adding a
// setting is adding a row.
func (c *config) settings() []setting {
	d := memory.DefaultSearchOptions()
	return []setting{
		// Configuration file
		{Flag: "config-file", Component: compConfigFile, On: everyCommand, Value: val(&c.ConfigFile, ""),
			Usage: "read settings from this file of KGMEM_*=value lines, as in an env file; the environment and the flags win over it"},

		// Server
		{Flag: "addr", Component: compServer, On: cmdServe, Value: val(&c.Addr, "127.0.0.1:8080"), Usage: "listen address"},
		{Flag: "ui", Component: compServer, On: cmdServe, Value: val(&c.UI, true), Usage: "serve the web explorer at /ui"},
		{Flag: "mcp", Component: compServer, On: cmdServe, Value: val(&c.MCP, true), Usage: "serve MCP (streamable HTTP) at /mcp, behind the API keys"},
		{Flag: "shutdown-grace", Component: compServer, On: cmdServe, Value: val(&c.ShutdownGrace, 20*time.Second), Rule: atLeast(time.Duration(0)), Usage: "time in-flight requests get to finish on SIGINT/SIGTERM"},

		// Graph storage
		{Flag: "data-dir", Component: compStorage, On: everyCommand, Value: val(&c.DataDir, "kgmem-data"), Usage: "directory of the embedded graph store and vector index"},
		{Flag: "graph", Component: compStorage, On: everyCommand, Value: val(&c.Graph, "sqlite"), Rule: oneOf{"sqlite", "neo4j"}, Usage: "graph backend: sqlite (embedded) or neo4j"},
		{Flag: "neo4j-uri", Component: compStorage, On: everyCommand, Value: val(&c.Neo4jURI, "bolt://127.0.0.1:7687"), Usage: "Neo4j Bolt URI"},
		{Flag: "neo4j-user", Component: compStorage, On: everyCommand, Value: val(&c.Neo4jUser, "neo4j"), Usage: "Neo4j user"},
		{Flag: "neo4j-password", Component: compStorage, On: everyCommand, Value: val(&c.Neo4jPassword, ""), Secret: true, Usage: "Neo4j password (empty: auth disabled)"},
		{Flag: "neo4j-database", Component: compStorage, On: everyCommand, Value: val(&c.Neo4jDatabase, "neo4j"), Usage: "Neo4j database"},
		{Flag: "neo4j-scope", Component: compStorage, On: everyCommand, Value: val(&c.Neo4jScope, ""), Usage: "keep this deployment's records and API keys apart from others' in a shared Neo4j database (empty: none)"},

		// Vector index
		{Flag: "vector", Component: compVector, On: engineCommands, Value: val(&c.Vector, "hnsw"), Rule: oneOf{"hnsw", "milvus"}, Usage: "vector backend: hnsw (embedded) or milvus"},
		{Flag: "milvus-addr", Component: compVector, On: engineCommands, Value: val(&c.MilvusAddr, "127.0.0.1:19530"), Usage: "Milvus gRPC address"},
		{Flag: "milvus-collection", Component: compVector, On: engineCommands, Value: val(&c.MilvusCollection, "kgmem_vectors"), Usage: "Milvus collection"},
		{Flag: "milvus-exact-below", Component: compVector, On: engineCommands, Value: val(&c.MilvusExactBelow, milvus.DefaultExactBelow), Rule: atLeast(0), Negative: "off",
			Usage: "rank filters matching at most this many Milvus records in the server process (safe only on a Milvus with its interim index off, as scripts/milvus.sh starts it)"},
		{Flag: "milvus-check-interval", Component: compVector, On: engineCommands, Value: val(&c.MilvusCheckInterval, milvus.DefaultCheckInterval), Rule: above(time.Duration(0)),
			Usage: "how often the server checks that its Milvus collection still exists; a lost one (Milvus restarted empty) is recreated and rebuilt from the graph"},
		{Flag: "milvus-consistency", Component: compVector, On: engineCommands, Value: val(&c.MilvusConsistency, "Session"), Rule: oneOf{"Session", "Strong", "Bounded"},
			Usage: "Milvus read consistency: Session (read-your-writes in this server, no time-tick wait), Strong (across servers, one time tick, about 200 ms, per search), Bounded"},

		// Embedder
		{Flag: "embedder", Component: compEmbedder, On: engineCommands, Value: val(&c.Embedder, "auto"), Rule: oneOf{"auto", "hash", "static", "openai"},
			Usage: "embedder: static (offline, a static embedding model distilled from all-MiniLM-L6-v2 by scripts/embedder.sh install), hash (offline, lexical, no model), openai (any OpenAI-compatible endpoint) or auto: the one that built the data directory's vector index, else static when its model is installed, else hash"},
		{Flag: "embed-dim", Component: compEmbedder, On: engineCommands, Value: val(&c.EmbedDim, 256), Rule: within(8, 8192), Usage: "embedding dimension (hash and openai; a static model has its own)"},
		{Flag: "embed-static-model", Component: compEmbedder, On: engineCommands, Value: val(&c.EmbedStaticModel, embed.DefaultStaticDir()), Usage: "directory of the static embedder's model"},
		{Flag: "embed-base-url", Component: compEmbedder, On: engineCommands, Value: val(&c.EmbedBaseURL, "https://api.openai.com/v1"), Usage: "embeddings endpoint base URL"},
		{Flag: "embed-model", Component: compEmbedder, On: engineCommands, Value: val(&c.EmbedModel, "text-embedding-3-small"), Usage: "embeddings model"},
		{Flag: "embed-api-key", Fallback: "OPENAI_API_KEY", Component: compEmbedder, On: engineCommands, Value: val(&c.EmbedAPIKey, ""), Secret: true, Usage: "embeddings API key"},
		{Flag: "embed-azure", Component: compEmbedder, On: engineCommands, Value: val(&c.EmbedAzure, false), Usage: "the embeddings endpoint is Azure OpenAI"},
		{Flag: "embed-batch", Component: compEmbedder, On: engineCommands, Value: val(&c.EmbedBatch, 64), Usage: "texts per embeddings request"},
		{Flag: "embed-timeout", Component: compEmbedder, On: engineCommands, Value: val(&c.EmbedTimeout, 30*time.Second), Usage: "embeddings request timeout"},

		// LLM extraction
		{Flag: "llm-base-url", Component: compExtraction, On: engineCommands, Value: val(&c.LLMBaseURL, ""), Usage: "chat endpoint base URL for extraction (empty: extraction off)"},
		{Flag: "llm-model", Component: compExtraction, On: engineCommands, Value: val(&c.LLMModel, ""), Usage: "chat model for extraction"},
		{Flag: "llm-api-key", Fallback: "OPENAI_API_KEY", Component: compExtraction, On: engineCommands, Value: val(&c.LLMAPIKey, ""), Secret: true, Usage: "chat API key"},
		{Flag: "llm-mode", Component: compExtraction, On: engineCommands, Value: val(&c.LLMMode, "auto"), Rule: oneOf{"auto", "json_schema", "json_object", "text"}, Usage: "structured output"},
		{Flag: "llm-azure", Component: compExtraction, On: engineCommands, Value: val(&c.LLMAzure, false), Usage: "the chat endpoint is Azure OpenAI"},
		{Flag: "llm-timeout", Component: compExtraction, On: engineCommands, Value: val(&c.LLMTimeout, 60*time.Second), Usage: "chat request timeout"},
		{Flag: "llm-prompt", Component: compExtraction, On: engineCommands, Value: val(&c.LLMPrompt, "full"), Rule: oneOf{"full", "compact"},
			Usage: "extraction prompt: full (entities with types and attributes, facts with sentences) or compact (subject, predicate, object and times; for small local models)"},
		{Flag: "llm-context", Component: compExtraction, On: engineCommands, Value: val(&c.LLMContext, 0), Rule: atLeast(triples.MinContextSize), Zero: "unknown",
			Usage: "the chat model's context window in tokens: extraction splits batches to fit it and caps answers"},
		{Flag: "llm-max-tokens", Component: compExtraction, On: engineCommands, Value: val(&c.LLMMaxTokens, 0), Rule: atLeast(0), Zero: "the server's default",
			Usage: "cap on each completion's tokens, below --llm-context"},
		{Flag: "predicate-synonyms", Component: compExtraction, On: engineCommands, Value: val(&c.Synonyms, ""),
			Rule:  checkedBy[string]{fn: func(string) error { _, err := c.synonyms(); return err }, desc: "spelling=canonical,…"},
			Usage: "extra predicate synonyms, spelling=canonical pairs separated by commas (works_for=works_at)"},

		// Search
		{Flag: "vector-weight", Component: compSearch, On: engineCommands, Value: val(&c.VectorWeight, -1.0), Rule: atLeast(0.0),
			Negative: "by embedder, 0.3 with static, 0.01 with the lexical hash, 1 with openai", Usage: "weight of vector recall in rank fusion"},
		{Flag: "text-weight", Component: compSearch, On: engineCommands, Value: val(&c.TextWeight, 1.0), Rule: atLeast(0.0), Usage: "weight of BM25 in rank fusion"},
		{Flag: "rrf-k", Component: compSearch, On: engineCommands, Value: val(&c.RRFK, d.RRFK), Rule: above(0.0), Usage: "k of reciprocal rank fusion"},
		{Flag: "thread-weight", Component: compSearch, On: engineCommands, Value: val(&c.ThreadWeight, d.ThreadWeight), Rule: atLeast(0.0), Zero: "off",
			Usage: "weight in rank fusion of the episodes next to the best episode hits in their threads"},
		{Flag: "speaker-weight", Component: compSearch, On: engineCommands, Value: val(&c.SpeakerWeight, d.SpeakerWeight), Rule: atLeast(0.0), Zero: "off",
			Usage: "weight in rank fusion of episodes said by someone the query names"},
		{Flag: "graph-weight", Component: compSearch, On: engineCommands, Value: val(&c.GraphWeight, d.GraphWeight), Rule: atLeast(0.0), Zero: "off",
			Usage: "weight in rank fusion of graph expansion from the query's entities"},
		{Flag: "graph-depth", Component: compSearch, On: engineCommands, Value: val(&c.GraphDepth, d.GraphDepth), Rule: within(1, 4), Usage: "hops of graph expansion"},
		{Flag: "search-recipe", Component: compSearch, On: engineCommands, Value: val(&c.SearchRecipe, memory.RecipeDefault),
			Rule:  checkedBy[string]{fn: func(v string) error { return memory.ValidRecipe("--search-recipe", v) }, desc: "one of " + recipeNames()},
			Usage: "search recipe of the searches and namespaces that name none"},
		{Flag: "mmr-lambda", Component: compSearch, On: engineCommands, Value: val(&c.MMRLambda, d.MMRLambda), Rule: aboveUpTo(0.0, 1.0),
			Usage: "maximal marginal relevance: 1 keeps the fused order, lower trades relevance for diversity"},
		{Flag: "retriever-timeout", Component: compSearch, On: engineCommands, Value: val(&c.RetrieverTimeout, d.RetrieverTimeout), Rule: above(time.Duration(0)),
			Usage: "deadline of each search retriever; a late one is dropped with a warning"},
		{Flag: "search-timeout", Component: compSearch, On: engineCommands, Value: val(&c.SearchTimeout, d.Timeout),
			Usage: "deadline of one search end to end (at least --retriever-timeout): a retriever still running then is dropped with a warning, and a search that cannot load its results in time fails (504, or 503 when a backend did not answer)"},

		// Reranker
		{Flag: "rerank-base-url", Component: compRerank, On: engineCommands, Value: val(&c.RerankBaseURL, ""),
			Usage: "rerank endpoint base URL (POST {base}/rerank: Jina, Cohere-compatible, vLLM, TEI); empty: no reranker"},
		{Flag: "rerank-api", Component: compRerank, On: engineCommands, Value: val(&c.RerankAPI, "rerank"), Rule: oneOf{"rerank", "chat"},
			Usage: "reranker API: rerank (POST {base}/rerank) or chat (an OpenAI-compatible chat model grades the passages)"},
		{Flag: "rerank-model", Component: compRerank, On: engineCommands, Value: val(&c.RerankModel, ""), Usage: "rerank model"},
		{Flag: "rerank-api-key", Component: compRerank, On: engineCommands, Value: val(&c.RerankAPIKey, ""), Secret: true, Usage: "rerank API key"},
		{Flag: "rerank-timeout", Component: compRerank, On: engineCommands, Value: val(&c.RerankTimeout, d.RerankTimeout),
			Usage: "reranker deadline; a late or failed reranker leaves the fused order, with a warning"},
		{Flag: "rerank-candidates", Component: compRerank, On: engineCommands, Value: val(&c.RerankCandidates, d.RerankCandidates), Usage: "facts and episodes each sent to the reranker"},

		// Forgetting
		{Flag: "sweep-interval", Component: compForgetting, On: engineCommands, Value: val(&c.SweepInterval, time.Hour), Rule: atLeast(time.Duration(0)), Zero: "never",
			Usage: "how often the forgetting sweep runs over every namespace"},
		{Flag: "ttl-sweep-interval", Component: compForgetting, On: cmdServe, Value: val(&c.TTLSweepInterval, time.Minute), Rule: atLeast(time.Duration(0)), Zero: "never",
			Usage: "how often the items whose TTL ran out are deleted, each sweep given at most this long (reads hide expired items all the same)"},
		{Flag: "reinforce-interval", Component: compForgetting, On: engineCommands, Value: val(&c.ReinforceInterval, 5*time.Second), Rule: above(time.Duration(0)),
			Usage: "how often recalls are applied to decay state"},

		// Background jobs
		{Flag: "job-workers", Component: compJobs, On: jobCommands, Value: val(&c.Jobs.Workers, 4), Rule: atLeast(1), Usage: "background ingest jobs run at once"},
		{Flag: "debounce", Component: compJobs, On: jobCommands, Value: val(&c.Jobs.Debounce, 2*time.Second), Rule: atLeast(time.Duration(0)), Zero: "no wait",
			Usage: "async messages of one thread arriving within this window are coalesced into one extraction"},
		{Flag: "job-lease", Component: compJobs, On: jobCommands, Value: val(&c.Jobs.Lease, jobs.DefaultLease), Rule: atLeast(300 * time.Millisecond),
			Usage: "a background job whose server stops renewing it for this long is taken over by another server on the same Neo4j"},

		// Authentication
		{Env: adminKeyVar, Component: compAuth, On: cmdServe, Value: val(&c.Security.AdminKey, ""), Secret: true,
			Rule:  checkedBy[string]{fn: checkAdminKey, desc: fmt.Sprintf("at least %d characters", auth.MinAdminKeyLen)},
			Usage: "the admin key, which may do anything; read from the environment only, so that it does not show in the process list"},
		{Flag: "allowed-hosts", Component: compAuth, On: cmdServe, Value: val(&c.Security.AllowedHosts, nil),
			Rule:  checkedBy[[]string]{fn: checkAllowedHosts, desc: "host names"},
			Usage: "comma-separated host names a server without API keys answers to in the Host header, besides localhost, 127.0.0.0/8 and [::1] (a name you point at this machine); others get 403"},
		{Flag: "allowed-origins", Component: compAuth, On: cmdServe, Value: val(&c.Security.AllowedOrigins, nil),
			Rule:  checkedBy[[]string]{fn: checkAllowedOrigins, desc: "scheme://host[:port], …"},
			Usage: "comma-separated browser origins (scheme://host[:port]) trusted to send POST, PUT and DELETE from another origin; other cross-origin browser requests get 403"},

		// Limits and timeouts
		{Flag: "rate-limit", Component: compLimits, On: cmdServe, Value: val(&c.Security.RateLimit, 20.0), Rule: atLeast(0.0), Zero: "unlimited",
			Usage: "requests per second each API key may make (the admin key and an open loopback server are never limited)"},
		{Flag: "rate-burst", Component: compLimits, On: cmdServe, Value: val(&c.Security.RateBurst, 40), Rule: atLeast(0), Usage: "requests an API key may make at once above its rate"},
		{Flag: "max-body-bytes", Component: compLimits, On: jobCommands, Value: val(&c.MaxBodyBytes, int64(8<<20)), Usage: "request body limit in bytes"},
		{Flag: "request-timeout", Component: compLimits, On: jobCommands, Value: val(&c.RequestTimeout, 30*time.Second), Usage: "per-request deadline"},
		{Flag: "read-timeout", Component: compLimits, On: cmdServe, Value: val(&c.Security.ReadTimeout, 60*time.Second), Rule: atLeast(time.Duration(0)),
			Usage: "deadline for reading a whole request, body included"},
		{Flag: "read-header-timeout", Component: compLimits, On: cmdServe, Value: val(&c.Security.ReadHeaderTimeout, 10*time.Second), Rule: atLeast(time.Duration(0)),
			Usage: "deadline for reading request headers"},
		{Flag: "write-timeout", Component: compLimits, On: cmdServe, Value: val(&c.Security.WriteTimeout, 0), Rule: atLeast(time.Duration(0)), Zero: "--request-timeout + 10s",
			Usage: "deadline for writing a response"},
		{Flag: "idle-timeout", Component: compLimits, On: cmdServe, Value: val(&c.Security.IdleTimeout, 120*time.Second), Rule: atLeast(time.Duration(0)),
			Usage: "how long an idle keep-alive connection stays open"},

		// Client of a running server
		{Flag: "url", Component: compClient, On: cmdMCP, Value: val(&c.URL, ""), Usage: "bridge to the kgmem server at this URL instead of opening the backends in process"},
		{Flag: "api-key", Component: compClient, On: cmdMCP | cmdIngest, Value: val(&c.APIKey, ""), Secret: true, Usage: "API key for --url, sent as a bearer token"},
		{Flag: "namespace", Env: "KGMEM_MCP_NAMESPACE", Component: compClient, On: cmdMCP, Value: val(&c.MCPNamespace, ""),
			Rule:  checkedBy[string]{fn: checkNamespace, desc: "a namespace"},
			Usage: "the namespace every tool works in; empty: each call names one"},

		// Logging and runtime
		{Flag: "log-level", Component: compRuntime, On: engineCommands, Value: val(&c.LogLevel, "info"), Rule: oneOf{"debug", "info", "warn", "error"}, Usage: "log level"},
		{Flag: "log-format", Component: compRuntime, On: engineCommands, Value: val(&c.LogFormat, "text"), Rule: oneOf{"text", "json"}, Usage: "log format"},
		{Flag: "gc-headroom-mib", Component: compRuntime, On: engineCommands, Value: val(&c.GCHeadroomMiB, defaultGCHeadroomMiB), Rule: within(0, maxGCHeadroomMiB), Zero: "GOGC alone",
			Usage: "let the heap grow by at least this many MiB past what is live before Go's collector runs again, and by GOGC percent when that is more; trades that much memory for fewer collections under load"},
		{Flag: "pprof-addr", Component: compRuntime, On: cmdServe, Value: val(&c.PprofAddr, ""),
			Rule:  checkedBy[string]{fn: checkPprofAddr, desc: "a loopback host:port"},
			Usage: "serve Go's profiler (net/http/pprof) on this loopback address, e.g. 127.0.0.1:6060; empty: off"},
	}
}

// bind resets c to the defaults, then reads the environment of the
// settings on the commands in on; malformed values are reported by
// validate.
func (c *config) bind(on commands) []setting {
	rows := c.settings()
	c.on = on
	c.read(rows, func(*setting) bool { return false }, configSource{})
	return rows
}

// read sets the settings the command uses, but those keep says to keep,
// from their defaults and src, noting which src held and recording
// malformed values for validate.
func (c *config) read(rows []setting, keep func(*setting) bool, src configSource) {
	c.envErrs, c.given = nil, map[string]bool{}
	for i := range rows {
		s := &rows[i]
		if keep(s) {
			continue
		}
		s.Value.reset()
		if s.On&c.on == 0 {
			continue
		}
		found, err := s.from(src.lookup)
		if err != nil {
			c.envErrs = append(c.envErrs, err)
		}
		c.given[s.envName()] = found
	}
}

// validate rejects malformed variables and values against the rules of the
// settings the command uses, then checks the settings that depend on one
// another; it resolves --embedder auto and a negative --vector-weight.
func (c *config) validate() error {
	if err := c.validateSettings(); err != nil {
		return err
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
	if c.VectorWeight+c.TextWeight == 0 {
		return fmt.Errorf("--vector-weight and --text-weight are both 0; give one a weight")
	}
	if c.SearchTimeout < c.RetrieverTimeout {
		return fmt.Errorf("--search-timeout (%s) must be at least --retriever-timeout (%s)", c.SearchTimeout, c.RetrieverTimeout)
	}
	if c.RerankBaseURL != "" && (c.RerankModel == "" || c.RerankTimeout <= 0 || c.RerankCandidates < 1) {
		return fmt.Errorf("--rerank-base-url needs --rerank-model, --rerank-timeout > 0 and --rerank-candidates >= 1")
	}
	if c.LLMContext > 0 && c.LLMMaxTokens >= c.LLMContext {
		return fmt.Errorf("--llm-max-tokens (%d) must be below --llm-context (%d)", c.LLMMaxTokens, c.LLMContext)
	}
	if (c.LLMBaseURL == "") != (c.LLMModel == "") {
		return fmt.Errorf("set both --llm-base-url and --llm-model to enable extraction, or neither")
	}
	return nil
}

// validateSettings reports malformed variables and values that break their
// setting's rule, of the settings the command uses.
func (c *config) validateSettings() error {
	if err := errors.Join(c.envErrs...); err != nil {
		return err
	}
	for _, s := range c.settings() {
		if s.On&c.on == 0 {
			continue
		}
		if err := s.check(); err != nil {
			return err
		}
	}
	return nil
}

// logValue lists the effective configuration for the start-up log: every
// setting the command uses, by its flag in snake case, secrets masked, and
// how --embedder auto was resolved.
func (c *config) logValue() []any {
	var out []any
	for _, s := range c.settings() {
		if s.On&c.on == 0 {
			continue
		}
		key := strings.ToLower(strings.TrimPrefix(s.envName(), "KGMEM_"))
		if s.Flag != "" {
			key = strings.ReplaceAll(s.Flag, "-", "_")
		}
		v := s.Value.String()
		if s.Secret {
			v = mask(v)
		}
		out = append(out, key, v)
		if s.Flag == "embedder" {
			out = append(out, "embedder_choice", c.embedderNote)
		}
	}
	return out
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

// checkNamespace accepts an empty namespace (none) or a valid one.
func checkNamespace(ns string) error {
	if ns == "" {
		return nil
	}
	if _, err := kgmem.ParseNamespace(ns); err != nil {
		return fmt.Errorf("--namespace: %w", err)
	}
	return nil
}
