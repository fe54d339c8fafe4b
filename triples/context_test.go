package triples

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/internal/llmtest"
	openai "github.com/sashabaranov/go-openai"
)

// echoFacts answers each extraction call with one fact per message of the
// call (the message's speaker likes its first word), in the compact shape.
func echoFacts(req openai.ChatCompletionRequest) (llmtest.Reply, error) {
	user := llmtest.LastUserMessage(req)
	var payload struct {
		Messages []messageView `json:"messages"`
	}
	if err := json.Unmarshal([]byte(user[strings.IndexByte(user, '{'):]), &payload); err != nil {
		return llmtest.Reply{}, err
	}
	facts := []map[string]any{}
	for _, m := range payload.Messages {
		facts = append(facts, map[string]any{"subject": m.Speaker, "predicate": "likes", "object": strings.Fields(m.Content)[0], "message": m.N})
	}
	raw, err := json.Marshal(map[string]any{"facts": facts})
	return llmtest.Text(string(raw)), err
}

// word makes a message of about n bytes that starts with a distinct word.
func word(i, n int) string {
	return fmt.Sprintf("topic%d %s", i, strings.Repeat("lorem ipsum ", n/12))
}

// TestContextSizeSplitsBatches: with a context size, a batch is split into
// calls whose prompt leaves room for the answer and whose completion is
// capped at what the window leaves; every message is extracted once.
func TestContextSizeSplitsBatches(t *testing.T) {
	for _, style := range []PromptStyle{PromptFull, PromptCompact} {
		t.Run(string(style), func(t *testing.T) {
			s := llmtest.New(t, llmtest.WithResponder(echoFacts))
			const window = 2048
			x := newTestExtractor(t, s, func(c *LLMConfig) { c.ContextSize = window; c.PromptStyle = style })
			req := kgmem.ExtractRequest{Namespace: "n"}
			for i := range 12 {
				req.Messages = append(req.Messages, msg("n", fmt.Sprint(i), "Ann", word(i, 600), t0))
			}
			ex, err := x.Extract(t.Context(), req)
			if err != nil {
				t.Fatal(err)
			}
			if len(ex.Triples) != len(req.Messages) {
				t.Errorf("%d facts from %d messages; warnings %q", len(ex.Triples), len(req.Messages), ex.Warnings)
			}
			reqs := s.Requests()
			if len(reqs) < 2 {
				t.Fatalf("%d calls: the batch was not split", len(reqs))
			}
			for i, r := range reqs {
				prompt := 0
				for _, m := range r.Messages {
					prompt += estimateTokens(m.Content)
				}
				if r.MaxTokens <= 0 || prompt+r.MaxTokens > window {
					t.Errorf("call %d: ~%d prompt tokens + max_tokens %d exceed the window %d", i, prompt, r.MaxTokens, window)
				}
			}
		})
	}
}

// TestMessageTooLongForTheContext: a message that cannot fit on its own is
// skipped with a warning naming it; the others are extracted.
func TestMessageTooLongForTheContext(t *testing.T) {
	s := llmtest.New(t, llmtest.WithResponder(echoFacts))
	x := newTestExtractor(t, s, func(c *LLMConfig) { c.ContextSize = 1024; c.PromptStyle = PromptCompact })
	huge := msg("n", "huge", "Ann", word(1, 20000), t0)
	ex, err := x.Extract(t.Context(), kgmem.ExtractRequest{Namespace: "n", Messages: []kgmem.Episode{
		msg("n", "a", "Ann", "coffee every morning", t0), huge, msg("n", "b", "Ann", "tea at night", t0)}})
	if err != nil {
		t.Fatal(err)
	}
	if len(ex.Triples) != 2 {
		t.Errorf("facts %+v, want the two short messages'", ex.Triples)
	}
	if len(ex.Warnings) != 1 || !strings.Contains(ex.Warnings[0], huge.ID) || !strings.Contains(ex.Warnings[0], "1024") {
		t.Errorf("warnings %q: want one naming %s and the context size", ex.Warnings, huge.ID)
	}
	// Only that message: no call, no error, the reason in a warning.
	s2 := llmtest.New(t, llmtest.WithResponder(echoFacts))
	x2 := newTestExtractor(t, s2, func(c *LLMConfig) { c.ContextSize = 1024 })
	ex, err = x2.Extract(t.Context(), kgmem.ExtractRequest{Namespace: "n", Messages: []kgmem.Episode{huge}})
	if err != nil || len(ex.Warnings) != 1 || len(s2.Requests()) != 0 {
		t.Errorf("err %v, warnings %q, %d calls; want no error, one warning, no call", err, ex.Warnings, len(s2.Requests()))
	}
}

