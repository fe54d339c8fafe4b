//go:build llm

// Package locallm_test runs kgmem's extraction against real local LLM
// servers that scripts/test-llm.sh starts with scripts/llm.sh:
//
//	KGMEM_TEST_LLAMA_CPP_PYTHON_URL  llama-cpp-python's server (rejects json_schema)
//	KGMEM_TEST_LLAMA_SERVER_URL      llama.cpp's llama-server (accepts json_schema)
//	KGMEM_TEST_LLM_MODEL             the model both serve (smollm2: plumbing)
//	KGMEM_TEST_QWEN_URL              llama-server serving qwen1.5b (facts)
//	KGMEM_TEST_QWEN_CPP_PYTHON_URL   llama-cpp-python serving qwen1.5b (facts)
//
// Built only with -tags llm; a missing server fails the test.
package locallm_test

import (
	"context"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/bench/extract"
	"github.com/kgmem/kgmem/embed"
	"github.com/kgmem/kgmem/episodes"
	"github.com/kgmem/kgmem/graph/sqlite"
	"github.com/kgmem/kgmem/internal/faultproxy"
	"github.com/kgmem/kgmem/memory"
	"github.com/kgmem/kgmem/triples"
	"github.com/kgmem/kgmem/vector/hnsw"
)

func env(t *testing.T, name string) string {
	t.Helper()
	v := os.Getenv(name)
	if v == "" {
		t.Fatalf("%s is not set: run scripts/test-llm.sh", name)
	}
	return v
}

