package triples

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/internal/llmtest"
	openai "github.com/sashabaranov/go-openai"
)

// testConfig points an LLMConfig at a fake server with fast retries.
func testConfig(s *llmtest.Server) LLMConfig {
	return LLMConfig{BaseURL: s.URL(), APIKey: "k", Model: "test-model", Timeout: 2 * time.Second,
		MaxRetries: 2, MinBackoff: time.Millisecond, MaxBackoff: 20 * time.Millisecond}
}

func newTestExtractor(t *testing.T, s *llmtest.Server, mutate ...func(*LLMConfig)) *Extractor {
	t.Helper()
	cfg := testConfig(s)
	for _, m := range mutate {
		m(&cfg)
	}
	x, err := NewExtractor(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return x
}

func msg(ns kgmem.Namespace, id, speaker, content string, at time.Time) kgmem.Episode {
	return kgmem.Episode{ID: kgmem.EpisodeID(ns, "t", id), Namespace: ns, ThreadID: "t", MessageID: id, Role: "user",
		Name: speaker, Content: content, Timestamp: at}
}

const bobAnswer = `{"entities":[{"name":"Bob","type":"Person","aliases":[],"attributes":[]},{"name":"ML team","type":"Team","aliases":["machine learning team"],"attributes":[]}],
"facts":[{"subject":"Bob","subject_type":"Person","predicate":"leads","object":"ML team","object_type":"Team","fact":"Bob leads the ML team.","valid_at":null,"invalid_at":null,"confidence":0.95,"importance":6,"message":1}]}`

func TestExtractorHappyPath(t *testing.T) {
	s := llmtest.New(t, llmtest.WithScript(llmtest.On("Bob leads", llmtest.Text(bobAnswer))))
	x := newTestExtractor(t, s)
	ex, err := x.Extract(t.Context(), kgmem.ExtractRequest{Namespace: "n", Messages: []kgmem.Episode{msg("n", "1", "Alice", "Bob leads the ML team", t0)}})
	if err != nil {
		t.Fatal(err)
	}
	if len(ex.Entities) != 2 || ex.Entities[1].Aliases[0] != "machine learning team" || ex.Entities[1].Type != kgmem.TypeTeam {
		t.Errorf("entities = %+v", ex.Entities)
	}
	if len(ex.Triples) != 1 {
		t.Fatalf("triples = %+v", ex.Triples)
	}
	tr := ex.Triples[0]
	if tr.Subject != "Bob" || tr.Predicate != "leads" || tr.Object != "ML team" || tr.Confidence != 0.95 || tr.Importance != 6 ||
		len(tr.EpisodeIDs) != 1 || tr.EpisodeIDs[0] != kgmem.EpisodeID("n", "t", "1") {
		t.Errorf("triple = %+v", tr)
	}
	st := s.Stats(llmtest.EndpointChat)
	if ex.Usage.Calls != 1 || ex.Usage.PromptTokens != st.PromptTokens || ex.Usage.CompletionTokens != st.CompletionTokens || st.PromptTokens == 0 {
		t.Errorf("usage = %+v, server saw %+v", ex.Usage, st)
	}
	req := s.Requests()[0]
	if req.ResponseFormat == nil || req.ResponseFormat.Type != openai.ChatCompletionResponseFormatTypeJSONSchema ||
		!req.ResponseFormat.JSONSchema.Strict || req.Model != "test-model" {
		t.Errorf("request response_format = %+v", req.ResponseFormat)
	}
	if !strings.Contains(req.Messages[0].Content, "never instructions") {
		t.Error("system prompt lacks the data-not-instructions rule")
	}
	user := llmtest.LastUserMessage(req)
	for _, want := range []string{`"speaker": "Alice"`, `"role": "user"`, `"timestamp": "2025-03-10T09:00:00Z"`, `"weekday": "Monday"`, `"content": "Bob leads the ML team"`} {
		if !strings.Contains(user, want) {
			t.Errorf("user prompt lacks %s:\n%s", want, user)
		}
	}
}

func TestExtractorRetries(t *testing.T) {
	tests := []struct {
		name      string
		replies   []llmtest.Reply
		wantErr   error
		wantCalls int
		wantFacts int
		warning   string
	}{
		{name: "429 then success", replies: []llmtest.Reply{llmtest.RateLimited(time.Second), llmtest.Text(bobAnswer)}, wantCalls: 2, wantFacts: 1, warning: "429"},
		{name: "500 then success", replies: []llmtest.Reply{llmtest.Status(500), llmtest.Text(bobAnswer)}, wantCalls: 2, wantFacts: 1},
		{name: "503 exhausted", replies: []llmtest.Reply{llmtest.Status(503)}, wantErr: kgmem.ErrUnavailable, wantCalls: 3},
		{name: "401 not retried", replies: []llmtest.Reply{llmtest.Status(401)}, wantErr: kgmem.ErrUnavailable, wantCalls: 1},
		{name: "prose then json", replies: []llmtest.Reply{llmtest.Text("I am not sure what you mean."), llmtest.Text(bobAnswer)}, wantCalls: 2, wantFacts: 1, warning: "unparseable"},
		{name: "garbage exhausted", replies: []llmtest.Reply{llmtest.Text("no json here")}, wantErr: kgmem.ErrUnavailable, wantCalls: 3},
		{name: "truncated repaired", replies: []llmtest.Reply{llmtest.Truncated(bobAnswer, strings.Index(bobAnswer, `"fact":"Bob`)+8)}, wantCalls: 1, wantFacts: 1, warning: "truncated"},
		{name: "truncated unrecoverable then retry", replies: []llmtest.Reply{llmtest.Truncated(bobAnswer, 3), llmtest.Text(bobAnswer)}, wantCalls: 2, wantFacts: 1},
		{name: "timeout then success", replies: []llmtest.Reply{{Content: bobAnswer, Delay: 2 * time.Second}, llmtest.Text(bobAnswer)}, wantCalls: 2, wantFacts: 1},
		{name: "tool call answer", replies: []llmtest.Reply{llmtest.ToolCall("knowledge_graph", bobAnswer)}, wantCalls: 1, wantFacts: 1},
		{name: "fenced answer", replies: []llmtest.Reply{llmtest.Text("```json\n" + bobAnswer + "\n```")}, wantCalls: 1, wantFacts: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := llmtest.New(t, llmtest.WithResponder(llmtest.Sequence(tt.replies...)))
			x := newTestExtractor(t, s, func(c *LLMConfig) { c.Timeout = 300 * time.Millisecond })
			ex, err := x.Extract(t.Context(), kgmem.ExtractRequest{Namespace: "n", Messages: []kgmem.Episode{msg("n", "1", "Alice", "Bob leads the ML team", t0)}})
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("err = %v, want %v", err, tt.wantErr)
				}
			} else if err != nil {
				t.Fatal(err)
			}
			if got := s.ChatCalls(); got != tt.wantCalls {
				t.Errorf("server calls = %d, want %d", got, tt.wantCalls)
			}
			if len(ex.Triples) != tt.wantFacts {
				t.Errorf("facts = %+v, want %d", ex.Triples, tt.wantFacts)
			}
			for _, f := range ex.Triples {
				if f.Subject != "Bob" || f.Object != "ML team" || f.Predicate != "leads" {
					t.Errorf("garbage fact stored: %+v", f)
				}
			}
			if tt.warning != "" && !strings.Contains(strings.Join(ex.Warnings, "\n"), tt.warning) {
				t.Errorf("warnings %q lack %q", ex.Warnings, tt.warning)
			}
		})
	}
}

