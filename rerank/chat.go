package rerank

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/internal/openaicompat"
	openai "github.com/sashabaranov/go-openai"
)

// chatSystemPrompt asks a chat model for one relevance grade per passage.
const chatSystemPrompt = `You grade how useful each numbered passage is for answering the query.
Reply with JSON only: {"scores": [g0, g1, ...]}, one grade per passage in the given order,
each a number from 0 (useless) to 10 (answers it).`

// maxPassageRunes bounds each passage in the prompt.
const maxPassageRunes = 600

// Chat is a kgmem.Reranker over an OpenAI-compatible chat completions
// endpoint: one call grades every passage (listwise), for deployments that
// have a chat model but no rerank endpoint. It is safe for concurrent use.
type Chat struct {
	client  *openai.Client
	model   string
	retries int
}

var _ kgmem.Reranker = (*Chat)(nil)

// NewChat checks cfg and returns a Chat reranker; cfg.BaseURL is the chat
// API base ("https://api.openai.com/v1").
func NewChat(cfg Config) (*Chat, error) {
	switch {
	case strings.TrimSpace(cfg.BaseURL) == "":
		return nil, fmt.Errorf("rerank: %w", kgmem.Invalidf("base_url", "is empty"))
	case strings.TrimSpace(cfg.Model) == "":
		return nil, fmt.Errorf("rerank: %w", kgmem.Invalidf("model", "is empty"))
	}
	ep := openaicompat.Endpoint{BaseURL: cfg.BaseURL, APIKey: cfg.APIKey, Model: cfg.Model, HTTPClient: cfg.HTTPClient}
	return &Chat{client: ep.Client(), model: cfg.Model, retries: cfg.retries()}, nil
}

// Name is the model name.
func (c *Chat) Name() string { return c.model }

// Rerank grades documents against query in one chat call. Transport
// failures, 5xx and 429 wrap kgmem.ErrUnavailable; an answer that is not one
// grade per document is an error.
func (c *Chat) Rerank(ctx context.Context, query string, documents []string) ([]float64, error) {
	if len(documents) == 0 {
		return nil, nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Query: %s\n\nPassages:\n", query)
	for i, d := range documents {
		if r := []rune(d); len(r) > maxPassageRunes {
			d = string(r[:maxPassageRunes]) + "…"
		}
		fmt.Fprintf(&b, "[%d] %s\n", i, strings.ReplaceAll(d, "\n", " "))
	}
	req := openai.ChatCompletionRequest{
		Model:          c.model,
		Temperature:    0,
		ResponseFormat: &openai.ChatCompletionResponseFormat{Type: openai.ChatCompletionResponseFormatTypeJSONObject},
		Messages: []openai.ChatCompletionMessage{
			{Role: openai.ChatMessageRoleSystem, Content: chatSystemPrompt},
			{Role: openai.ChatMessageRoleUser, Content: b.String()},
		},
	}
	var resp openai.ChatCompletionResponse
	err := policy.Do(ctx, c.retries, transient, func(ctx context.Context) error {
		var err error
		resp, err = c.client.CreateChatCompletion(ctx, req)
		return classifyChat(err)
	})
	if err != nil {
		return nil, err
	}
	if len(resp.Choices) == 0 {
		return nil, errors.New("rerank: chat answered no choice")
	}
	return parseGrades(resp.Choices[0].Message.Content, len(documents))
}

// classifyChat wraps a failed chat call: a transport failure, a 5xx or a
// 429 in kgmem.ErrUnavailable (worth a retry), any other answer as it is.
func classifyChat(err error) error {
	if err == nil {
		return nil
	}
	var apiErr *openai.APIError
	if errors.As(err, &apiErr) && apiErr.HTTPStatusCode < http.StatusInternalServerError && apiErr.HTTPStatusCode != http.StatusTooManyRequests {
		return fmt.Errorf("rerank: chat: %w", err)
	}
	return fmt.Errorf("rerank: chat: %w: %w", kgmem.ErrUnavailable, err)
}

// parseGrades reads {"scores": [...]} from a chat answer, tolerating text
// around the JSON object, and checks there is one grade per document.
func parseGrades(content string, n int) ([]float64, error) {
	start, end := strings.IndexByte(content, '{'), strings.LastIndexByte(content, '}')
	if start < 0 || end < start {
		return nil, fmt.Errorf("rerank: chat answer has no JSON object: %.200q", content)
	}
	var out struct {
		Scores []float64 `json:"scores"`
	}
	if err := json.Unmarshal([]byte(content[start:end+1]), &out); err != nil {
		return nil, fmt.Errorf("rerank: chat answer: %w", err)
	}
	if len(out.Scores) != n {
		return nil, fmt.Errorf("rerank: chat graded %d passages, want %d", len(out.Scores), n)
	}
	return out.Scores, nil
}
