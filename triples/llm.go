package triples

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/internal/openaicompat"
	"github.com/kgmem/kgmem/internal/retry"
	openai "github.com/sashabaranov/go-openai"
)

// Mode selects how structured output is requested from the model.
type Mode string

// The output modes. ModeAuto starts with ModeJSONSchema and, when the
// endpoint rejects a response_format (whatever its status and wording: 400,
// 422, or a 500 carrying a validation message), steps down once per
// rejection — json_schema, then json_object with the schema in
// response_format.schema (llama-cpp-python turns it into a grammar), then
// plain json_object, then text with the schema in the prompt — and
// remembers the step for the endpoint. A rejection is never retried.
const (
	ModeAuto       Mode = "auto"
	ModeJSONSchema Mode = "json_schema"
	ModeJSONObject Mode = "json_object"
	ModeText       Mode = "text"
	// modeJSONObjectSchema is auto mode's step between json_schema and
	// json_object: response_format {"type": "json_object", "schema": …}.
	modeJSONObjectSchema Mode = "json_object+schema"
)

// Defaults of LLMConfig.
const (
	DefaultTimeout    = 60 * time.Second
	DefaultMaxRetries = 3
	DefaultMinBackoff = 500 * time.Millisecond
	DefaultMaxBackoff = 30 * time.Second
	DefaultModel      = "gpt-4o-mini"
	// DefaultAzureAPIVersion is the Azure OpenAI API version that supports json_schema.
	DefaultAzureAPIVersion = "2024-08-01-preview"
)

// MinContextSize is the smallest ContextSize accepted: less cannot hold
// the extraction instructions and an answer.
const MinContextSize = 1024

// LLMConfig reaches an OpenAI-compatible chat completions endpoint (OpenAI,
// Azure OpenAI, vLLM, Ollama, LM Studio, llama.cpp server…).
type LLMConfig struct {
	// BaseURL is the API base, ending in /v1 for OpenAI-style servers (default:
	// OpenAI's). For Azure it is the resource endpoint.
	BaseURL string
	// APIKey is sent as a bearer token (Azure: api-key header). May be empty for local servers.
	APIKey string
	// Model is the model (Azure: deployment) name; default DefaultModel.
	Model string
	// Azure selects the Azure OpenAI URL scheme and authentication.
	Azure bool
	// AzureAPIVersion defaults to DefaultAzureAPIVersion.
	AzureAPIVersion string
	// Timeout bounds each attempt (default DefaultTimeout).
	Timeout time.Duration
	// MaxRetries is how many times a failed attempt (429, 5xx, timeout, network
	// error, unparseable output) is retried: 0 means DefaultMaxRetries, negative none.
	MaxRetries int
	// MinBackoff and MaxBackoff bound the exponential backoff with jitter between
	// retries. A Retry-After header is honoured up to MaxBackoff.
	MinBackoff, MaxBackoff time.Duration
	// Mode is the structured output mode (default ModeAuto).
	Mode Mode
	// Temperature of the completions. 0 asks for greedy decoding (sent as the
	// smallest positive value, since the client omits a zero); a negative value
	// leaves the server's default. When the endpoint rejects the temperature
	// (reasoning models accept only their default) it is dropped and remembered.
	Temperature float32
	// MaxTokens caps the completion length (0: the server's default, or
	// what ContextSize leaves after the prompt).
	MaxTokens int
	// ContextSize is the model's context window in tokens (0: unknown, no
	// limit applied). With it, extraction splits a batch so that each
	// call's prompt leaves room for an answer, skips a message that cannot
	// fit on its own (with a warning; its episode is kept), and caps each
	// completion at what the window leaves and at four times the room an
	// answer usually needs, so a model that loops stops.
	ContextSize int
	// PromptStyle is the extraction prompt and answer schema (default
	// PromptFull; PromptCompact for small local models).
	PromptStyle PromptStyle
	// HTTPClient replaces the default HTTP client.
	HTTPClient *http.Client
	// Logger receives one line when auto mode steps down (nil: none).
	Logger *slog.Logger
}

// ExtractorConfig configures NewExtractor; it is the same connection settings as LLMConfig.
type ExtractorConfig = LLMConfig

