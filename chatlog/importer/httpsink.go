package importer

import (
	"context"
	"sync/atomic"
	"time"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/api/wire"
	"github.com/kgmem/kgmem/client"
	"github.com/kgmem/kgmem/memory"
)

// Sink stores one batch of one thread; *memory.Engine is one.
type Sink interface {
	Ingest(ctx context.Context, req memory.IngestRequest) (memory.IngestResult, error)
}

// ThreadsSink is a Sink that also stores batches of several threads of one
// namespace in one write when nothing is extracted (memory.Engine's
// IngestThreads): the importer then fills each write with up to
// Config.Batch messages from the namespace's ready threads, not only one
// thread's.
type ThreadsSink interface {
	Sink
	IngestThreads(ctx context.Context, ns kgmem.Namespace, reqs []memory.IngestRequest) ([]memory.IngestResult, error)
}

// HTTPSink posts batches to a running server's POST /v1/memories through the
// Go client, which retries a 429 or 503 answer (an overloaded server or its
// LLM) after the server's Retry-After, or with exponential backoff and
// jitter: 7 retries from 500 ms, a Retry-After over 30 s failing the batch
// (the checkpoint keeps it for the next run).
type HTTPSink struct {
	client  *client.Client
	retries atomic.Int64
}

// NewHTTPSink returns a sink posting to the server at baseURL with apiKey
// (empty: none); opts adjust the client (for instance client.WithRetries).
func NewHTTPSink(baseURL, apiKey string, opts ...client.Option) (*HTTPSink, error) {
	s := &HTTPSink{}
	opts = append([]client.Option{
		client.WithAPIKey(apiKey),
		client.WithRetries(7, 500*time.Millisecond),
		client.WithRetryHook(func(error, time.Duration) { s.retries.Add(1) }),
	}, opts...)
	c, err := client.New(baseURL, opts...)
	if err != nil {
		return nil, err
	}
	s.client = c
	return s, nil
}

// Retries counts the attempts repeated after a 429 or 503.
func (s *HTTPSink) Retries() int64 { return s.retries.Load() }

// Ingest implements Sink.
func (s *HTTPSink) Ingest(ctx context.Context, req memory.IngestRequest) (memory.IngestResult, error) {
	body := wire.MemoriesRequest{Namespace: string(req.Namespace), ThreadID: req.ThreadID, Extract: req.Extract, Schema: req.Schema,
		Messages: wire.MessagesOf(req.Messages)}
	res, _, err := s.client.Ingest(ctx, body)
	return res, err
}
