package memory

import (
	"context"
	"fmt"

	"github.com/kgmem/kgmem"
)

// Namespaces lists every namespace that holds a record or settings, sorted.
func (e *Engine) Namespaces(ctx context.Context) ([]kgmem.Namespace, error) {
	nss, err := e.graph.Namespaces(ctx)
	if err != nil {
		return nil, fmt.Errorf("list namespaces: %w", err)
	}
	return nonNil(nss), nil
}

// ListEpisodesRequest selects episodes to list: the given ids (in their
// order, missing ones left out), or else a page of all of them in id order.
type ListEpisodesRequest struct {
	Namespace kgmem.Namespace
	IDs       []string
	kgmem.Page
}

// ListEpisodes lists episodes of ns (messages, with their decay state).
func (e *Engine) ListEpisodes(ctx context.Context, req ListEpisodesRequest) ([]kgmem.Episode, error) {
	var eps []kgmem.Episode
	var err error
	if len(req.IDs) > 0 {
		eps, err = e.graph.Episodes(ctx, req.Namespace, req.IDs)
	} else {
		eps, err = e.graph.ListEpisodes(ctx, req.Namespace, req.Page)
	}
	if err != nil {
		return nil, fmt.Errorf("list episodes: %w", err)
	}
	return nonNil(eps), nil
}
