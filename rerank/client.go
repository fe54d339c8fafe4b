package rerank

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/kgmem/kgmem"
)

// Config configures a Client.
type Config struct {
	// BaseURL is the API base, for example "https://api.jina.ai/v1" or a
	// vLLM server's "http://127.0.0.1:8000/v1"; the client posts to BaseURL + "/rerank".
	BaseURL string
	// Model names the rerank model.
	Model string
	// APIKey, when set, is sent as a bearer token.
	APIKey string
	// HTTPClient defaults to http.DefaultClient; deadlines come from the context.
	HTTPClient *http.Client
}

// Client is a kgmem.Reranker over HTTP. It is safe for concurrent use.
type Client struct {
	url, model, key string
	hc              *http.Client
}

var _ kgmem.Reranker = (*Client)(nil)

// New checks cfg and returns a Client.
func New(cfg Config) (*Client, error) {
	switch {
	case strings.TrimSpace(cfg.BaseURL) == "":
		return nil, fmt.Errorf("rerank: %w", kgmem.Invalidf("base_url", "is empty"))
	case strings.TrimSpace(cfg.Model) == "":
		return nil, fmt.Errorf("rerank: %w", kgmem.Invalidf("model", "is empty"))
	}
	hc := cfg.HTTPClient
	if hc == nil {
		hc = http.DefaultClient
	}
	return &Client{url: strings.TrimRight(cfg.BaseURL, "/") + "/rerank", model: cfg.Model, key: cfg.APIKey, hc: hc}, nil
}

// Name is the model name.
func (c *Client) Name() string { return c.model }

type request struct {
	Model     string   `json:"model"`
	Query     string   `json:"query"`
	Documents []string `json:"documents"`
	TopN      int      `json:"top_n"`
}

type response struct {
	Results []struct {
		Index          int      `json:"index"`
		RelevanceScore *float64 `json:"relevance_score"`
	} `json:"results"`
}

// Rerank scores documents against query in one request. A transport
// failure, a 5xx or 429 wraps kgmem.ErrUnavailable; any other non-2xx, a
// malformed body or a result that does not cover every document is an error.
func (c *Client) Rerank(ctx context.Context, query string, documents []string) ([]float64, error) {
	if len(documents) == 0 {
		return nil, nil
	}
	body, err := json.Marshal(request{Model: c.model, Query: query, Documents: documents, TopN: len(documents)})
	if err != nil {
		return nil, fmt.Errorf("rerank: encode: %w", err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url, bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("rerank: %w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	if c.key != "" {
		req.Header.Set("Authorization", "Bearer "+c.key)
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return nil, fmt.Errorf("rerank: %w: %w", kgmem.ErrUnavailable, err)
	}
	defer func() { _ = resp.Body.Close() }()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 8<<20))
	if err != nil {
		return nil, fmt.Errorf("rerank: read answer: %w: %w", kgmem.ErrUnavailable, err)
	}
	if resp.StatusCode/100 != 2 {
		err := fmt.Errorf("rerank: %s answered %d: %.200s", c.url, resp.StatusCode, raw)
		if resp.StatusCode >= 500 || resp.StatusCode == http.StatusTooManyRequests {
			return nil, fmt.Errorf("%w: %w", kgmem.ErrUnavailable, err)
		}
		return nil, err
	}
	var out response
	if err := json.Unmarshal(raw, &out); err != nil {
		return nil, fmt.Errorf("rerank: decode answer: %w", err)
	}
	scores := make([]float64, len(documents))
	seen := make([]bool, len(documents))
	for _, r := range out.Results {
		if r.Index < 0 || r.Index >= len(documents) || seen[r.Index] || r.RelevanceScore == nil {
			return nil, fmt.Errorf("rerank: answer has a bad or repeated result index %d", r.Index)
		}
		seen[r.Index] = true
		scores[r.Index] = *r.RelevanceScore
	}
	for i, ok := range seen {
		if !ok {
			return nil, errors.New("rerank: answer left out document " + fmt.Sprint(i))
		}
	}
	return scores, nil
}