func extractor(t *testing.T, base, model string, mutate ...func(*triples.LLMConfig)) *triples.Extractor {
	t.Helper()
	cfg := triples.LLMConfig{BaseURL: base, Model: model, Timeout: 10 * time.Minute, MinBackoff: 100 * time.Millisecond, MaxBackoff: time.Second}
	for _, m := range mutate {
		m(&cfg)
	}
	x, err := triples.NewExtractor(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return x
}

func request(content string) kgmem.ExtractRequest {
	return kgmem.ExtractRequest{Namespace: "llm/t", Messages: []kgmem.Episode{{ID: "ep_1", Namespace: "llm/t", ThreadID: "t", MessageID: "1",
		Role: "user", Name: "Alice", Content: content, Timestamp: time.Date(2024, 3, 1, 9, 0, 0, 0, time.UTC)}}}
}

// TestStructuredOutputDialects: in auto mode, llama-cpp-python's rejection
// of json_schema (a 500) is recognised at once — one rejected call, no
// retry — the next step (json_object with the schema) is taken and
// remembered, with a one-line warning; llama-server takes json_schema as is.
func TestStructuredOutputDialects(t *testing.T) {
	model := env(t, "KGMEM_TEST_LLM_MODEL")
	for _, tc := range []struct {
		server, url string
		mode        triples.Mode
		stepDown    bool
	}{
		{"llama-cpp-python", env(t, "KGMEM_TEST_LLAMA_CPP_PYTHON_URL"), "json_object+schema", true},
		{"llama-server", env(t, "KGMEM_TEST_LLAMA_SERVER_URL"), triples.ModeJSONSchema, false},
	} {
		t.Run(tc.server, func(t *testing.T) {
			// A 135M model may well write JSON that does not parse: the
			// negotiation is what is tested, so no retry and a bounded answer.
			x := extractor(t, tc.url, model, func(c *triples.LLMConfig) { c.MaxRetries = -1; c.MaxTokens = 256 })
			ex, err := x.Extract(t.Context(), request("Bob leads the ML team."))
			if x.Mode() != tc.mode {
				t.Errorf("mode %s, want %s", x.Mode(), tc.mode)
			}
			if err != nil {
				if strings.ContainsAny(err.Error(), "\r\n") {
					t.Errorf("error is not one line: %q", err)
				}
				t.Logf("the model's answer did not parse (%v); the mode was negotiated", err)
				return
			}
			stepped := false
			for _, w := range ex.Warnings {
				if strings.ContainsAny(w, "\r\n") || len(w) > 400 {
					t.Errorf("warning is not one short line: %q", w)
				}
				stepped = stepped || strings.Contains(w, "rejected json_schema")
			}
			if stepped != tc.stepDown {
				t.Errorf("warnings %q: step down %v, want %v", ex.Warnings, stepped, tc.stepDown)
			}
			wantCalls := 1
			if tc.stepDown {
				wantCalls = 2
			}
			if ex.Usage.Calls != wantCalls || ex.Usage.PromptTokens == 0 {
				t.Errorf("usage %+v: want %d calls, prompt tokens counted", ex.Usage, wantCalls)
			}
			// The mode is remembered: one request, whatever the model writes.
			if again, err := x.Extract(t.Context(), request("Carol works at Initech.")); again.Usage.Calls != 1 {
				t.Errorf("second call: %d calls (%v); want 1", again.Usage.Calls, err)
			}
		})
	}
}

// factCases are the conversations the 1.5B model must get right: one
// fact, two first-person facts, a change of place, a shared project, and
// small talk with nothing to extract.
var factCases = []string{"a team lead", "first person: where I live and work", "a move", "a project", "small talk has no facts"}

// TestFactsFromASmallModel: Qwen2.5-Coder-1.5B behind either server (its
// json_schema grammar, or llama-cpp-python's json_object with the schema
// after the step down), with the compact prompt and the context size scripts/llm.sh gives it, gets the
// facts of a few fixed conversations right through the whole ingest path:
// the facts are read back from the graph the engine wrote.
func TestFactsFromASmallModel(t *testing.T) {
	for _, server := range []struct{ name, url string }{
		{"llama-server", env(t, "KGMEM_TEST_QWEN_URL")},
		{"llama-cpp-python", env(t, "KGMEM_TEST_QWEN_CPP_PYTHON_URL")},
	} {
		t.Run(server.name, func(t *testing.T) {
			factsRightOnFixedCases(t, extractor(t, server.url, "qwen1.5b", func(c *triples.LLMConfig) {
				c.PromptStyle, c.ContextSize = triples.PromptCompact, 4096
			}))
		})
	}
}

// factsRightOnFixedCases ingests each of factCases with extraction through
// x and checks the facts the engine stored.
func factsRightOnFixedCases(t *testing.T, x *triples.Extractor) {
	cases, err := extract.Cases()
	if err != nil {
		t.Fatal(err)
	}
	e := engine(t, x)
	found := 0
	for i, c := range cases {
		if !slices.Contains(factCases, c.Name) {
			continue
		}
		found++
		t.Run(c.Name, func(t *testing.T) {
			ns := kgmem.Namespace(fmt.Sprintf("llm/facts%d", i))
			var msgs []episodes.Message
			for j, m := range c.Messages {
				msgs = append(msgs, episodes.Message{ID: fmt.Sprint(j), Name: m.Speaker, Role: "user", Content: m.Content, Timestamp: m.Timestamp})
			}
			res, err := e.Ingest(t.Context(), memory.IngestRequest{Namespace: ns, ThreadID: "t", Extract: true, Messages: msgs})
			if err != nil {
				t.Fatal(err)
			}
			facts, err := e.ListFacts(t.Context(), memory.ListFactsRequest{Namespace: ns, Page: kgmem.Page{Limit: 100}})
			if err != nil {
				t.Fatal(err)
			}
			var got []extract.Fact
			for _, f := range facts {
				got = append(got, extract.Fact{Subject: f.SubjectName, Predicate: f.Predicate, Object: f.ObjectName})
			}
			matched, missed, extra := extract.Score(c.Expected, got)
			if matched != len(c.Expected) || len(extra) > 0 {
				t.Errorf("%d of %d expected facts; missed %v, extra %v (warnings %q)", matched, len(c.Expected), missed, extra, res.Warnings)
			}
		})
	}
	if found != len(factCases) {
		t.Fatalf("found %d of the cases %v in bench/extract/cases.json", found, factCases)
	}
}

// engine is an embedded engine whose extractor is x.
func engine(t *testing.T, x kgmem.Extractor) *memory.Engine {
	t.Helper()
	dir := t.TempDir()
	g, err := sqlite.Open(t.Context(), filepath.Join(dir, "graph.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = g.Close() })
	emb := embed.NewHashing(256)
	v, err := hnsw.Open(t.Context(), filepath.Join(dir, "vectors.db"), emb.Dimension(), hnsw.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = v.Close() })
	e, err := memory.New(memory.Config{Graph: g, Vectors: v, Embedder: emb, Extractor: x, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// TestFailuresKeepTheMessages: whatever the model or its server does —
// output cut short, answers slower than the timeout, a server that stops
// mid-run — ingest keeps every message and says why in one line.
func TestFailuresKeepTheMessages(t *testing.T) {
	base, model := env(t, "KGMEM_TEST_LLAMA_CPP_PYTHON_URL"), env(t, "KGMEM_TEST_LLM_MODEL")
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	proxy, err := faultproxy.Start(u.Host)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = proxy.Close() })
	proxied := "http://" + proxy.Addr() + u.Path
	tests := []struct {
		name   string
		x      *triples.Extractor
		before func()
	}{
		{"output cut at 5 tokens", extractor(t, base, model, func(c *triples.LLMConfig) { c.MaxTokens = 5; c.MaxRetries = 1 }), nil},
		{"slower than the timeout", extractor(t, base, model, func(c *triples.LLMConfig) { c.Timeout = 50 * time.Millisecond; c.MaxRetries = 1 }), nil},
		{"the server stops mid-run", extractor(t, proxied, model, func(c *triples.LLMConfig) { c.MaxRetries = 1 }), proxy.Cut},
	}
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := engine(t, tc.x)
			if tc.before != nil {
				tc.before()
			}
			ns := kgmem.Namespace("llm/fail")
			res, err := e.Ingest(context.Background(), memory.IngestRequest{Namespace: ns, ThreadID: "t", Extract: true, Messages: []episodes.Message{
				{ID: "m1", Name: "Alice", Content: "Bob leads the ML team.", Timestamp: time.Date(2024, 3, 1, 9, 0, 0, i, time.UTC)},
				{ID: "m2", Name: "Alice", Content: "Carol works at Initech.", Timestamp: time.Date(2024, 3, 1, 9, 1, 0, i, time.UTC)},
			}})
			if err != nil {
				t.Fatalf("ingest failed instead of keeping the messages: %v", err)
			}
			if len(res.Episodes) != 2 || len(res.Warnings) == 0 {
				t.Errorf("%d episodes, warnings %q; want both messages kept and a warning", len(res.Episodes), res.Warnings)
			}
			for _, w := range res.Warnings {
				if strings.ContainsAny(w, "\r\n") || len(w) > 600 {
					t.Errorf("warning is not one short line: %q", w)
				}
			}
			eps, err := e.ListEpisodes(context.Background(), memory.ListEpisodesRequest{Namespace: ns, Page: kgmem.Page{Limit: 10}})
			if err != nil || len(eps) != 2 {
				t.Errorf("stored episodes %d, %v; want 2", len(eps), err)
			}
		})
	}
}
