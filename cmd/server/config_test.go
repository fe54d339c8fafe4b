package main

import (
	"bytes"
	"context"
	"errors"
	"github.com/kgmem/kgmem/memory"
	"io"
	"log/slog"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"github.com/kgmem/kgmem/embed"
	"github.com/kgmem/kgmem/internal/gcheadroom"
	"github.com/kgmem/kgmem/triples"
)

func parse(t *testing.T, args ...string) (*config, error) {
	t.Helper()
	return parseConfig(cmdServe, args...)
}

func TestConfigDefaults(t *testing.T) {
	for _, name := range []string{"KGMEM_ADDR", "KGMEM_GRAPH", "KGMEM_VECTOR", "KGMEM_EMBEDDER", "KGMEM_VECTOR_WEIGHT", "KGMEM_LLM_BASE_URL", "KGMEM_LLM_MODEL"} {
		t.Setenv(name, "")
	}
	cfg, err := parse(t)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Addr != "127.0.0.1:8080" || cfg.Graph != "sqlite" || cfg.Vector != "hnsw" || cfg.Embedder != "hash" || cfg.VectorWeight != 0.01 || cfg.ThreadWeight != 1 || cfg.GraphDepth != 2 ||
		cfg.MilvusExactBelow != 2048 || cfg.SearchTimeout != 5*time.Second || cfg.RetrieverTimeout != 2*time.Second || cfg.GCHeadroomMiB != defaultGCHeadroomMiB {
		t.Errorf("defaults %+v", cfg)
	}
	if cfg, _ := parse(t, "--embedder", "openai"); cfg.VectorWeight != 1 {
		t.Errorf("a real embedder gets vector weight %v, want 1", cfg.VectorWeight)
	}
	// In-process benchmarks (bench longmemeval, locomo-cv) start from
	// memory.HashingSearchOptions to measure what this server does.
	got, want := cfg.searchOptions(), memory.HashingSearchOptions()
	if got.VectorWeight != want.VectorWeight || got.TextWeight != want.TextWeight || got.RRFK != want.RRFK ||
		got.ThreadWeight != want.ThreadWeight || got.SpeakerWeight != want.SpeakerWeight || got.GraphWeight != want.GraphWeight ||
		got.GraphDepth != want.GraphDepth || got.MMRLambda != want.MMRLambda || got.Timeout != want.Timeout || got.RetrieverTimeout != want.RetrieverTimeout ||
		got.RerankTimeout != want.RerankTimeout || got.RerankCandidates != want.RerankCandidates {
		t.Errorf("the server's default search options %+v differ from memory.HashingSearchOptions %+v", got, want)
	}
}

func TestConfigFromEnvironmentAndFlags(t *testing.T) {
	t.Setenv("KGMEM_ADDR", "127.0.0.1:9999")
	t.Setenv("KGMEM_EMBED_DIM", "512")
	t.Setenv("KGMEM_MILVUS_EXACT_BELOW", "-1")
	cfg, err := parse(t, "--graph", "neo4j")
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Addr != "127.0.0.1:9999" || cfg.EmbedDim != 512 || cfg.Graph != "neo4j" || cfg.MilvusExactBelow != -1 {
		t.Errorf("config %+v", cfg)
	}
	t.Setenv("KGMEM_SEARCH_TIMEOUT", "30s")
	if cfg, _ := parse(t); cfg.SearchTimeout != 30*time.Second {
		t.Errorf("KGMEM_SEARCH_TIMEOUT=30s gave search timeout %s", cfg.SearchTimeout)
	}
	t.Setenv("KGMEM_SEARCH_RECIPE", "facts")
	if cfg, _ := parse(t); cfg.SearchRecipe != "facts" {
		t.Errorf("KGMEM_SEARCH_RECIPE=facts gave recipe %q", cfg.SearchRecipe)
	}
	if cfg, _ := parse(t, "--addr", "127.0.0.1:7000"); cfg.Addr != "127.0.0.1:7000" {
		t.Errorf("the flag did not win over the environment: %s", cfg.Addr)
	}
}

