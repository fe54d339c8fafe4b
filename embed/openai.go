package embed

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/internal/openaicompat"
	openai "github.com/sashabaranov/go-openai"
	"golang.org/x/sync/errgroup"
)

// DimensionsParam says whether requests carry the "dimensions" field.
type DimensionsParam int

const (
	// DimensionsAuto sends it to models known to support it (OpenAI's
	// text-embedding-3 family) and omits it elsewhere.
	DimensionsAuto DimensionsParam = iota
	// DimensionsSend always sends it.
	DimensionsSend
	// DimensionsOmit never sends it; the returned length is only checked.
	DimensionsOmit
)

// OpenAIConfig configures an embedder over an OpenAI-compatible API.
type OpenAIConfig struct {
	// BaseURL is the API root: "https://api.openai.com/v1" (default), an
	// Ollama or vLLM server ("http://localhost:11434/v1"), or with Azure the
	// resource endpoint ("https://NAME.openai.azure.com").
	BaseURL string
	// APIKey is sent as a bearer token (Azure: the api-key header). Local
	// servers usually need none.
	APIKey string
	// Model is the model name (with Azure: the deployment name). Default
	// "text-embedding-3-small".
	Model string
	// Dimensions is the vector length. Required unless Model is a known
	// OpenAI model, whose native length is the default.
	Dimensions int
	// DimensionsParam says whether Dimensions is sent with each request.
	DimensionsParam DimensionsParam
	// Azure selects Azure OpenAI's URL scheme and authentication.
	Azure bool
	// AzureAPIVersion is the api-version query parameter. Default "2024-02-01".
	AzureAPIVersion string
	// BatchSize is the number of texts per request. Default 64.
	BatchSize int
	// Concurrency is how many requests one Embed call may have in flight.
	// Default 1 (sequential), the polite choice for rate-limited or
	// single-GPU servers.
	Concurrency int
	// MaxInputRunes truncates longer texts before sending, so one long
	// message cannot fail its whole batch on the model's context limit.
	// Default 8,000 (under 8,192 tokens for any common tokenizer).
	MaxInputRunes int
	// Timeout bounds each HTTP request (not the whole Embed). Default 60s.
	Timeout time.Duration
	// MaxAttempts bounds the tries of one batch on rate limits (429), server
	// errors (5xx) and network failures. Default 5.
	MaxAttempts int
	// BackoffBase is the wait before the first retry; it doubles per retry,
	// with jitter, up to BackoffMax. Defaults 500ms and 20s.
	BackoffBase, BackoffMax time.Duration
	// HTTPClient overrides the HTTP client (default: a fresh http.Client).
	HTTPClient *http.Client
}

// Default OpenAIConfig values.
const (
	DefaultOpenAIModel     = "text-embedding-3-small"
	DefaultBatchSize       = 64
	DefaultConcurrency     = 1
	DefaultMaxInputRunes   = 8000
	DefaultAzureAPIVersion = "2024-02-01"
	DefaultTimeout         = 60 * time.Second
	DefaultMaxAttempts     = 5
	DefaultBackoffBase     = 500 * time.Millisecond
	DefaultBackoffMax      = 20 * time.Second
)

// nativeDimensions are the output lengths of well-known models.
var nativeDimensions = map[string]int{
	"text-embedding-3-small": 1536,
	"text-embedding-3-large": 3072,
	"text-embedding-ada-002": 1536,
}

// OpenAI embeds texts through an OpenAI-compatible /embeddings endpoint.
// It is safe for concurrent use.
type OpenAI struct {
	client         *openai.Client
	cfg            OpenAIConfig
	sendDimensions bool
}

var _ kgmem.Embedder = (*OpenAI)(nil)

// NewOpenAI validates cfg, fills its defaults and returns the embedder. It
// makes no request.
func NewOpenAI(cfg OpenAIConfig) (*OpenAI, error) {
	if cfg.Model == "" {
		cfg.Model = DefaultOpenAIModel
	}
	if cfg.Dimensions == 0 {
		cfg.Dimensions = nativeDimensions[cfg.Model]
	}
	switch {
	case cfg.Dimensions <= 0:
		return nil, kgmem.Invalidf("dimensions", "is required for model %q (its vector length is not known)", cfg.Model)
	case cfg.BatchSize < 0:
		return nil, kgmem.Invalidf("batch_size", "must not be negative, got %d", cfg.BatchSize)
	case cfg.Concurrency < 0:
		return nil, kgmem.Invalidf("concurrency", "must not be negative, got %d", cfg.Concurrency)
	case cfg.MaxInputRunes < 0:
		return nil, kgmem.Invalidf("max_input_runes", "must not be negative, got %d", cfg.MaxInputRunes)
	case cfg.MaxAttempts < 0:
		return nil, kgmem.Invalidf("max_attempts", "must not be negative, got %d", cfg.MaxAttempts)
	case cfg.Azure && cfg.BaseURL == "":
		return nil, kgmem.Invalidf("base_url", "is required with Azure (the resource endpoint)")
	case cfg.DimensionsParam < DimensionsAuto || cfg.DimensionsParam > DimensionsOmit:
		return nil, kgmem.Invalidf("dimensions_param", "unknown value %d", cfg.DimensionsParam)
	}
	cfg.BatchSize = orDefault(cfg.BatchSize, DefaultBatchSize)
	cfg.Concurrency = orDefault(cfg.Concurrency, DefaultConcurrency)
	cfg.MaxInputRunes = orDefault(cfg.MaxInputRunes, DefaultMaxInputRunes)
	cfg.MaxAttempts = orDefault(cfg.MaxAttempts, DefaultMaxAttempts)
	cfg.Timeout = orDefault(cfg.Timeout, DefaultTimeout)
	cfg.BackoffBase = orDefault(cfg.BackoffBase, DefaultBackoffBase)
	cfg.BackoffMax = orDefault(cfg.BackoffMax, DefaultBackoffMax)
	cfg.AzureAPIVersion = orDefault(cfg.AzureAPIVersion, DefaultAzureAPIVersion)

	// The endpoint is described as extraction and the chat reranker
	// describe theirs; its client notes a 429's or 5xx's Retry-After for
	// retry (internal/retry's policy, which they share too).
	cc := openaicompat.Endpoint{BaseURL: cfg.BaseURL, APIKey: cfg.APIKey, Model: cfg.Model, Azure: cfg.Azure,
		AzureAPIVersion: cfg.AzureAPIVersion, HTTPClient: cfg.HTTPClient}.Config()
	send := cfg.DimensionsParam == DimensionsSend ||
		cfg.DimensionsParam == DimensionsAuto && strings.HasPrefix(cfg.Model, "text-embedding-3")
	return &OpenAI{client: openai.NewClientWithConfig(cc), cfg: cfg, sendDimensions: send}, nil
}

