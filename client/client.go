// Package client is the Go client of a kgmem server's REST API: one method
// per route of api/openapi.json, context first, with the server's own
// request and response types (package api/wire). It depends on nothing of
// the engine: no storage, LLM client or web framework (TestClientDependencies).
//
//	c, err := client.New("http://127.0.0.1:8080", client.WithAPIKey(key))
//	res, err := c.Search(ctx, wire.SearchRequest{Namespace: "acme/alice", Query: "Who leads the ML team?"})
//
// An error answer of the server is an *Error (status, field, detail), usable
// with errors.As, which also matches kgmem's error kinds with errors.Is
// (kgmem.ErrNotFound for a 404); a server that cannot be reached gives an
// error wrapping kgmem.ErrUnavailable. Answers 429 and 503 are retried with exponential backoff,
// honouring Retry-After, up to the retry budget (WithRetries). List routes
// have a one-page method and an iterator over every page (Facts, Entities,
// Episodes).
package client

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

	gojson "github.com/goccy/go-json"
	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/internal/retry"
)

// Client calls one kgmem server. It is safe for concurrent use.
type Client struct {
	base    *url.URL
	http    *http.Client
	key     string
	agent   string
	retries int
	backoff time.Duration
	maxWait time.Duration
	onRetry func(err error, wait time.Duration)
}

// Option configures a Client.
type Option func(*Client)

// WithAPIKey sends key as the bearer token of every request.
func WithAPIKey(key string) Option { return func(c *Client) { c.key = key } }

// WithHTTPClient uses hc for the requests (its timeout, transport, proxy).
func WithHTTPClient(hc *http.Client) Option { return func(c *Client) { c.http = hc } }

// WithRetries sets how many times an answer 429 or 503 is retried (default
// 3; 0 never retries) and the first backoff (default 250 ms), doubled at
// each retry with jitter. A Retry-After header replaces the backoff.
func WithRetries(n int, backoff time.Duration) Option {
	return func(c *Client) { c.retries, c.backoff = n, backoff }
}

// WithMaxRetryWait bounds one wait before a retry (default 30 s): a
// Retry-After longer than that is not waited for, and the answer is returned.
func WithMaxRetryWait(d time.Duration) Option { return func(c *Client) { c.maxWait = d } }

// WithRetryHook calls f before each wait for a retry, with the answer being
// retried and the wait (to count or log retries).
func WithRetryHook(f func(err error, wait time.Duration)) Option {
	return func(c *Client) { c.onRetry = f }
}

// WithUserAgent sets the User-Agent header.
func WithUserAgent(ua string) Option { return func(c *Client) { c.agent = ua } }

// DefaultHTTPClient is the transport New uses without WithHTTPClient: no
// overall timeout (calls are bounded by their context) and enough idle
// connections per host for 64 concurrent callers.
func DefaultHTTPClient() *http.Client {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConnsPerHost = 64
	return &http.Client{Transport: tr}
}

// New returns a client of the server at baseURL, an absolute http(s) URL
// such as "http://127.0.0.1:8080" (a path prefix and a trailing slash are
// allowed).
func New(baseURL string, opts ...Option) (*Client, error) {
	u, err := url.Parse(strings.TrimRight(baseURL, "/"))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("%w: %q is not an http(s) base URL such as http://127.0.0.1:8080", ErrBaseURL, baseURL)
	}
	c := &Client{base: u, agent: "kgmem-go-client", retries: 3, backoff: 250 * time.Millisecond, maxWait: 30 * time.Second}
	for _, o := range opts {
		o(c)
	}
	if c.http == nil {
		c.http = DefaultHTTPClient()
	}
	if c.retries < 0 {
		c.retries = 0
	}
	return c, nil
}

// ErrBaseURL is returned by New for a base URL it cannot use; it wraps
// kgmem.ErrInvalid.
var ErrBaseURL = fmt.Errorf("%w: client base URL", kgmem.ErrInvalid)

// BaseURL returns the server's base URL, without a trailing slash.
func (c *Client) BaseURL() string { return c.base.String() }

// call is one request: method, path (with its escaped parameters), query,
// JSON body (nil: none) and where to decode a 2xx JSON answer (nil: drop it).
type call struct {
	method string
	path   string
	query  url.Values
	body   any
	out    any
}