func TestExtractorHonoursRetryAfter(t *testing.T) {
	s := llmtest.New(t, llmtest.WithResponder(llmtest.Sequence(llmtest.RateLimited(time.Second), llmtest.Text(bobAnswer))))
	x := newTestExtractor(t, s, func(c *LLMConfig) { c.MaxBackoff = 1500 * time.Millisecond })
	start := time.Now()
	if _, err := x.Extract(t.Context(), kgmem.ExtractRequest{Namespace: "n", Messages: []kgmem.Episode{msg("n", "1", "A", "x", t0)}}); err != nil {
		t.Fatal(err)
	}
	if waited := time.Since(start); waited < 900*time.Millisecond {
		t.Errorf("retried after %v, want about the 1s Retry-After", waited)
	}
}

func TestExtractorModeDowngrade(t *testing.T) {
	unsupported := llmtest.Reply{Status: 400, ErrorMessage: "Invalid parameter: 'response_format' of type 'json_schema' is not supported with this model."}
	noJSONMode := llmtest.Reply{Status: 400, ErrorMessage: "json_object response format is not supported"}
	var mu = make(chan struct{}, 1)
	mu <- struct{}{}
	s := llmtest.New(t, llmtest.WithResponder(func(req openai.ChatCompletionRequest) (llmtest.Reply, error) {
		<-mu
		defer func() { mu <- struct{}{} }()
		switch {
		case req.ResponseFormat != nil && req.ResponseFormat.Type == openai.ChatCompletionResponseFormatTypeJSONSchema:
			return unsupported, nil
		case req.ResponseFormat != nil:
			return noJSONMode, nil
		}
		return llmtest.Text("Here you go:\n```json\n" + bobAnswer + "\n```"), nil
	}))
	x := newTestExtractor(t, s)
	for i := range 2 {
		ex, err := x.Extract(t.Context(), kgmem.ExtractRequest{Namespace: "n", Messages: []kgmem.Episode{msg("n", fmt.Sprint(i), "A", "Bob leads", t0)}})
		if err != nil {
			t.Fatal(err)
		}
		if len(ex.Triples) != 1 {
			t.Fatalf("call %d: triples = %+v", i, ex.Triples)
		}
	}
	if x.Mode() != ModeText {
		t.Errorf("mode = %s, want text", x.Mode())
	}
	reqs := s.Requests()
	if len(reqs) != 5 {
		t.Fatalf("requests = %d, want 5 (json_schema, json_object with the schema, json_object, text, then text remembered)", len(reqs))
	}
	if reqs[4].ResponseFormat != nil || !strings.Contains(reqs[4].Messages[0].Content, `"facts"`) {
		t.Errorf("remembered text mode should send no response_format and embed the schema in the prompt")
	}
	// A fixed mode never downgrades.
	fixed := newTestExtractor(t, s, func(c *LLMConfig) { c.Mode = ModeJSONSchema })
	if _, err := fixed.Extract(t.Context(), kgmem.ExtractRequest{Namespace: "n", Messages: []kgmem.Episode{msg("n", "z", "A", "x", t0)}}); !errors.Is(err, kgmem.ErrUnavailable) {
		t.Errorf("fixed json_schema mode: err = %v, want ErrUnavailable", err)
	}
}