// TestContextTrimmedOldestFirst: earlier messages sent for reference give
// way, oldest first, so that the new ones fit.
func TestContextTrimmedOldestFirst(t *testing.T) {
	s := llmtest.New(t, llmtest.WithResponder(echoFacts))
	x := newTestExtractor(t, s, func(c *LLMConfig) { c.ContextSize = 4096; c.PromptStyle = PromptCompact })
	req := kgmem.ExtractRequest{Namespace: "n", Messages: []kgmem.Episode{msg("n", "new", "Ann", "coffee every morning", t0)}}
	for i := range 10 {
		req.Context = append(req.Context, msg("n", fmt.Sprint(i), "Bo", word(i, 800), t0))
	}
	ex, err := x.Extract(t.Context(), req)
	if err != nil || len(ex.Triples) != 1 {
		t.Fatalf("err %v, facts %+v", err, ex.Triples)
	}
	if len(ex.Warnings) != 1 || !strings.Contains(ex.Warnings[0], "oldest context") {
		t.Errorf("warnings %q: want one about the context left out", ex.Warnings)
	}
	user := llmtest.LastUserMessage(s.Requests()[0])
	if strings.Contains(user, "topic0 ") || !strings.Contains(user, "topic9 ") {
		t.Errorf("the newest context must stay and the oldest go: %.200q", user)
	}
}

// TestCompactStyle: the compact prompt asks for subject, predicate and
// object first, in that order, and its answer becomes facts.
func TestCompactStyle(t *testing.T) {
	s := llmtest.New(t, llmtest.WithResponder(echoFacts))
	x := newTestExtractor(t, s, func(c *LLMConfig) { c.PromptStyle = PromptCompact; c.Mode = ModeJSONSchema })
	ex, err := x.Extract(t.Context(), kgmem.ExtractRequest{Namespace: "n", Messages: []kgmem.Episode{msg("n", "1", "Ann", "sailing on weekends", t0)}})
	if err != nil || len(ex.Triples) != 1 || ex.Triples[0].Subject != "Ann" || ex.Triples[0].Object != "sailing" {
		t.Fatalf("err %v, facts %+v", err, ex.Triples)
	}
	r := s.Requests()[0]
	if !strings.HasPrefix(r.Messages[0].Content, compactSystemPrompt[:40]) {
		t.Errorf("system prompt %.60q is not the compact one", r.Messages[0].Content)
	}
	raw, err := json.Marshal(r.ResponseFormat.JSONSchema.Schema)
	if err != nil {
		t.Fatal(err)
	}
	order := []string{`"subject"`, `"predicate"`, `"object"`, `"valid_at"`}
	last := -1
	for _, k := range order {
		i := strings.Index(string(raw), k)
		if i <= last {
			t.Fatalf("schema %s: want the properties in the order %v", raw, order)
		}
		last = i
	}
	if strings.Contains(string(raw), `"entities"`) || strings.Contains(string(raw), `"importance"`) {
		t.Errorf("compact schema %s asks for entities or importance", raw)
	}
}

func TestLLMConfigRejectsBadSizes(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  LLMConfig
	}{
		{"context below the minimum", LLMConfig{ContextSize: 512}},
		{"negative context", LLMConfig{ContextSize: -1}},
		{"answer cap fills the context", LLMConfig{ContextSize: 2048, MaxTokens: 2048}},
		{"negative answer cap", LLMConfig{MaxTokens: -5}},
		{"unknown prompt style", LLMConfig{PromptStyle: "tiny"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := NewExtractor(tc.cfg); !errors.Is(err, kgmem.ErrInvalid) {
				t.Errorf("err = %v, want ErrInvalid", err)
			}
		})
	}
}
