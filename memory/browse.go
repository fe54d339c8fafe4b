package memory

import (
	"context"
	"fmt"
	"strings"

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
// order, missing ones left out), or else all of them in id order; either
// way those with ids after Page.After, at most Page.Limit.
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
		eps = filterNamed(eps, req.Page, func(ep kgmem.Episode) string { return ep.ID }, func(kgmem.Episode) bool { return true })
	} else {
		eps, err = e.graph.ListEpisodes(ctx, req.Namespace, req.Page)
	}
	if err != nil {
		return nil, fmt.Errorf("list episodes: %w", err)
	}
	return nonNil(eps), nil
}

// filterNamed applies a listing's filters to records fetched by id (kept in
// the order they were named): those that match keep, with ids after
// page.After, at most page.Limit of them (0: no limit).
func filterNamed[T any](recs []T, page kgmem.Page, id func(T) string, keep func(T) bool) []T {
	out := recs[:0]
	for _, r := range recs {
		if page.Limit > 0 && len(out) == page.Limit {
			break
		}
		if (page.After == "" || id(r) > page.After) && keep(r) {
			out = append(out, r)
		}
	}
	return out
}

// matchesName reports whether q is in the entity's name or one of its
// aliases, ignoring case: the Query rule of entity listings.
func matchesName(ent kgmem.Entity, q string) bool {
	q = strings.ToLower(q)
	if strings.Contains(strings.ToLower(ent.Name), q) {
		return true
	}
	for _, a := range ent.Aliases {
		if strings.Contains(strings.ToLower(a), q) {
			return true
		}
	}
	return false
}