// withDefaults validates cfg and fills its defaults.
func (cfg LLMConfig) withDefaults() (LLMConfig, error) {
	if cfg.Model == "" {
		cfg.Model = DefaultModel
	}
	if cfg.Timeout < 0 {
		return cfg, kgmem.Invalidf("timeout", "must not be negative")
	}
	if cfg.Timeout == 0 {
		cfg.Timeout = DefaultTimeout
	}
	switch {
	case cfg.MaxRetries == 0:
		cfg.MaxRetries = DefaultMaxRetries
	case cfg.MaxRetries < 0:
		cfg.MaxRetries = 0
	}
	if cfg.MinBackoff <= 0 {
		cfg.MinBackoff = DefaultMinBackoff
	}
	if cfg.MaxBackoff <= 0 {
		cfg.MaxBackoff = DefaultMaxBackoff
	}
	if cfg.MaxBackoff < cfg.MinBackoff {
		cfg.MaxBackoff = cfg.MinBackoff
	}
	switch cfg.Mode {
	case "":
		cfg.Mode = ModeAuto
	case ModeAuto, ModeJSONSchema, ModeJSONObject, ModeText:
	default:
		return cfg, kgmem.Invalidf("mode", "%q is not one of auto, json_schema, json_object, text", cfg.Mode)
	}
	switch cfg.PromptStyle {
	case "":
		cfg.PromptStyle = PromptFull
	case PromptFull, PromptCompact:
	default:
		return cfg, kgmem.Invalidf("prompt_style", "%q is not one of full, compact", cfg.PromptStyle)
	}
	if cfg.MaxTokens < 0 {
		return cfg, kgmem.Invalidf("max_tokens", "must not be negative")
	}
	if cfg.ContextSize < 0 || (cfg.ContextSize > 0 && cfg.ContextSize < MinContextSize) {
		return cfg, kgmem.Invalidf("context_size", "%d is too small: 0 (unknown) or at least %d tokens", cfg.ContextSize, MinContextSize)
	}
	if cfg.ContextSize > 0 && cfg.MaxTokens >= cfg.ContextSize {
		return cfg, kgmem.Invalidf("max_tokens", "%d leaves no room for a prompt in a context of %d tokens", cfg.MaxTokens, cfg.ContextSize)
	}
	if cfg.Azure && cfg.BaseURL == "" {
		return cfg, kgmem.Invalidf("base_url", "is required for Azure OpenAI")
	}
	if cfg.AzureAPIVersion == "" {
		cfg.AzureAPIVersion = DefaultAzureAPIVersion
	}
	return cfg, nil
}

// llmClient calls the chat endpoint with retries and structured-output fallback.
type llmClient struct {
	cfg    LLMConfig
	client *openai.Client

	mu   sync.Mutex
	mode Mode // current structured-output mode (auto resolved to a concrete one)
	// noTemperature is set once the endpoint rejected the temperature parameter.
	noTemperature bool
}

// greedyTemperature is sent for Temperature 0, which the client library
// omits as unset. It must be small yet safe to divide by: llama.cpp divides
// the logits by the temperature, and the smallest float32 (1e-45) made
// them infinite, so Qwen2.5-1.5B answered with the JSON schema itself
// instead of facts (bench extract, F1 0.04); at 1e-6 the same server gives
// the greedy answer.
const greedyTemperature = 1e-6

// temperature is the value to send (0: omit the field).
func (c *llmClient) temperature() float32 {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case c.noTemperature || c.cfg.Temperature < 0:
		return 0
	case c.cfg.Temperature == 0:
		return greedyTemperature
	}
	return c.cfg.Temperature
}

// dropTemperature stops sending a temperature; it reports whether that is news.
func (c *llmClient) dropTemperature() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.noTemperature || c.cfg.Temperature < 0 {
		return false
	}
	c.noTemperature = true
	return true
}

func newLLMClient(cfg LLMConfig) (*llmClient, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	oc := cfg.endpoint().Config()
	oc.HTTPClient = schemaDoer{inner: oc.HTTPClient}
	mode := cfg.Mode
	if mode == ModeAuto {
		mode = ModeJSONSchema
	}
	return &llmClient{cfg: cfg, client: openai.NewClientWithConfig(oc), mode: mode}, nil
}

// currentMode is the structured-output mode in use.
func (c *llmClient) currentMode() Mode {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.mode
}

