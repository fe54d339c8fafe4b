package locomo

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/episodes"
	"github.com/kgmem/kgmem/internal/apiclient"
)

// Client is a minimal client of the kgmem REST API: the four calls the
// benchmark needs. It is safe for concurrent use.
type Client struct {
	base *url.URL
	http *http.Client
}

// NewClient returns a client of the server at baseURL ("http://127.0.0.1:8080").
// A nil hc uses a client with a 2-minute timeout and enough idle connections
// for concurrent benchmark workers.
func NewClient(baseURL string, hc *http.Client) (*Client, error) {
	u, err := apiclient.ParseBaseURL(baseURL)
	if err != nil {
		return nil, err
	}
	if hc == nil {
		hc = apiclient.NewHTTPClient(2 * time.Minute)
	}
	return &Client{base: u, http: hc}, nil
}

// BaseURL is the server's base URL.
func (c *Client) BaseURL() string { return c.base.String() }

// Message is one message of POST /v1/memories, as the server reads it.
type Message = episodes.Message

// AddMemoriesRequest is the body of POST /v1/memories.
type AddMemoriesRequest struct {
	Namespace string    `json:"namespace"`
	ThreadID  string    `json:"thread_id"`
	Messages  []Message `json:"messages"`
	Extract   bool      `json:"extract"`
}

// StoredEpisode is an episode as the ingest response reports it.
type StoredEpisode struct {
	ID        string `json:"id"`
	MessageID string `json:"message_id"`
}

// AddMemoriesResponse is the part of the ingest response the benchmark reads.
type AddMemoriesResponse struct {
	Episodes []StoredEpisode `json:"episodes"`
	// Facts are the fact changes extraction made (kept raw; only counted).
	Facts []json.RawMessage `json:"facts"`
	// Warnings report what went wrong without losing data (a failed extraction).
	Warnings []string `json:"warnings"`
}

// SearchRequest is the body of POST /v1/search.
type SearchRequest struct {
	Namespace string   `json:"namespace"`
	Query     string   `json:"query"`
	Limit     int      `json:"limit"`
	Include   []string `json:"include"`
	// Reinforce tells the server whether to record the results as recalled
	// (its default, when nil, is true).
	Reinforce *bool `json:"reinforce,omitempty"`
}

// SearchEpisode is a ranked episode of a search response.
type SearchEpisode struct {
	ID        string    `json:"id"`
	MessageID string    `json:"message_id"`
	ThreadID  string    `json:"thread_id"`
	Name      string    `json:"name"`
	Timestamp time.Time `json:"timestamp"`
	Content   string    `json:"content"`
	// Score is kept raw: the server reports a breakdown object.
	Score json.RawMessage `json:"score,omitempty"`
}

// SearchResponse is the part of the search response the benchmark reads.
type SearchResponse struct {
	Episodes []SearchEpisode `json:"episodes"`
}

// HTTPError is a non-2xx answer. It unwraps to the kgmem error kind of its
// status (400 ErrInvalid, 404 ErrNotFound, 409 ErrConflict, 503 ErrUnavailable).
type HTTPError struct {
	Method, URL string
	Status      int
	// Detail is the problem+json detail (or title, or the raw body).
	Detail string
}

// Error implements error.
func (e *HTTPError) Error() string {
	return fmt.Sprintf("%s %s: %d %s: %s", e.Method, e.URL, e.Status, http.StatusText(e.Status), e.Detail)
}

// Unwrap maps the status to a kgmem error kind.
func (e *HTTPError) Unwrap() error {
	switch {
	case e.Status == http.StatusBadRequest || e.Status == http.StatusUnprocessableEntity:
		return kgmem.ErrInvalid
	case e.Status == http.StatusNotFound:
		return kgmem.ErrNotFound
	case e.Status == http.StatusConflict:
		return kgmem.ErrConflict
	case e.Status == http.StatusServiceUnavailable || e.Status == http.StatusBadGateway || e.Status == http.StatusGatewayTimeout:
		return kgmem.ErrUnavailable
	}
	return nil
}