func TestExtractorValidation(t *testing.T) {
	answer := `{"entities":[
 {"name":"","type":"Person","aliases":[],"attributes":[]},
 {"name":"he","type":"Person","aliases":[],"attributes":[]},
 {"name":"Dana Scully (she/her)","type":"person","aliases":["Dana","she","Dana Scully"],"attributes":[{"name":"role","value":"agent"}]},
 {"name":"Quantico","type":"city","aliases":[],"attributes":[]}],
"facts":[
 {"subject":"","predicate":"likes","object":"x","fact":"","valid_at":null,"invalid_at":null,"confidence":0.5,"importance":3,"message":1},
 {"subject":"he","predicate":"likes","object":"x","fact":"","valid_at":null,"invalid_at":null,"confidence":0.5,"importance":3,"message":1},
 {"subject":"Dana","predicate":"???","object":"x","fact":"","valid_at":null,"invalid_at":null,"confidence":0.5,"importance":3,"message":1},
 {"subject":"I","predicate":"Lives In","object":"Quantico","fact":"Fox lives in Quantico.","valid_at":"last week","invalid_at":null,"confidence":"85","importance":42,"message":2},
 {"subject":"Dana","predicate":"works at","object":"FBI","fact":"Dana works at the FBI.","valid_at":"2025-03-03","invalid_at":"2025-01-01T00:00:00Z","confidence":0.9,"importance":7,"message":99},
 {"subject":"Fox","predicate":"has_age","object":41,"fact":"Fox is 41.","valid_at":null,"invalid_at":null,"confidence":1,"importance":4,"message":2},
 {"subject":"Dana","predicate":"says","object":"hello","fact":"","valid_at":null,"invalid_at":null,"confidence":1,"importance":1,"message":1}
]}`
	s := llmtest.New(t, llmtest.WithResponder(llmtest.Sequence(llmtest.Text(answer))))
	x := newTestExtractor(t, s)
	ns := kgmem.Namespace("n")
	msgs := []kgmem.Episode{msg(ns, "1", "Dana", "hello", t0), msg(ns, "2", "Fox", "I moved to Quantico last week", t0)}
	ex, err := x.Extract(t.Context(), kgmem.ExtractRequest{Namespace: ns, Messages: msgs})
	if err != nil {
		t.Fatal(err)
	}
	if len(ex.Entities) != 2 || ex.Entities[0].Name != "Dana Scully" || ex.Entities[0].Type != kgmem.TypePerson ||
		strings.Join(ex.Entities[0].Aliases, ",") != "Dana" || ex.Entities[0].Attributes["role"] != "agent" || ex.Entities[1].Type != kgmem.TypePlace {
		t.Errorf("entities = %+v", ex.Entities)
	}
	if len(ex.Triples) != 3 {
		t.Fatalf("triples = %+v", ex.Triples)
	}
	lives, works, age := ex.Triples[0], ex.Triples[1], ex.Triples[2]
	if lives.Subject != "Fox" || lives.Predicate != "lives_in" || lives.Confidence != 0.85 || lives.Importance != 10 ||
		!lives.ValidAt.IsZero() || lives.EpisodeIDs[0] != msgs[1].ID {
		t.Errorf("lives = %+v", lives)
	}
	if works.Predicate != "works_at" || !works.ValidAt.Equal(time.Date(2025, 3, 3, 0, 0, 0, 0, time.UTC)) || !works.InvalidAt.IsZero() || len(works.EpisodeIDs) != 2 {
		t.Errorf("works = %+v", works)
	}
	if age.Object != "41" {
		t.Errorf("literal object = %q, want 41", age.Object)
	}
	warn := strings.Join(ex.Warnings, "\n")
	for _, want := range []string{"entity 1", "entity 2", "fact 1", "fact 2", "fact 3", "fact 7: \"says\" reports what was said", "last week", "resolved to the speaker", "invalid_at before valid_at"} {
		if !strings.Contains(warn, want) {
			t.Errorf("warnings lack %q:\n%s", want, warn)
		}
	}
}

