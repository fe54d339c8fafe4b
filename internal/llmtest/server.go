// Package llmtest is a fake OpenAI-compatible API server for tests: chat
// completions answered by a scripted Responder, deterministic embeddings derived
// from the input text, a model list, and per-endpoint call and token counters.
// Payloads have the real API's shape (id, object, created, model, usage), so
// github.com/sashabaranov/go-openai parses them exactly like the real thing.
package llmtest

import (
	"cmp"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"
)

// Endpoint names used by Stats.
const (
	EndpointChat       = "chat"
	EndpointEmbeddings = "embeddings"
	EndpointModels     = "models"
)

// DefaultModel is the chat model name the server reports when a request names none.
const DefaultModel = "gpt-4o-mini"

// DefaultEmbeddingDim is the embedding dimension when neither WithEmbeddingDim
// nor the request's dimensions field says otherwise.
const DefaultEmbeddingDim = 64

// Stats counts the traffic of one endpoint.
type Stats struct {
	// Calls counts requests, including those answered with an error status.
	Calls            int
	PromptTokens     int
	CompletionTokens int
}

// Server is a running fake API. Create it with New; it is closed by t.Cleanup.
type Server struct {
	srv *httptest.Server

	mu        sync.Mutex
	responder Responder
	dim       int
	models    []string
	stats     map[string]Stats
	requests  []openai.ChatCompletionRequest
	apiKey    string
	// rerankReply is how POST /v1/rerank answers (see WithRerankReply).
	rerankReply Reply
}

// Option configures a Server.
type Option func(*Server)

// WithResponder sets the chat responder (default: every call fails with 500).
func WithResponder(r Responder) Option { return func(s *Server) { s.responder = r } }

// WithScript sets a Script responder built from rules.
func WithScript(rules ...Rule) Option { return WithResponder(Script(rules...)) }

// WithEmbeddingDim sets the default embedding dimension.
func WithEmbeddingDim(dim int) Option { return func(s *Server) { s.dim = dim } }

// WithModels sets the model ids GET /v1/models lists.
func WithModels(ids ...string) Option { return func(s *Server) { s.models = ids } }

// WithAPIKey makes the server require "Authorization: Bearer key" (401 otherwise).
func WithAPIKey(key string) Option { return func(s *Server) { s.apiKey = key } }

// New starts a fake server and registers its shutdown with t.Cleanup.
func New(t testing.TB, opts ...Option) *Server {
	t.Helper()
	s := &Server{
		dim:    DefaultEmbeddingDim,
		models: []string{DefaultModel, "text-embedding-3-small"},
		stats:  map[string]Stats{},
		responder: func(openai.ChatCompletionRequest) (Reply, error) {
			return Reply{}, fmt.Errorf("llmtest: no responder configured")
		},
	}
	for _, o := range opts {
		o(s)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/chat/completions", s.handleChat)
	mux.HandleFunc("POST /v1/embeddings", s.handleEmbeddings)
	mux.HandleFunc("GET /v1/models", s.handleModels)
	mux.HandleFunc("POST /v1/rerank", s.handleRerank)
	// Azure OpenAI routes: the deployment stands in for the model.
	mux.HandleFunc("POST /openai/deployments/{deployment}/chat/completions", s.handleChat)
	mux.HandleFunc("POST /openai/deployments/{deployment}/embeddings", s.handleEmbeddings)
	s.srv = httptest.NewServer(s.auth(mux))
	t.Cleanup(s.srv.Close)
	return s
}

// URL is the API base URL, ending in /v1 (what openai.ClientConfig.BaseURL wants).
func (s *Server) URL() string { return s.srv.URL + "/v1" }

// AzureURL is the base URL for an Azure OpenAI client (openai.DefaultAzureConfig):
// requests go to /openai/deployments/{deployment}/… and the deployment is
// reported as the model.
func (s *Server) AzureURL() string { return s.srv.URL }

// SetResponder replaces the chat responder while the server runs.
func (s *Server) SetResponder(r Responder) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.responder = r
}

// Stats returns the counters of one endpoint (EndpointChat, EndpointEmbeddings, EndpointModels, EndpointRerank).
func (s *Server) Stats(endpoint string) Stats {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stats[endpoint]
}

// ChatCalls is Stats(EndpointChat).Calls.
func (s *Server) ChatCalls() int { return s.Stats(EndpointChat).Calls }

// Requests returns a copy of every chat completion request received, in order.
func (s *Server) Requests() []openai.ChatCompletionRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]openai.ChatCompletionRequest(nil), s.requests...)
}

// ResetStats zeroes the counters and forgets recorded requests.
func (s *Server) ResetStats() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.stats = map[string]Stats{}
	s.requests = nil
}

func (s *Server) count(endpoint string, prompt, completion int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.stats[endpoint]
	st.Calls++
	st.PromptTokens += prompt
	st.CompletionTokens += completion
	s.stats[endpoint] = st
}

