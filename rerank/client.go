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
	"time"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/internal/retry"
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
	// Retries is how many times a call failing with a 429, a 5xx or no
	// answer is tried again, within the caller's deadline, after the wait
	// the answer's Retry-After asks for or a backoff from 100 ms (0:
	// DefaultRetries; negative: none).
	Retries int
}

// DefaultRetries is Config.Retries when unset.
const DefaultRetries = 2

// policy is the wait between tries of a rerank call (internal/retry's,
// shared with extraction and embeddings); the search's rerank deadline
// bounds the whole.
var policy = retry.Policy{Base: 100 * time.Millisecond, Max: time.Second}

// retries returns the retry budget cfg asks for.
func (cfg Config) retries() int {
	switch {
	case cfg.Retries < 0:
		return 0
	case cfg.Retries == 0:
		return DefaultRetries
	}
	return cfg.Retries
}

// transient reports a failure worth another try: the rerankers wrap a 429,
// a 5xx and a transport failure in kgmem.ErrUnavailable.
func transient(err error) bool { return errors.Is(err, kgmem.ErrUnavailable) }

// Client is a kgmem.Reranker over HTTP. It is safe for concurrent use.
type Client struct {
	url, model, key string
	hc              retry.Doer
	retries         int
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
	return &Client{url: strings.TrimRight(cfg.BaseURL, "/") + "/rerank", model: cfg.Model, key: cfg.APIKey,
		hc: retry.Doer{Client: cfg.HTTPClient}, retries: cfg.retries()}, nil
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

// Rerank scores documents against query in one request, retried (Retries)
// while it fails with a transport failure, a 5xx or a 429, which wrap
// kgmem.ErrUnavailable; any other non-2xx, a malformed body or a result that
// does not cover every document is an error.
func (c *Client) Rerank(ctx context.Context, query string, documents []string) ([]float64, error) {
	if len(documents) == 0 {
		return nil, nil
	}
	body, err := json.Marshal(request{Model: c.model, Query: query, Documents: documents, TopN: len(documents)})
	if err != nil {
		return nil, fmt.Errorf("rerank: encode: %w", err)
	}
	var scores []float64
	err = policy.Do(ctx, c.retries, transient, func(ctx context.Context) error {
		var err error
		scores, err = c.once(ctx, body, len(documents))
		return err
	})
	return scores, err
}

// once sends the request once and reads its scores.
func (c *Client) once(ctx context.Context, body []byte, n int) ([]float64, error) {
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
	scores := make([]float64, n)
	seen := make([]bool, n)
	for _, r := range out.Results {
		if r.Index < 0 || r.Index >= n || seen[r.Index] || r.RelevanceScore == nil {
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