func TestExtractorSchemaConstrains(t *testing.T) {
	answer := `{"entities":[{"name":"Carbonara","type":"recipe","aliases":[],"attributes":[{"name":"cuisine","value":"Italian"}]}],
"facts":[{"subject":"Ann","predicate":"cooks","object":"Carbonara","fact":"Ann cooks carbonara.","valid_at":null,"invalid_at":null,"confidence":0.9,"importance":5,"message":1},
{"subject":"Ann","predicate":"hates","object":"Carbonara","fact":"x","valid_at":null,"invalid_at":null,"confidence":0.9,"importance":5,"message":1}]}`
	s := llmtest.New(t, llmtest.WithResponder(llmtest.Sequence(llmtest.Text(answer))))
	x := newTestExtractor(t, s)
	schema := &kgmem.Schema{
		EntityTypes:   []kgmem.TypeDef{{Name: "Recipe", Description: "a dish", Attributes: map[string]any{"type": "object", "properties": map[string]any{"cuisine": map[string]any{"type": "string"}}}}},
		RelationTypes: []kgmem.TypeDef{{Name: "COOKS"}},
	}
	ex, err := x.Extract(t.Context(), kgmem.ExtractRequest{Namespace: "n", Schema: schema, Messages: []kgmem.Episode{msg("n", "1", "Ann", "I cook carbonara", t0)}})
	if err != nil {
		t.Fatal(err)
	}
	if len(ex.Entities) != 1 || ex.Entities[0].Type != "Recipe" || ex.Entities[0].Attributes["cuisine"] != "Italian" {
		t.Errorf("entities = %+v", ex.Entities)
	}
	if len(ex.Triples) != 1 || ex.Triples[0].Predicate != "cooks" {
		t.Errorf("triples = %+v (undeclared relation must be dropped)", ex.Triples)
	}
	req := s.Requests()[0]
	raw, err := json.Marshal(req.ResponseFormat.JSONSchema.Schema)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"enum":["Recipe","Person","Other"]`, `"enum":["cooks"]`} {
		if !strings.Contains(string(raw), want) {
			t.Errorf("schema lacks %s: %s", want, raw)
		}
	}
	if !strings.Contains(req.Messages[0].Content, "Recipe: a dish") || !strings.Contains(req.Messages[0].Content, "cuisine") {
		t.Error("system prompt does not describe the schema types and attributes")
	}
}

func TestExtractorSplitsLongBatches(t *testing.T) {
	s := llmtest.New(t, llmtest.WithResponder(llmtest.Sequence(llmtest.Text(bobAnswer), llmtest.Status(500))))
	x := newTestExtractor(t, s, func(c *LLMConfig) { c.MaxRetries = -1 })
	var msgs []kgmem.Episode
	for i := range MaxMessagesPerCall + 5 {
		msgs = append(msgs, msg("n", fmt.Sprint(i), "A", "Bob leads the ML team", t0))
	}
	ex, err := x.Extract(t.Context(), kgmem.ExtractRequest{Namespace: "n", Messages: msgs})
	if err != nil {
		t.Fatalf("one failed part must not fail the batch: %v", err)
	}
	if s.ChatCalls() != 2 || len(ex.Triples) != 1 || !strings.Contains(strings.Join(ex.Warnings, "\n"), "extraction failed") {
		t.Errorf("calls %d triples %d warnings %q", s.ChatCalls(), len(ex.Triples), ex.Warnings)
	}
}

func TestExtractorInvalidInput(t *testing.T) {
	if _, err := NewExtractor(ExtractorConfig{Mode: "yaml"}); !errors.Is(err, kgmem.ErrInvalid) {
		t.Errorf("bad mode: %v", err)
	}
	if _, err := NewExtractor(ExtractorConfig{Azure: true}); !errors.Is(err, kgmem.ErrInvalid) {
		t.Errorf("azure without base url: %v", err)
	}
	s := llmtest.New(t)
	x := newTestExtractor(t, s)
	if _, err := x.Extract(context.Background(), kgmem.ExtractRequest{Namespace: "../x"}); !errors.Is(err, kgmem.ErrInvalid) {
		t.Errorf("bad namespace: %v", err)
	}
	if ex, err := x.Extract(context.Background(), kgmem.ExtractRequest{Namespace: "x"}); err != nil || s.ChatCalls() != 0 || len(ex.Triples) != 0 {
		t.Errorf("empty batch: %v, %d calls", err, s.ChatCalls())
	}
}

func TestExtractorAzure(t *testing.T) {
	s := llmtest.New(t, llmtest.WithResponder(llmtest.Sequence(llmtest.Text(bobAnswer))), llmtest.WithAPIKey("azure-key"))
	x := newTestExtractor(t, s, func(c *LLMConfig) {
		c.Azure, c.BaseURL, c.APIKey, c.Model = true, s.AzureURL(), "azure-key", "extraction-deployment"
	})
	ex, err := x.Extract(t.Context(), kgmem.ExtractRequest{Namespace: "n", Messages: []kgmem.Episode{msg("n", "1", "A", "Bob leads the ML team", t0)}})
	if err != nil {
		t.Fatal(err)
	}
	if len(ex.Triples) != 1 || s.ChatCalls() != 1 || s.Requests()[0].ResponseFormat == nil {
		t.Errorf("triples %+v, calls %d", ex.Triples, s.ChatCalls())
	}
}

// TestExtractorAzureDeploymentAsNamed calls an Azure deployment whose name
// holds dots by that name, as embeddings do (go-openai's default mapping
// would call "gpt-3.5-turbo" as "gpt-35-turbo").
func TestExtractorAzureDeploymentAsNamed(t *testing.T) {
	s := llmtest.New(t, llmtest.WithResponder(llmtest.Sequence(llmtest.Text(bobAnswer))), llmtest.WithAPIKey("azure-key"))
	var paths []string
	x := newTestExtractor(t, s, func(c *LLMConfig) {
		c.Azure, c.BaseURL, c.APIKey, c.Model = true, s.AzureURL(), "azure-key", "gpt-3.5-turbo"
		c.HTTPClient = &http.Client{Transport: recordPaths{&paths}}
	})
	if _, err := x.Extract(t.Context(), kgmem.ExtractRequest{Namespace: "n", Messages: []kgmem.Episode{msg("n", "1", "A", "Bob leads the ML team", t0)}}); err != nil {
		t.Fatal(err)
	}
	if want := "/openai/deployments/gpt-3.5-turbo/chat/completions"; len(paths) != 1 || paths[0] != want {
		t.Errorf("paths %q, want [%s]", paths, want)
	}
}

// recordPaths is a transport that records each request's path.
type recordPaths struct{ paths *[]string }

func (r recordPaths) RoundTrip(req *http.Request) (*http.Response, error) {
	*r.paths = append(*r.paths, req.URL.Path)
	return http.DefaultTransport.RoundTrip(req)
}

func TestExtractorLenientFields(t *testing.T) {
	answer := `{"entities":[{"name":{"name":"Bob"},"type":"person","aliases":"Bobby","attributes":{"age":41}}],
"facts":[{"subject":{"name":"Bob"},"predicate":"has_age","object":41,"fact":"Bob is 41.","valid_at":2024,"importance":"high","confidence":null,"message":"1"},
{"subject":["x"],"predicate":"likes","object":"tea","fact":"","valid_at":null,"invalid_at":null,"confidence":1,"importance":1,"message":1}]}`
	s := llmtest.New(t, llmtest.WithResponder(llmtest.Sequence(llmtest.Text(answer))))
	x := newTestExtractor(t, s)
	ex, err := x.Extract(t.Context(), kgmem.ExtractRequest{Namespace: "n", Messages: []kgmem.Episode{msg("n", "1", "Ann", "Bob is 41", t0)}})
	if err != nil {
		t.Fatal(err)
	}
	if len(ex.Entities) != 1 || ex.Entities[0].Name != "Bob" || ex.Entities[0].Aliases[0] != "Bobby" || ex.Entities[0].Attributes["age"] != 41.0 {
		t.Errorf("entities = %+v", ex.Entities)
	}
	if len(ex.Triples) != 1 || ex.Triples[0].Object != "41" || ex.Triples[0].Importance != DefaultImportance || ex.Triples[0].Confidence != DefaultConfidence {
		t.Errorf("triples = %+v", ex.Triples)
	}
	if w := strings.Join(ex.Warnings, "\n"); !strings.Contains(w, "valid_at") || !strings.Contains(w, "fact 2") {
		t.Errorf("warnings = %q", ex.Warnings)
	}
	if s.ChatCalls() != 1 {
		t.Errorf("a lenient answer must not be retried (%d calls)", s.ChatCalls())
	}
}

func TestExtractorCapsRunawayAnswers(t *testing.T) {
	var facts []string
	for i := range MaxFactsPerMessage + 10 {
		facts = append(facts, fmt.Sprintf(`{"subject":"Ann","predicate":"knows","object":"P%d","fact":"","valid_at":null,"invalid_at":null,"confidence":1,"importance":1,"message":1}`, i))
	}
	s := llmtest.New(t, llmtest.WithResponder(llmtest.Sequence(llmtest.Text(`{"entities":[],"facts":[`+strings.Join(facts, ",")+`]}`))))
	ex, err := newTestExtractor(t, s).Extract(t.Context(), kgmem.ExtractRequest{Namespace: "n", Messages: []kgmem.Episode{msg("n", "1", "Ann", "x", t0)}})
	if err != nil {
		t.Fatal(err)
	}
	if len(ex.Triples) != MaxFactsPerMessage || !strings.Contains(strings.Join(ex.Warnings, "\n"), "kept the first") {
		t.Errorf("kept %d facts, warnings %q", len(ex.Triples), ex.Warnings)
	}
}
