package longmemeval

import (
	"context"
	"errors"
	"fmt"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/api/wire"
	kgclient "github.com/kgmem/kgmem/client"
	"github.com/kgmem/kgmem/episodes"
	"github.com/kgmem/kgmem/memory"
)

// Memory is what the benchmark asks of kgmem: the engine in this process
// (EngineMemory) or a server through the Go client (ClientMemory).
type Memory interface {
	// Purge deletes everything of ns (a namespace that does not exist is no error).
	Purge(ctx context.Context, ns kgmem.Namespace) error
	// Ingest stores one pack of thread batches of ns (see Packs) and returns
	// the episodes reported back and the requests it took.
	Ingest(ctx context.Context, ns kgmem.Namespace, pack []ThreadBatch) (episodes, requests int, err error)
	// Search returns the message ids of the first limit episodes found for query, in rank order.
	Search(ctx context.Context, ns kgmem.Namespace, query string, limit int) ([]string, error)
}

// EngineMemory is an in-process engine as a Memory.
func EngineMemory(e *memory.Engine) Memory { return engineMemory{e} }

type engineMemory struct{ e *memory.Engine }

func (m engineMemory) Purge(ctx context.Context, ns kgmem.Namespace) error {
	_, err := m.e.PurgeNamespace(ctx, ns)
	return err
}

// Ingest writes the pack in one engine call (memory.Engine.IngestThreads,
// as bulk imports do).
func (m engineMemory) Ingest(ctx context.Context, ns kgmem.Namespace, pack []ThreadBatch) (int, int, error) {
	reqs := make([]memory.IngestRequest, len(pack))
	for i, b := range pack {
		reqs[i] = memory.IngestRequest{Namespace: ns, ThreadID: b.Thread, Messages: b.Messages}
	}
	res, err := m.e.IngestThreads(ctx, ns, reqs)
	n := 0
	for _, r := range res {
		n += len(r.Episodes)
	}
	return n, 1, err
}

func (m engineMemory) Search(ctx context.Context, ns kgmem.Namespace, query string, limit int) ([]string, error) {
	res, err := m.e.Search(ctx, memory.SearchRequest{Namespace: ns, Query: query, Limit: limit, Include: []kgmem.Kind{kgmem.KindEpisode}})
	if err != nil {
		return nil, err
	}
	ids := make([]string, len(res.Episodes))
	for i, ep := range res.Episodes {
		ids[i] = ep.MessageID
	}
	return ids, nil
}

// ClientMemory is a kgmem server, through its Go client, as a Memory.
// Searches do not reinforce what they return, so that the order of the
// questions does not change the figures.
func ClientMemory(c *kgclient.Client) Memory { return clientMemory{c} }

type clientMemory struct{ c *kgclient.Client }

func (m clientMemory) Purge(ctx context.Context, ns kgmem.Namespace) error {
	if _, err := m.c.PurgeNamespace(ctx, ns); err != nil && !errors.Is(err, kgmem.ErrNotFound) {
		return err
	}
	return nil
}

// Ingest posts each thread batch of the pack (POST /v1/memories takes one
// thread per request).
func (m clientMemory) Ingest(ctx context.Context, ns kgmem.Namespace, pack []ThreadBatch) (int, int, error) {
	n := 0
	for i, b := range pack {
		res, _, err := m.c.AddMemories(ctx, wire.MemoriesRequest{Namespace: ns, ThreadID: b.Thread, Messages: episodes.WireMessages(b.Messages)})
		if err != nil {
			return n, i, fmt.Errorf("thread %s: %w", b.Thread, err)
		}
		n += len(res.Episodes)
	}
	return n, len(pack), nil
}

func (m clientMemory) Search(ctx context.Context, ns kgmem.Namespace, query string, limit int) ([]string, error) {
	reinforce := false
	res, err := m.c.Search(ctx, wire.SearchRequest{Namespace: ns, Query: query, Limit: limit, Include: []string{"episodes"}, Reinforce: &reinforce})
	if err != nil {
		return nil, err
	}
	ids := make([]string, len(res.Episodes))
	for i, ep := range res.Episodes {
		ids[i] = ep.MessageID
	}
	return ids, nil
}
