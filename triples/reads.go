package triples

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/kgmem/kgmem"
)

// callReads answers the store reads of one Integrate call, each read once:
// the decided pass after the LLM judge asks for what the first pass read,
// and the judge answered about what the first pass was shown, so the second
// pass weighs the same records rather than reading them again (it did, for
// nearly every batch with a related fact: half of an ingest's reads).
// Callers serialise ingestion per namespace (Integrator), so no write of
// theirs lands between the passes. Every answer is a copy the passes may
// change: they edit the entities and facts they read.
type callReads struct {
	store kgmem.GraphStore
	ns    kgmem.Namespace
	// facts holds each ListFacts page by its filter.
	facts map[kgmem.FactFilter][]kgmem.Fact
	// entities holds each entity read by id; nil marks an id read and missing.
	entities map[string]*kgmem.Entity
	// found holds each FindEntities page by its filter (found key).
	found map[string][]kgmem.Entity
	// hits holds each SearchText result by its query (hits key).
	hits map[string][]kgmem.Hit
}

// newCallReads starts the reads of one Integrate call on ns.
func newCallReads(store kgmem.GraphStore, ns kgmem.Namespace) *callReads {
	return &callReads{store: store, ns: ns,
		facts: map[kgmem.FactFilter][]kgmem.Fact{}, entities: map[string]*kgmem.Entity{},
		found: map[string][]kgmem.Entity{}, hits: map[string][]kgmem.Hit{}}
}

// ListFacts is the store's ListFacts of the call's namespace, read once per filter.
func (r *callReads) ListFacts(ctx context.Context, f kgmem.FactFilter) ([]kgmem.Fact, error) {
	return readOnce(r.facts, f, copyFact, func() ([]kgmem.Fact, error) { return r.store.ListFacts(ctx, r.ns, f) })
}

// readOnce answers key from held, reading it into held the first time,
// and returns a copy of each value (copyOf) for the caller to change.
func readOnce[K comparable, V any](held map[K][]V, key K, copyOf func(V) V, read func() ([]V, error)) ([]V, error) {
	vs, ok := held[key]
	if !ok {
		var err error
		if vs, err = read(); err != nil {
			return nil, err
		}
		held[key] = vs
	}
	out := make([]V, len(vs))
	for i, v := range vs {
		out[i] = copyOf(v)
	}
	return out, nil
}

// Entities is the store's Entities of the call's namespace (in the order of
// ids, missing ones left out), reading only the ids not read before.
func (r *callReads) Entities(ctx context.Context, ids []string) ([]kgmem.Entity, error) {
	var unread []string
	for _, id := range ids {
		if _, ok := r.entities[id]; !ok && !slices.Contains(unread, id) {
			unread = append(unread, id)
		}
	}
	if len(unread) > 0 {
		read, err := r.store.Entities(ctx, r.ns, unread)
		if err != nil {
			return nil, err
		}
		for _, id := range unread {
			r.entities[id] = nil
		}
		for i := range read {
			r.entities[read[i].ID] = &read[i]
		}
	}
	out := make([]kgmem.Entity, 0, len(ids))
	for _, id := range ids {
		if e := r.entities[id]; e != nil {
			out = append(out, copyEntity(*e))
		}
	}
	return out, nil
}

// FindEntities is the store's FindEntities of the call's namespace, read once per filter.
func (r *callReads) FindEntities(ctx context.Context, f kgmem.EntityFilter) ([]kgmem.Entity, error) {
	key := fmt.Sprintf("%q\x00%s\x00%s\x00%s\x00%d", f.Names, f.Query, f.Type, f.After, f.Limit)
	return readOnce(r.found, key, copyEntity, func() ([]kgmem.Entity, error) { return r.store.FindEntities(ctx, r.ns, f) })
}

// SearchText is the store's SearchText of the call's namespace, run once per query.
func (r *callReads) SearchText(ctx context.Context, q kgmem.TextQuery) ([]kgmem.Hit, error) {
	kinds := make([]string, len(q.Kinds))
	for i, k := range q.Kinds {
		kinds[i] = string(k)
	}
	key := fmt.Sprintf("%s\x00%s\x00%t\x00%d", q.Text, strings.Join(kinds, ","), q.IncludeExpired, q.Limit)
	same := func(h kgmem.Hit) kgmem.Hit { return h } // hits hold no slice or map
	return readOnce(r.hits, key, same, func() ([]kgmem.Hit, error) { return r.store.SearchText(ctx, r.ns, q) })
}

// copyFact returns f with its own episode list and attributes.
func copyFact(f kgmem.Fact) kgmem.Fact {
	f.Episodes = slices.Clone(f.Episodes)
	f.Attributes = maps.Clone(f.Attributes)
	return f
}

// copyEntity returns e with its own aliases and attributes.
func copyEntity(e kgmem.Entity) kgmem.Entity {
	e.Aliases = slices.Clone(e.Aliases)
	e.Attributes = maps.Clone(e.Attributes)
	return e
}