// do runs a call, retrying 429 and 503 answers, and returns the status of
// the last answer. Any answer outside 2xx is an *Error.
func (c *Client) do(ctx context.Context, cl call) (int, error) {
	var payload []byte
	if cl.body != nil {
		var err error
		if payload, err = json.Marshal(cl.body); err != nil {
			return 0, fmt.Errorf("%s %s: encode request: %w", cl.method, cl.path, err)
		}
	}
	u := *c.base
	u.Path, u.RawPath = c.base.Path+mustUnescape(cl.path), c.base.EscapedPath()+cl.path
	u.RawQuery = cl.query.Encode()
	for attempt := 0; ; attempt++ {
		status, retryAfter, err := c.once(ctx, cl, u.String(), payload)
		var apiErr *Error
		if err == nil || !errors.As(err, &apiErr) || !retryable(apiErr.Status) || attempt >= c.retries {
			return status, err
		}
		// The retry policy kgmem's LLM and embedding calls share: the
		// answer's Retry-After, else backoff with jitter in [d/2, d].
		wait := retry.Policy{Base: c.backoff}.Wait(attempt, retryAfter)
		if wait > c.maxWait {
			return status, err
		}
		if c.onRetry != nil {
			c.onRetry(err, wait)
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return status, fmt.Errorf("%s %s: %w (retrying after: %w)", cl.method, cl.path, ctx.Err(), err)
		case <-t.C:
		}
	}
}

// once sends the request once and returns the status, the Retry-After
// delay of the answer (0 when absent) and its error.
func (c *Client) once(ctx context.Context, cl call, target string, payload []byte) (int, time.Duration, error) {
	var body io.Reader
	if payload != nil {
		body = bytes.NewReader(payload)
	}
	req, err := http.NewRequestWithContext(ctx, cl.method, target, body)
	if err != nil {
		return 0, 0, fmt.Errorf("%s %s: %w", cl.method, cl.path, err)
	}
	if payload != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Accept", "application/json, application/problem+json")
	req.Header.Set("User-Agent", c.agent)
	if c.key != "" {
		req.Header.Set("Authorization", "Bearer "+c.key)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return 0, 0, fmt.Errorf("%s %s: %w", cl.method, cl.path, ctx.Err())
		}
		return 0, 0, fmt.Errorf("%w: %s %s: %w (is a kgmem server running at %s? start one with `go run ./cmd/server`)",
			kgmem.ErrUnavailable, cl.method, cl.path, err, c.base)
	}
	defer resp.Body.Close()
	raw, err := readAnswer(resp)
	if err != nil {
		if ctx.Err() != nil {
			return resp.StatusCode, 0, fmt.Errorf("%s %s: read answer: %w", cl.method, cl.path, ctx.Err())
		}
		// The connection broke mid-answer: the server went away.
		return resp.StatusCode, 0, fmt.Errorf("%w: %s %s: read answer: %w", kgmem.ErrUnavailable, cl.method, cl.path, err)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return resp.StatusCode, retry.After(resp.Header, time.Now()), newError(cl.method, cl.path, resp, raw)
	}
	switch out := cl.out.(type) {
	case nil:
	case *[]byte:
		*out = raw
	default:
		if err := decodeAnswer(raw, out); err != nil {
			return resp.StatusCode, 0, fmt.Errorf("%s %s: decode answer: %w", cl.method, cl.path, err)
		}
	}
	return resp.StatusCode, 0, nil
}

// decodeAnswer decodes a server's JSON answer into out with goccy/go-json:
// the same values as encoding/json (TestDecodeAnswer compares them) in
// about a quarter of the time on a search's answer (BenchmarkDecodeAnswer),
// which was most of what a client process spent per search.
func decodeAnswer(raw []byte, out any) error {
	return gojson.Unmarshal(raw, out)
}

// maxPresizedAnswer bounds the buffer readAnswer allocates up front from a
// Content-Length, so that a wrong header cannot ask for any amount of memory.
const maxPresizedAnswer = 64 << 20

// readAnswer reads resp's body whole: in one allocation when the server
// said its length (kgmem's server does), where io.ReadAll starts at 512
// bytes and copies as it grows.
func readAnswer(resp *http.Response) ([]byte, error) {
	n := resp.ContentLength
	if n < 0 || n > maxPresizedAnswer {
		return io.ReadAll(resp.Body)
	}
	raw := make([]byte, n)
	if _, err := io.ReadFull(resp.Body, raw); err != nil {
		return nil, err
	}
	return raw, nil
}

// retryable reports the statuses worth another try: rate limited, or a
// backend unavailable for now.
func retryable(status int) bool {
	return status == http.StatusTooManyRequests || status == http.StatusServiceUnavailable
}

// mustUnescape undoes the path escaping of segments built with
// url.PathEscape (always valid).
func mustUnescape(p string) string {
	s, err := url.PathUnescape(p)
	if err != nil {
		return p
	}
	return s
}
