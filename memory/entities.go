package memory

import (
	"context"
	"errors"
	"fmt"

	"github.com/kgmem/kgmem"
)

// Entity returns one entity of ns.
func (e *Engine) Entity(ctx context.Context, ns kgmem.Namespace, id string) (kgmem.Entity, error) {
	ent, err := e.graph.Entity(ctx, ns, id)
	if err != nil {
		return kgmem.Entity{}, fmt.Errorf("entity %q: %w", id, err)
	}
	return ent, nil
}

// ListEntitiesRequest selects entities to list: the given ids (in their
// order, missing ones left out), or else all; either way only those
// matching Query and Type, with ids after Page.After, at most Page.Limit.
type ListEntitiesRequest struct {
	Namespace kgmem.Namespace
	IDs       []string
	// Query matches names and aliases by substring, case-insensitively.
	Query string
	Type  string
	kgmem.Page
}

// ListEntities lists entities of ns.
func (e *Engine) ListEntities(ctx context.Context, req ListEntitiesRequest) ([]kgmem.Entity, error) {
	var ents []kgmem.Entity
	var err error
	if len(req.IDs) > 0 {
		ents, err = e.graph.Entities(ctx, req.Namespace, req.IDs)
		ents = filterNamed(ents, req.Page, func(ent kgmem.Entity) string { return ent.ID }, func(ent kgmem.Entity) bool {
			return (req.Type == "" || ent.Type == req.Type) && (req.Query == "" || matchesName(ent, req.Query))
		})
	} else {
		ents, err = e.graph.FindEntities(ctx, req.Namespace, kgmem.EntityFilter{Query: req.Query, Type: req.Type, Page: req.Page})
	}
	if err != nil {
		return nil, fmt.Errorf("list entities: %w", err)
	}
	return nonNil(ents), nil
}

// resolveEntity finds an entity by id, else by normalised name or alias.
func (e *Engine) resolveEntity(ctx context.Context, ns kgmem.Namespace, ref string) (kgmem.Entity, error) {
	ent, err := e.graph.Entity(ctx, ns, ref)
	if err == nil {
		return ent, nil
	}
	if !errors.Is(err, kgmem.ErrNotFound) {
		return kgmem.Entity{}, fmt.Errorf("entity %q: %w", ref, err)
	}
	ents, err := e.graph.FindEntities(ctx, ns, kgmem.EntityFilter{Names: []string{ref}, Page: kgmem.Page{Limit: 2}})
	if err != nil {
		return kgmem.Entity{}, fmt.Errorf("entity %q: %w", ref, err)
	}
	if len(ents) == 0 {
		return kgmem.Entity{}, fmt.Errorf("entity %q in namespace %q: %w", ref, ns, kgmem.ErrNotFound)
	}
	return ents[0], nil
}

// PurgeNamespace hard-deletes everything in ns, graph and vectors. The graph
// goes first (the source of truth); when the vector index then fails, the
// purge op stays in the outbox, whose drain deletes every vector of ns that
// has no graph record (so records written to ns after the purge keep theirs).
func (e *Engine) PurgeNamespace(ctx context.Context, ns kgmem.Namespace) (kgmem.PurgeStats, error) {
	unlock, err := e.lockNamespace(ctx, ns)
	if err != nil {
		return kgmem.PurgeStats{}, err
	}
	defer unlock()
	defer e.timelines.forget(ns)
	var stats kgmem.PurgeStats
	err = e.guardedWrite(ctx, purgeOps(ns),
		func() error {
			var err error
			if stats, err = e.graph.PurgeNamespace(ctx, ns); err != nil {
				return fmt.Errorf("purge graph of %q: %w", ns, err)
			}
			return nil
		},
		func(ctx context.Context) error { return e.vectors.DeleteNamespace(ctx, ns) })
	if err != nil {
		return kgmem.PurgeStats{}, err
	}
	return stats, nil
}