// Health checks GET /healthz. A server that cannot be reached gives an error
// wrapping kgmem.ErrUnavailable that says how to start one.
func (c *Client) Health(ctx context.Context) error {
	return c.do(ctx, http.MethodGet, "/healthz", nil, nil)
}

// PurgeNamespace deletes everything stored in ns (DELETE /v1/namespaces/{ns});
// a namespace that does not exist is not an error.
func (c *Client) PurgeNamespace(ctx context.Context, ns kgmem.Namespace) error {
	err := c.do(ctx, http.MethodDelete, "/v1/namespaces/"+url.PathEscape(string(ns)), nil, nil)
	if errors.Is(err, kgmem.ErrNotFound) {
		return nil
	}
	return err
}

// PutDecay sets decay parameters of ns, merged by the server over its
// defaults (PUT /v1/namespaces/{ns}/settings).
func (c *Client) PutDecay(ctx context.Context, ns kgmem.Namespace, params map[string]any) error {
	body := map[string]any{"decay": params}
	return c.do(ctx, http.MethodPut, "/v1/namespaces/"+url.PathEscape(string(ns))+"/settings", body, nil)
}

// AddMemories posts a batch of messages of one thread.
func (c *Client) AddMemories(ctx context.Context, req AddMemoriesRequest) (AddMemoriesResponse, error) {
	var res AddMemoriesResponse
	err := c.do(ctx, http.MethodPost, "/v1/memories", req, &res)
	return res, err
}

// Search runs one search.
func (c *Client) Search(ctx context.Context, req SearchRequest) (SearchResponse, error) {
	var res SearchResponse
	err := c.do(ctx, http.MethodPost, "/v1/search", req, &res)
	return res, err
}

// do sends body as JSON (when not nil) and decodes a 2xx answer into out (when not nil).
func (c *Client) do(ctx context.Context, method, path string, body, out any) error {
	// Parse rather than join so an escaped namespace ("bench%2Flocomo%2F26")
	// keeps its escaping on the wire.
	u, err := url.Parse(c.base.String() + path)
	if err != nil {
		return fmt.Errorf("%s %s: %w", method, path, kgmem.Invalidf("url", "%v", err))
	}
	var rd io.Reader
	if body != nil {
		buf, err := json.Marshal(body)
		if err != nil {
			return fmt.Errorf("%s %s: encode body: %w", method, u, err)
		}
		rd = bytes.NewReader(buf)
	}
	req, err := http.NewRequestWithContext(ctx, method, u.String(), rd)
	if err != nil {
		return fmt.Errorf("%s %s: %w", method, u, err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Accept", "application/json")
	resp, err := c.http.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("%s %s: %w", method, u, ctx.Err())
		}
		return fmt.Errorf("%w: %s %s: %v (is the kgmem server running at %s? start one with `go run ./cmd/server`)",
			kgmem.ErrUnavailable, method, u, err, c.base)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return fmt.Errorf("%w: %s %s: read response: %v", kgmem.ErrUnavailable, method, u, err)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return &HTTPError{Method: method, URL: u.String(), Status: resp.StatusCode, Detail: problemDetail(raw)}
	}
	if out == nil {
		return nil
	}
	if err := json.Unmarshal(raw, out); err != nil {
		return fmt.Errorf("%s %s: decode %d response: %w", method, u, resp.StatusCode, err)
	}
	return nil
}

// problemDetail extracts the human-readable part of an error body.
func problemDetail(raw []byte) string {
	var p struct {
		Title  string `json:"title"`
		Detail string `json:"detail"`
		Field  string `json:"field"`
	}
	if json.Unmarshal(raw, &p) == nil && (p.Detail != "" || p.Title != "") {
		msg := p.Detail
		if msg == "" {
			msg = p.Title
		}
		if p.Field != "" && !strings.Contains(msg, p.Field) {
			msg = p.Field + ": " + msg
		}
		return msg
	}
	s := strings.TrimSpace(string(raw))
	if len(s) > 300 {
		s = s[:300] + "…"
	}
	if s == "" {
		s = "(empty body)"
	}
	return s
}