// Dimension returns the configured vector length.
func (o *OpenAI) Dimension() int { return o.cfg.Dimensions }

// Name identifies the model and its dimension, for example
// "text-embedding-3-small-1536".
func (o *OpenAI) Name() string { return fmt.Sprintf("%s-%d", o.cfg.Model, o.cfg.Dimensions) }

// Embed returns one vector per text, in order, in requests of at most
// BatchSize texts (up to Concurrency at a time). Blank texts are not sent:
// they get the zero vector; texts over MaxInputRunes are truncated. Errors
// wrap kgmem.ErrDimensionMismatch (the model returned another length),
// kgmem.ErrUnavailable (unreachable, or still failing after MaxAttempts),
// kgmem.ErrInvalid (the API refused the input) or the context's error.
func (o *OpenAI) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	var pending []int // indexes of texts to send
	for i, t := range texts {
		if strings.TrimSpace(t) == "" {
			out[i] = make([]float32, o.cfg.Dimensions)
			continue
		}
		pending = append(pending, i)
	}
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(o.cfg.Concurrency)
	for idx := range slices.Chunk(pending, o.cfg.BatchSize) {
		g.Go(func() error {
			batch := make([]string, len(idx))
			for j, i := range idx {
				batch[j] = truncate(texts[i], o.cfg.MaxInputRunes)
			}
			vecs, err := o.embedBatch(gctx, batch)
			if err != nil {
				return fmt.Errorf("embed texts %d–%d of %d with %s: %w", idx[0], idx[len(idx)-1], len(texts), o.cfg.Model, err)
			}
			for j, i := range idx {
				out[i] = vecs[j]
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	return out, nil
}

// truncate cuts s to at most n runes.
func truncate(s string, n int) string {
	if len(s) <= n { // bytes >= runes
		return s
	}
	count := 0
	for i := range s {
		if count == n {
			return s[:i]
		}
		count++
	}
	return s
}

// embedBatch sends one request, retrying transient failures.
func (o *OpenAI) embedBatch(ctx context.Context, batch []string) ([][]float32, error) {
	req := openai.EmbeddingRequest{Input: batch, Model: openai.EmbeddingModel(o.cfg.Model)}
	if o.sendDimensions {
		req.Dimensions = o.cfg.Dimensions
	}
	var resp openai.EmbeddingResponse
	err := retry(ctx, o.cfg.MaxAttempts, o.cfg.BackoffBase, o.cfg.BackoffMax, func(ctx context.Context) error {
		callCtx, cancel := context.WithTimeout(ctx, o.cfg.Timeout)
		defer cancel()
		var err error
		resp, err = o.client.CreateEmbeddings(callCtx, req)
		return err
	})
	if err != nil {
		return nil, err
	}
	return o.collect(resp, len(batch))
}

// collect orders the response's vectors and checks their number and length.
func (o *OpenAI) collect(resp openai.EmbeddingResponse, n int) ([][]float32, error) {
	if len(resp.Data) != n {
		return nil, fmt.Errorf("%w: the API returned %d embeddings for %d inputs", kgmem.ErrUnavailable, len(resp.Data), n)
	}
	out := make([][]float32, n)
	for _, d := range resp.Data {
		if d.Index < 0 || d.Index >= n || out[d.Index] != nil {
			return nil, fmt.Errorf("%w: the API returned a bad or repeated embedding index %d", kgmem.ErrUnavailable, d.Index)
		}
		if len(d.Embedding) != o.cfg.Dimensions {
			return nil, fmt.Errorf("model %s returned %d dimensions, configured for %d: %w", o.cfg.Model, len(d.Embedding), o.cfg.Dimensions, kgmem.ErrDimensionMismatch)
		}
		out[d.Index] = d.Embedding
	}
	return out, nil
}

// orDefault returns v, or def when v is the zero value.
func orDefault[T comparable](v, def T) T {
	var zero T
	if v == zero {
		return def
	}
	return v
}
