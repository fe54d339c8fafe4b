//go:build llm

// Package locallm_test runs kgmem's extraction against real local LLM
// servers that scripts/test-llm.sh starts with scripts/llm.sh:
//
//	KGMEM_TEST_LLAMA_CPP_PYTHON_URL  llama-cpp-python's server (rejects json_schema)
//	KGMEM_TEST_LLAMA_SERVER_URL      llama.cpp's llama-server (accepts json_schema)
//	KGMEM_TEST_LLM_MODEL             the model both serve (smollm2: plumbing)
//	KGMEM_TEST_QWEN_URL              llama-cpp-python serving qwen1.5b (facts)
//
// Built only with -tags llm; a missing server fails the test.
package locallm_test

import (
	"context"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
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
	cfg := triples.LLMConfig{BaseURL: base, Model: model, Timeout: 3 * time.Minute, MinBackoff: 100 * time.Millisecond, MaxBackoff: time.Second}
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

// TestFactsFromASmallModel: Qwen2.5-Coder-1.5B, through llama-cpp-python's
// fallback path, gets the facts of a few fixed conversations right.
func TestFactsFromASmallModel(t *testing.T) {
	x := extractor(t, env(t, "KGMEM_TEST_QWEN_URL"), "qwen1.5b")
	cases, err := extract.Cases()
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{"a team lead": true, "first person: where I live and work": true, "an allergy": true}
	var picked []extract.Case
	for _, c := range cases {
		if want[c.Name] {
			picked = append(picked, c)
		}
	}
	rep := extract.Run(t.Context(), x, picked)
	for _, c := range rep.Cases {
		if c.Matched != c.Expected || c.Error != "" {
			t.Errorf("%s: %d of %d expected facts (missed %v, extra %v) %s", c.Name, c.Matched, c.Expected, c.Missed, c.Extra, c.Error)
		}
	}
	t.Logf("qwen1.5b: precision %.2f recall %.2f, %.1f s per message, %.0f prompt tokens per call", rep.Precision, rep.Recall, rep.SecondsPerMsg, rep.PromptTokensCall)
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