func TestConfigRejects(t *testing.T) {
	cases := []struct {
		name string
		env  map[string]string
		args []string
		want string
	}{
		{"unknown graph", nil, []string{"--graph", "mysql"}, "--graph"},
		{"unknown vector", nil, []string{"--vector", "faiss"}, "--vector"},
		{"unknown embedder", nil, []string{"--embedder", "bert"}, "--embedder"},
		{"tiny dimension", nil, []string{"--embed-dim", "2"}, "--embed-dim"},
		{"half an LLM", nil, []string{"--llm-base-url", "http://x/v1"}, "--llm-model"},
		{"unknown prompt style", nil, []string{"--llm-prompt", "tiny"}, "--llm-prompt"},
		{"context too small", nil, []string{"--llm-context", "100"}, "--llm-context"},
		{"answer cap fills the context", nil, []string{"--llm-context", "2048", "--llm-max-tokens", "4096"}, "--llm-max-tokens"},
		{"malformed env int", map[string]string{"KGMEM_EMBED_DIM": "lots"}, nil, "KGMEM_EMBED_DIM"},
		{"malformed env duration", map[string]string{"KGMEM_REQUEST_TIMEOUT": "soon"}, nil, "KGMEM_REQUEST_TIMEOUT"},
		{"negative weight", nil, []string{"--text-weight", "-1"}, "--text-weight"},
		{"bad log level", nil, []string{"--log-level", "loud"}, "--log-level"},
		{"search shorter than a retriever", nil, []string{"--search-timeout", "1s"}, "--search-timeout"},
		{"search timeout from env below the retriever's", map[string]string{"KGMEM_SEARCH_TIMEOUT": "3s", "KGMEM_RETRIEVER_TIMEOUT": "4s"}, nil, "--retriever-timeout"},
		{"negative GC headroom", nil, []string{"--gc-headroom-mib", "-1"}, "--gc-headroom-mib"},
		{"GC headroom beyond a TiB", map[string]string{"KGMEM_GC_HEADROOM_MIB": "2000000"}, nil, "--gc-headroom-mib"},
		{"synonym without =", nil, []string{"--predicate-synonyms", "works_for"}, "--predicate-synonyms"},
		{"synonym of punctuation", nil, []string{"--predicate-synonyms", "works_for=!!!"}, "--predicate-synonyms"},
		{"unknown search recipe", nil, []string{"--search-recipe", "fastest"}, "--search-recipe"},
		{"unknown search recipe from env", map[string]string{"KGMEM_SEARCH_RECIPE": "fastest"}, nil, "--search-recipe"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			for k, v := range tc.env {
				t.Setenv(k, v)
			}
			_, err := parse(t, tc.args...)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one naming %s", err, tc.want)
			}
		})
	}
}

func TestMaskedConfigLog(t *testing.T) {
	cfg, err := parse(t, "--llm-api-key", "sk-secret", "--neo4j-password", "hunter2")
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, v := range cfg.logValue() {
		if s, ok := v.(string); ok {
			b.WriteString(s + " ")
		}
	}
	if strings.Contains(b.String(), "sk-secret") || strings.Contains(b.String(), "hunter2") {
		t.Errorf("secrets in the start-up log: %s", b.String())
	}
}

func TestRunDispatch(t *testing.T) {
	var out bytes.Buffer
	if err := run(context.Background(), []string{"version"}, &out, io.Discard); err != nil || !strings.HasPrefix(out.String(), "kgmem ") {
		t.Errorf("version: %q %v", out.String(), err)
	}
	if err := run(context.Background(), []string{"frobnicate"}, io.Discard, io.Discard); err == nil || !strings.Contains(err.Error(), "unknown command") {
		t.Errorf("unknown command: %v", err)
	}
	if err := run(context.Background(), []string{"serve", "--graph", "mysql"}, io.Discard, io.Discard); err == nil {
		t.Error("serve accepted an unknown graph backend")
	}
}

func TestPredicateSynonyms(t *testing.T) {
	cfg, err := parse(t, "--predicate-synonyms", "Works For=works_at, boss of=manages")
	if err != nil {
		t.Fatal(err)
	}
	got, err := cfg.synonyms()
	if err != nil || got["Works For"] != "works_at" || got["boss of"] != "manages" {
		t.Errorf("synonyms %v %v", got, err)
	}
}

func TestSynonymsReachTheNormalizer(t *testing.T) {
	cfg, err := parse(t, "--predicate-synonyms", "is boss of=manages")
	if err != nil {
		t.Fatal(err)
	}
	syn, _ := cfg.synonyms()
	got, err := triples.NewPredicateNormalizer(syn).Normalize("Is Boss Of")
	if err != nil || got != "manages" {
		t.Errorf("normalised %q %v, want manages", got, err)
	}
}

func TestConfigReranker(t *testing.T) {
	tests := []struct {
		name string
		args []string
		ok   bool
	}{
		{"off by default", nil, true},
		{"rerank endpoint", []string{"--rerank-base-url", "http://127.0.0.1:1/v1", "--rerank-model", "m"}, true},
		{"chat", []string{"--rerank-base-url", "http://127.0.0.1:1/v1", "--rerank-model", "m", "--rerank-api", "chat"}, true},
		{"no model", []string{"--rerank-base-url", "http://127.0.0.1:1/v1"}, false},
		{"unknown api", []string{"--rerank-base-url", "http://x/v1", "--rerank-model", "m", "--rerank-api", "soap"}, false},
		{"bad mmr", []string{"--mmr-lambda", "1.5"}, false},
		{"bad graph depth", []string{"--graph-depth", "9"}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := parse(t, tc.args...); (err == nil) != tc.ok {
				t.Errorf("parse(%q) error = %v, want ok %v", tc.args, err, tc.ok)
			}
		})
	}
}

