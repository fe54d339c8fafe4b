package importer

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync/atomic"
	"time"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/api/wire"
	"github.com/kgmem/kgmem/client"
	"github.com/kgmem/kgmem/episodes"
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
// (the checkpoint keeps it for the next run). A server that cannot be
// reached (connection refused, reset, or closed before its answer: a
// restart) is retried with backoff for up to the outage allowance
// (DefaultOutageAllowance; SetOutageAllowance) counted from the batch's first
// failure. Re-sending a batch is safe: a message is keyed by its namespace,
// thread and id, and the server answers a message it already stored as
// existing.
type HTTPSink struct {
	client  *client.Client
	retries atomic.Int64
	outage  time.Duration
}

// DefaultOutageAllowance is how long an HTTPSink keeps retrying a batch while
// the server cannot be reached.
const DefaultOutageAllowance = 2 * time.Minute

// Backoff between attempts while the server cannot be reached: doubled from
// the first to the last, with jitter.
const (
	outageFirstWait = 250 * time.Millisecond
	outageMaxWait   = 5 * time.Second
)

// NewHTTPSink returns a sink posting to the server at baseURL with apiKey
// (empty: none); opts adjust the client (for instance client.WithRetries).
func NewHTTPSink(baseURL, apiKey string, opts ...client.Option) (*HTTPSink, error) {
	s := &HTTPSink{outage: DefaultOutageAllowance}
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

// SetOutageAllowance sets how long a batch is retried while the server
// cannot be reached (0: not at all). Call it before the first Ingest.
func (s *HTTPSink) SetOutageAllowance(d time.Duration) { s.outage = max(d, 0) }

// Retries counts the attempts repeated after a 429 or 503 answer or an
// unreachable server.
func (s *HTTPSink) Retries() int64 { return s.retries.Load() }

// Ingest implements Sink.
func (s *HTTPSink) Ingest(ctx context.Context, req memory.IngestRequest) (memory.IngestResult, error) {
	body := wire.MemoriesRequest{Namespace: req.Namespace, ThreadID: req.ThreadID, Extract: req.Extract, Schema: req.Schema,
		Messages: episodes.WireMessages(req.Messages)}
	var deadline time.Time
	wait := outageFirstWait
	for {
		answer, _, err := s.client.AddMemories(ctx, body)
		res := engineIngestResult(answer)
		if err == nil || !unreachable(err) || ctx.Err() != nil {
			return res, err
		}
		if deadline.IsZero() {
			deadline = time.Now().Add(s.outage)
		}
		pause := wait/2 + rand.N(wait/2+1) // jitter: [wait/2, wait]
		if time.Until(deadline) < pause {
			return res, fmt.Errorf("server unreachable for %s (the outage allowance): %w", s.outage, err)
		}
		s.retries.Add(1)
		t := time.NewTimer(pause)
		select {
		case <-ctx.Done():
			t.Stop()
			return res, fmt.Errorf("%w (retrying after: %w)", ctx.Err(), err)
		case <-t.C:
		}
		wait = min(2*wait, outageMaxWait)
	}
}

// unreachable tells a failure to reach the server (no answer at all) from an
// answer: the client has already retried the answers worth retrying.
func unreachable(err error) bool {
	var answer *client.Error
	return !errors.As(err, &answer) && errors.Is(err, kgmem.ErrUnavailable)
}

// engineIngestResult is a server's answer to an ingest as the engine's
// result, the one a Sink returns.
func engineIngestResult(w wire.IngestResult) memory.IngestResult {
	var eps []memory.EpisodeStatus
	if w.Episodes != nil {
		eps = make([]memory.EpisodeStatus, len(w.Episodes))
		for i, e := range w.Episodes {
			eps[i] = memory.EpisodeStatus{Episode: e.Episode, Created: e.Created}
		}
	}
	return memory.IngestResult{Episodes: eps, Facts: w.Facts, Usage: w.Usage, Warnings: w.Warnings, JobID: w.JobID}
}