// downgrade moves from a mode to the next weaker one (auto mode only) and
// reports whether it did.
func (c *llmClient) downgrade(from Mode) bool {
	if c.cfg.Mode != ModeAuto {
		return false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.mode != from {
		return true // another call already downgraded.
	}
	switch from {
	case ModeJSONSchema:
		c.mode = modeJSONObjectSchema
	case modeJSONObjectSchema:
		c.mode = ModeJSONObject
	case ModeJSONObject:
		c.mode = ModeText
	default:
		return false
	}
	return true
}

// jsonCall is one structured request.
type jsonCall struct {
	system, user string
	schemaName   string
	schema       map[string]any
	// shapeShown: the prompt shows the answer's shape by example, so the
	// modes that would paste the schema into the prompt leave it out.
	shapeShown bool
	// maxTokens, when positive, caps this call's completion below the
	// configured MaxTokens.
	maxTokens int
	// parse decodes the model's JSON text; an error makes the attempt retryable.
	parse func(raw string) error
}

// schemaInstruction ends the system prompt in the modes where the server
// does not enforce the schema: the schema itself, unless the prompt shows
// the shape by example.
func (call jsonCall) schemaInstruction(lead string) string {
	if call.shapeShown {
		return "\n\n" + lead + ", shaped like the example."
	}
	raw, _ := json.Marshal(call.schema) // a map of plain values always encodes.
	return "\n\n" + lead + ", matching this JSON schema:\n" + string(raw)
}

// completionCap is the max_tokens to send: the call's own cap when it is
// tighter than the configured one (0 leaves the server's default).
func (call jsonCall) completionCap(configured int) int {
	if call.maxTokens > 0 && (configured == 0 || call.maxTokens < configured) {
		return call.maxTokens
	}
	return configured
}

// callError is the outcome of one attempt.
type callError struct {
	err        error
	retryable  bool
	retryAfter time.Duration
	downgrade  bool
	// badTemperature: a 400 about the temperature parameter.
	badTemperature bool
}

// completeJSON runs a structured call with retries. Usage counts every attempt
// that reached the server.
func (c *llmClient) completeJSON(ctx context.Context, call jsonCall) (kgmem.LLMUsage, []string, error) {
	var usage kgmem.LLMUsage
	var warnings []string
	var last error
	for attempt := 0; attempt <= c.cfg.MaxRetries; attempt++ {
		mode := c.currentMode()
		content, u, finish, ce := c.attempt(ctx, call, mode)
		usage = usage.Add(u)
		if ce == nil {
			raw, repaired, err := extractJSON(content)
			if err == nil && repaired != "" && emptyJSON(raw) {
				err = errors.New("repair left nothing usable")
			}
			if err == nil {
				err = call.parse(raw)
			}
			if err == nil {
				if repaired != "" {
					warnings = append(warnings, "model output "+repaired)
				}
				if finish == openai.FinishReasonLength && repaired == "" {
					warnings = append(warnings, "model output hit the token limit")
				}
				return usage, warnings, nil
			}
			ce = &callError{err: fmt.Errorf("unparseable model output (%s): %w", describeOutput(content), err), retryable: true}
		}
		last = ce.err
		if ctx.Err() != nil {
			return usage, warnings, fmt.Errorf("llm call: %w", ctx.Err())
		}
		if ce.badTemperature && c.dropTemperature() {
			warnings = append(warnings, "endpoint rejected the temperature; using its default")
			attempt--
			continue
		}
		if ce.downgrade && c.downgrade(mode) {
			msg := fmt.Sprintf("endpoint rejected %s output (%s); using %s from now on", mode, oneLine(ce.err.Error()), c.currentMode())
			warnings = append(warnings, msg)
			if c.cfg.Logger != nil {
				c.cfg.Logger.Warn("LLM structured output: "+msg, "base_url", c.cfg.BaseURL, "model", c.cfg.Model)
			}
			attempt-- // a mode downgrade is not a failed attempt.
			continue
		}
		if !ce.retryable || attempt == c.cfg.MaxRetries {
			break
		}
		warnings = append(warnings, fmt.Sprintf("attempt %d failed, retrying: %s", attempt+1, oneLine(ce.err.Error())))
		if err := retry.Sleep(ctx, c.backoff(attempt, ce.retryAfter)); err != nil {
			return usage, warnings, fmt.Errorf("llm call: %w", err)
		}
	}
	return usage, warnings, fmt.Errorf("llm call failed: %w: %s", kgmem.ErrUnavailable, oneLine(last.Error()))
}

// maxReason bounds a reason quoted from an endpoint in a warning or error.
const maxReason = 200

// oneLine is a reason as one short line: an endpoint's answer may hold a
// whole stack trace, which has no place in a warning.
func oneLine(s string) string {
	if i := strings.IndexAny(s, "\r\n"); i >= 0 {
		s = s[:i]
	}
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > maxReason {
		cut := maxReason
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + "…"
	}
	return s
}

func describeOutput(s string) string {
	if len(s) > 80 {
		return fmt.Sprintf("%d bytes starting %q", len(s), s[:80])
	}
	return fmt.Sprintf("%q", s)
}

// attempt makes one HTTP call.
func (c *llmClient) attempt(ctx context.Context, call jsonCall, mode Mode) (string, kgmem.LLMUsage, openai.FinishReason, *callError) {
	actx, cancel := context.WithTimeout(ctx, c.cfg.Timeout)
	defer cancel()
	actx, hint := retry.WithHint(actx)
	req := openai.ChatCompletionRequest{
		Model:       c.cfg.Model,
		Temperature: c.temperature(),
		MaxTokens:   call.completionCap(c.cfg.MaxTokens),
		Messages: []openai.ChatCompletionMessage{
			{Role: openai.ChatMessageRoleSystem, Content: call.system},
			{Role: openai.ChatMessageRoleUser, Content: call.user},
		},
	}
	switch mode {
	case ModeJSONSchema:
		raw, err := json.Marshal(call.schema)
		if err != nil {
			return "", kgmem.LLMUsage{}, "", &callError{err: fmt.Errorf("encode schema: %w", err)}
		}
		req.ResponseFormat = &openai.ChatCompletionResponseFormat{
			Type:       openai.ChatCompletionResponseFormatTypeJSONSchema,
			JSONSchema: &openai.ChatCompletionResponseFormatJSONSchema{Name: call.schemaName, Schema: json.RawMessage(raw), Strict: true},
		}
	case modeJSONObjectSchema:
		raw, err := json.Marshal(call.schema)
		if err != nil {
			return "", kgmem.LLMUsage{}, "", &callError{err: fmt.Errorf("encode schema: %w", err)}
		}
		req.ResponseFormat = &openai.ChatCompletionResponseFormat{Type: openai.ChatCompletionResponseFormatTypeJSONObject}
		actx = context.WithValue(actx, formatSchemaKey{}, json.RawMessage(raw))
		req.Messages[0].Content += "\n\nAnswer with one JSON object only."
	case ModeJSONObject:
		req.ResponseFormat = &openai.ChatCompletionResponseFormat{Type: openai.ChatCompletionResponseFormatTypeJSONObject}
		req.Messages[0].Content += call.schemaInstruction("Answer with one JSON object only")
	default:
		req.Messages[0].Content += call.schemaInstruction("Answer with one JSON object only, no prose")
	}
	resp, err := c.client.CreateChatCompletion(actx, req)
	if err != nil {
		ce := classify(ctx, err)
		ce.retryAfter = hint.Get()
		u := kgmem.LLMUsage{}
		if ce.reachedServer {
			u.Calls = 1
		}
		return "", u, "", &ce.callError
	}
	u := kgmem.LLMUsage{Calls: 1, PromptTokens: resp.Usage.PromptTokens, CompletionTokens: resp.Usage.CompletionTokens}
	if len(resp.Choices) == 0 {
		return "", u, "", &callError{err: errors.New("response has no choices"), retryable: true}
	}
	ch := resp.Choices[0]
	content := ch.Message.Content
	if content == "" && len(ch.Message.ToolCalls) > 0 {
		content = ch.Message.ToolCalls[0].Function.Arguments
	}
	if strings.TrimSpace(content) == "" {
		if ch.Message.Refusal != "" {
			return "", u, ch.FinishReason, &callError{err: fmt.Errorf("model refused: %s", ch.Message.Refusal)}
		}
		if ch.FinishReason == openai.FinishReasonContentFilter {
			return "", u, ch.FinishReason, &callError{err: errors.New("output blocked by the content filter")}
		}
		return "", u, ch.FinishReason, &callError{err: errors.New("empty model output"), retryable: true}
	}
	return content, u, ch.FinishReason, nil
}

type classified struct {
	callError
	reachedServer bool
}

// classify decides whether an error is worth retrying or calls for a mode downgrade.
func classify(parent context.Context, err error) classified {
	var apiErr *openai.APIError
	var reqErr *openai.RequestError
	status, msg, param := 0, err.Error(), ""
	switch {
	case errors.As(err, &apiErr):
		status, msg = apiErr.HTTPStatusCode, apiErr.Message
		if apiErr.Param != nil {
			param = *apiErr.Param
		}
	case errors.As(err, &reqErr):
		status = reqErr.HTTPStatusCode
	}
	out := classified{callError: callError{err: err}, reachedServer: status != 0}
	if status != 0 {
		out.err = fmt.Errorf("endpoint answered %d: %s", status, oneLine(msg))
	}
	switch {
	case status >= 400 && status != http.StatusTooManyRequests && status != http.StatusRequestTimeout && unsupportedFormat(msg, param):
		// A deterministic rejection of the response_format, whatever the
		// status (llama-cpp-python answers 500 with its validation error):
		// step down, never retry.
		out.downgrade = true
	case status == http.StatusTooManyRequests || status == http.StatusRequestTimeout || status >= 500:
		out.retryable = true
	case status == http.StatusBadRequest || status == http.StatusUnprocessableEntity:
		out.badTemperature = param == "temperature" || strings.Contains(strings.ToLower(msg), "temperature")
	case status != 0:
		// 401, 403, 404…: configuration errors, retrying will not help.
	case parent.Err() != nil:
		// the caller gave up.
	default:
		// network error or the attempt's own timeout: transient.
		out.retryable = true
	}
	return out
}

// unsupportedFormat recognises a 400 that rejects the requested response_format.
func unsupportedFormat(msg, param string) bool {
	m := strings.ToLower(msg)
	if param == "response_format" {
		return true
	}
	mentionsFormat := strings.Contains(m, "response_format") || strings.Contains(m, "json_schema") ||
		strings.Contains(m, "structured output") || strings.Contains(m, "json mode") || strings.Contains(m, "json_object") ||
		strings.Contains(m, "grammar")
	return mentionsFormat && (strings.Contains(m, "support") || strings.Contains(m, "unrecognized") ||
		strings.Contains(m, "invalid") || strings.Contains(m, "not allowed") || strings.Contains(m, "unknown") ||
		strings.Contains(m, "should be") || strings.Contains(m, "must be") || strings.Contains(m, "expected") ||
		strings.Contains(m, "not permitted") || strings.Contains(m, "literal_error") || strings.Contains(m, "unexpected"))
}

// backoff is the wait before retry number attempt+1: exponential with jitter
// in [d/2, d], or the server's Retry-After, both capped at MaxBackoff (the
// shared policy of internal/retry).
func (c *llmClient) backoff(attempt int, retryAfter time.Duration) time.Duration {
	return retry.Policy{Base: c.cfg.MinBackoff, Max: c.cfg.MaxBackoff}.Wait(attempt, retryAfter)
}

// schemaDoer adds the JSON schema of a call in modeJSONObjectSchema to its
// request, then sends it through the endpoint's doer, which notes a 429's
// or 5xx's Retry-After for the retry loop (go-openai's errors do not expose
// headers).
type schemaDoer struct{ inner openai.HTTPDoer }

// endpoint is where cfg's calls go (the description extraction, embeddings
// and the chat reranker share).
func (cfg LLMConfig) endpoint() openaicompat.Endpoint {
	return openaicompat.Endpoint{BaseURL: cfg.BaseURL, APIKey: cfg.APIKey, Model: cfg.Model, Azure: cfg.Azure,
		AzureAPIVersion: cfg.AzureAPIVersion, HTTPClient: cfg.HTTPClient}
}

func (d schemaDoer) Do(r *http.Request) (*http.Response, error) {
	if schema, ok := r.Context().Value(formatSchemaKey{}).(json.RawMessage); ok && r.Body != nil {
		if err := addFormatSchema(r, schema); err != nil {
			return nil, err
		}
	}
	return d.inner.Do(r)
}

// emptyJSON reports whether a JSON object holds nothing but empty containers.
func emptyJSON(raw string) bool {
	var m map[string]any
	if err := json.Unmarshal([]byte(raw), &m); err != nil {
		return false
	}
	for _, v := range m {
		switch x := v.(type) {
		case []any:
			if len(x) > 0 {
				return false
			}
		case map[string]any:
			if len(x) > 0 {
				return false
			}
		case nil:
		default:
			return false
		}
	}
	return true
}

// formatSchemaKey carries the schema that modeJSONObjectSchema puts in
// response_format.schema, a field go-openai's request type does not have.
type formatSchemaKey struct{}

// addFormatSchema sets response_format.schema in r's JSON body.
func addFormatSchema(r *http.Request, schema json.RawMessage) error {
	raw, err := io.ReadAll(r.Body)
	if err != nil {
		return fmt.Errorf("read request body: %w", err)
	}
	_ = r.Body.Close()
	var body map[string]json.RawMessage
	if err := json.Unmarshal(raw, &body); err != nil {
		return fmt.Errorf("request body: %w", err)
	}
	var format map[string]json.RawMessage
	if err := json.Unmarshal(body["response_format"], &format); err != nil {
		return fmt.Errorf("request response_format: %w", err)
	}
	format["schema"] = schema
	if body["response_format"], err = json.Marshal(format); err != nil {
		return err
	}
	if raw, err = json.Marshal(body); err != nil {
		return err
	}
	r.Body = io.NopCloser(bytes.NewReader(raw))
	r.ContentLength = int64(len(raw))
	r.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(raw)), nil }
	return nil
}