// TestSearchOptionsFromFlags checks that the search flags reach the
// engine's options: both deadlines, and a weight of 0 as "off".
func TestSearchOptionsFromFlags(t *testing.T) {
	cfg, err := parse(t, "--search-timeout", "9s", "--retriever-timeout", "3s", "--graph-weight", "0")
	if err != nil {
		t.Fatal(err)
	}
	o := cfg.searchOptions()
	if o.Timeout != 9*time.Second || o.RetrieverTimeout != 3*time.Second || o.GraphWeight >= 0 {
		t.Errorf("search options: timeout %s, retriever timeout %s, graph weight %v; want 9s, 3s, off", o.Timeout, o.RetrieverTimeout, o.GraphWeight)
	}
}

// TestGCHeadroomFromFlags checks that --gc-headroom-mib reaches the
// collector: the server's small heap gets the headroom (the test binary's
// live heap is a few MiB, far below 256), and 0 leaves GOGC as it is.
func TestGCHeadroomFromFlags(t *testing.T) {
	discard := slog.New(slog.DiscardHandler)
	cfg, err := parse(t, "--gc-headroom-mib", "256")
	if err != nil {
		t.Fatal(err)
	}
	tuner := cfg.startGCHeadroom(discard)
	collectUntilRaised(t, tuner.Base())
	tuner.Stop()
	cfg, err = parse(t, "--gc-headroom-mib", "0")
	if err != nil {
		t.Fatal(err)
	}
	tuner = cfg.startGCHeadroom(discard)
	defer tuner.Stop()
	if tuner.Percent() != tuner.Base() {
		t.Errorf("with no headroom the GC percent is %d, want GOGC=%d", tuner.Percent(), tuner.Base())
	}
}

// TestServeKeepsGCHeadroom checks that serve runs with the headroom and
// gives GOGC back when it stops.
func TestServeKeepsGCHeadroom(t *testing.T) {
	base := gcheadroom.GCPercent()
	addr := freeAddr(t)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- serveWith(ctx, []string{"--addr", addr, "--data-dir", t.TempDir(), "--log-level", "error", "--sweep-interval", "0", "--gc-headroom-mib", "256"})
	}()
	waitHealthy(t, "http://"+addr)
	collectUntilRaised(t, base)
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("serve: %v", err)
	}
	if after := debug.SetGCPercent(base); after != base {
		t.Errorf("GC percent %d after serve, want GOGC=%d back", after, base)
	}
}

// collectUntilRaised runs collections until the GC percent is well above
// base (the test binary's live heap is a few MiB, 256 MiB of headroom many
// times its growth under GOGC); the tuner adjusts after
// each collection, from its own goroutine, and only once one has run.
func collectUntilRaised(t *testing.T, base int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		p := gcheadroom.GCPercent()
		if p > 4*base {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("GC percent %d, want well above GOGC=%d with 256 MiB of headroom", p, base)
		}
		runtime.GC()
		runtime.Gosched()
	}
}

// TestStaticEmbedderConfig checks --embedder static: accepted, its model
// directory from --embed-static-model, and a missing model refused at start
// with the script that installs it.
func TestStaticEmbedderConfig(t *testing.T) {
	t.Setenv("KGMEM_EMBED_STATIC_MODEL", "")
	dir := t.TempDir()
	cfg, err := parse(t, "--embedder", "static", "--embed-static-model", dir)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.EmbedStaticModel != dir || cfg.VectorWeight != embed.StaticVectorWeight {
		t.Errorf("model directory %q, vector weight %v; want %q, %v", cfg.EmbedStaticModel, cfg.VectorWeight, dir, embed.StaticVectorWeight)
	}
	_, err = openEmbedder(cfg)
	if !errors.Is(err, embed.ErrNoModel) || !strings.Contains(err.Error(), "scripts/embedder.sh install") || !strings.Contains(err.Error(), dir) {
		t.Errorf("openEmbedder without a model: %v", err)
	}
	if def, _ := parse(t); !strings.HasSuffix(def.EmbedStaticModel, filepath.Join(".cache", "kgmem", "embedder", "minilm-l6-static-256")) {
		t.Errorf("default model directory %q", def.EmbedStaticModel)
	}
}