func (s *Server) auth(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if s.apiKey != "" && r.Header.Get("Authorization") != "Bearer "+s.apiKey && r.Header.Get("api-key") != s.apiKey {
			writeError(w, http.StatusUnauthorized, "invalid_request_error", "", "Incorrect API key provided.")
			return
		}
		next.ServeHTTP(w, r)
	})
}

func (s *Server) handleChat(w http.ResponseWriter, r *http.Request) {
	var req openai.ChatCompletionRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		s.count(EndpointChat, 0, 0)
		writeError(w, http.StatusBadRequest, "invalid_request_error", "", "could not parse request body: "+err.Error())
		return
	}
	s.mu.Lock()
	s.requests = append(s.requests, req)
	responder := s.responder
	s.mu.Unlock()

	prompt := 0
	for _, m := range req.Messages {
		prompt += estimateTokens(m.Content)
		for _, p := range m.MultiContent {
			prompt += estimateTokens(p.Text)
		}
	}
	reply, err := responder(req)
	if err != nil {
		s.count(EndpointChat, prompt, 0)
		writeError(w, http.StatusInternalServerError, "server_error", "", err.Error())
		return
	}
	if reply.Delay > 0 {
		select {
		case <-time.After(reply.Delay):
		case <-r.Context().Done():
			s.count(EndpointChat, prompt, 0)
			return
		}
	}
	if reply.Status != 0 && reply.Status != http.StatusOK {
		s.count(EndpointChat, prompt, 0)
		if reply.RetryAfter > 0 {
			w.Header().Set("Retry-After", strconv.Itoa(int(math.Ceil(max(reply.RetryAfter.Seconds(), 1)))))
		}
		msg := reply.ErrorMessage
		if msg == "" {
			msg = http.StatusText(reply.Status)
		}
		typ := reply.ErrorType
		if typ == "" {
			typ = errorTypeFor(reply.Status)
		}
		writeError(w, reply.Status, typ, reply.ErrorParam, msg)
		return
	}

	content := reply.Content
	finish := openai.FinishReasonStop
	if reply.TruncateAt > 0 && reply.TruncateAt < len(content) {
		content = content[:reply.TruncateAt]
		finish = openai.FinishReasonLength
	}
	if len(reply.ToolCalls) > 0 {
		finish = openai.FinishReasonToolCalls
	}
	completion := estimateTokens(content)
	for _, tc := range reply.ToolCalls {
		completion += estimateTokens(tc.Function.Name) + estimateTokens(tc.Function.Arguments)
	}
	usage := openai.Usage{PromptTokens: prompt, CompletionTokens: completion, TotalTokens: prompt + completion}
	if reply.Usage != nil {
		usage = *reply.Usage
	}
	s.count(EndpointChat, usage.PromptTokens, usage.CompletionTokens)

	model := reply.Model
	if model == "" {
		model = cmp.Or(r.PathValue("deployment"), req.Model)
	}
	if model == "" {
		model = DefaultModel
	}
	msg := openai.ChatCompletionMessage{Role: openai.ChatMessageRoleAssistant, Content: content, ToolCalls: reply.ToolCalls}
	writeJSON(w, http.StatusOK, openai.ChatCompletionResponse{
		ID:                "chatcmpl-" + shortHash(fmt.Sprint(time.Now().UnixNano(), content)),
		Object:            "chat.completion",
		Created:           time.Now().Unix(),
		Model:             model,
		Choices:           []openai.ChatCompletionChoice{{Index: 0, Message: msg, FinishReason: finish}},
		Usage:             usage,
		SystemFingerprint: "fp_llmtest",
	})
}

func (s *Server) handleModels(w http.ResponseWriter, _ *http.Request) {
	s.count(EndpointModels, 0, 0)
	s.mu.Lock()
	ids := append([]string(nil), s.models...)
	s.mu.Unlock()
	type model struct {
		ID      string `json:"id"`
		Object  string `json:"object"`
		Created int64  `json:"created"`
		OwnedBy string `json:"owned_by"`
	}
	out := struct {
		Object string  `json:"object"`
		Data   []model `json:"data"`
	}{Object: "list"}
	for _, id := range ids {
		out.Data = append(out.Data, model{ID: id, Object: "model", Created: 1700000000, OwnedBy: "llmtest"})
	}
	writeJSON(w, http.StatusOK, out)
}

func errorTypeFor(status int) string {
	switch {
	case status == http.StatusTooManyRequests:
		return "rate_limit_error"
	case status >= 500:
		return "server_error"
	default:
		return "invalid_request_error"
	}
}

func writeError(w http.ResponseWriter, status int, typ, param, msg string) {
	body := map[string]any{"message": msg, "type": typ, "param": nil, "code": nil}
	if param != "" {
		body["param"] = param
	}
	writeJSON(w, status, map[string]any{"error": body})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v) // the client went away; nothing to report to.
}

// estimateTokens approximates a tokenizer: about one token per four bytes.
func estimateTokens(s string) int {
	if s == "" {
		return 0
	}
	return (len(s) + 3) / 4
}
