// Package gentest is test support for ingestion tests over generated chat
// logs: a fake LLM that extracts exactly the facts the generated messages
// state, and an engine over the embedded backends in a test directory.
package gentest

import (
	"context"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/chatlog/gen"
	"github.com/kgmem/kgmem/embed"
	"github.com/kgmem/kgmem/graph/sqlite"
	"github.com/kgmem/kgmem/internal/llmtest"
	"github.com/kgmem/kgmem/memory"
	"github.com/kgmem/kgmem/triples"
	"github.com/kgmem/kgmem/vector/hnsw"
	openai "github.com/sashabaranov/go-openai"
)

// Responder answers every extraction request with the facts the generated
// messages in it state, after delay, and every judge request with a 400
// (not retried: the integrator keeps what its rules decided and the batch
// keeps its episodes, the same way in every run).
func Responder(delay time.Duration) llmtest.Responder {
	return func(req openai.ChatCompletionRequest) (llmtest.Reply, error) {
		user := llmtest.LastUserMessage(req)
		if !strings.HasPrefix(user, llmtest.ExtractionMarker) {
			return llmtest.Status(400), nil
		}
		var ents []llmtest.Entity
		var facts []llmtest.Fact
		for _, f := range gen.PromptFacts(user) {
			ents = append(ents, llmtest.Entity{Name: f.Subject, Type: "Person"}, llmtest.Entity{Name: f.Object, Type: "Other"})
			facts = append(facts, llmtest.Fact{Subject: f.Subject, Predicate: f.Predicate, Object: f.Object, Message: f.Message})
		}
		r := llmtest.Text(llmtest.ExtractionJSON(ents, facts))
		r.Delay = delay
		return r, nil
	}
}

// LLM starts a fake LLM answering with Responder(delay).
func LLM(t testing.TB, delay time.Duration) *llmtest.Server {
	return llmtest.New(t, llmtest.WithResponder(Responder(delay)))
}

// Engine is an engine over SQLite and HNSW in dir, extracting with llm
// (nil: extraction off). The stores close with the test.
func Engine(t testing.TB, dir string, llm *llmtest.Server) (*memory.Engine, kgmem.GraphStore) {
	t.Helper()
	ctx := context.Background()
	// As `server ingest` opens it: the process owns the file.
	g, err := sqlite.Open(ctx, filepath.Join(dir, "graph.db"), append([]sqlite.Option{sqlite.Exclusive()}, sqlite.BulkImport()...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = g.Close() })
	emb := embed.NewHashing(256)
	v, err := hnsw.Open(ctx, filepath.Join(dir, "vectors.db"), emb.Dimension(), hnsw.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = v.Close() })
	quiet := slog.New(slog.DiscardHandler)
	cfg := memory.Config{Graph: g, Vectors: v, Embedder: emb, Logger: quiet}
	if llm != nil {
		llmCfg := triples.LLMConfig{BaseURL: llm.URL(), Model: "test-model", MaxRetries: -1, Timeout: time.Minute}
		x, err := triples.NewExtractor(llmCfg)
		if err != nil {
			t.Fatal(err)
		}
		cfg.Extractor = x
		cfg.Integrator = triples.NewIntegrator(g, triples.IntegratorOptions{Embedder: emb, LLM: &llmCfg})
	}
	eng, err := memory.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return eng, g
}
