package memory

import (
	"context"
	"fmt"

	"github.com/kgmem/kgmem"
)

// maxReported bounds the example keys a ConsistencyReport lists.
const maxReported = 20

// ConsistencyReport compares the vectors of one namespace with its graph.
type ConsistencyReport struct {
	Namespace kgmem.Namespace `json:"namespace"`
	// GraphRecords counts episodes, facts (history included), entities and
	// items with text (an item without text has no vector).
	GraphRecords int `json:"graph_records"`
	// Vectors counts the vectors the index holds for the namespace.
	Vectors int `json:"vectors"`
	// MissingVectors counts graph records without a vector, leaving out those
	// whose text embeds to a zero vector (Unembeddable: nothing to store).
	MissingVectors int `json:"missing_vectors"`
	Unembeddable   int `json:"unembeddable"`
	// OrphanVectors counts vectors without a graph record of their kind.
	OrphanVectors int `json:"orphan_vectors"`
	// Queued counts the namespace's ops waiting in this engine's outbox
	// (`server check`, which opens none, fills in those of the durable
	// outbox).
	Queued int `json:"queued"`
	// Missing and Orphans list up to 20 examples of each.
	Missing []kgmem.VectorKey `json:"missing,omitempty"`
	Orphans []kgmem.VectorKey `json:"orphans,omitempty"`
}

// Consistent reports whether graph and vectors match exactly.
func (r ConsistencyReport) Consistent() bool { return r.MissingVectors == 0 && r.OrphanVectors == 0 }

// CheckConsistency compares the vector ids of ns with its graph records, both
// ways. It reads without locking: on a live server, writes in flight (and ops
// still queued in the outbox, counted in Queued) show up as differences until
// they land.
func (e *Engine) CheckConsistency(ctx context.Context, ns kgmem.Namespace) (ConsistencyReport, error) {
	r := ConsistencyReport{Namespace: ns}
	graphKeys := map[kgmem.VectorKey]bool{}
	add := func(docs []doc, err error) (int, string, error) {
		if err != nil || len(docs) == 0 {
			return 0, "", err
		}
		for _, d := range docs {
			graphKeys[d.key] = true
		}
		return len(docs), docs[len(docs)-1].key.ID, nil
	}
	pagers := []func(after string) (int, string, error){
		func(after string) (int, string, error) {
			eps, err := e.graph.ListEpisodes(ctx, ns, kgmem.Page{After: after, Limit: reindexPage})
			return add(mapDocs(eps, episodeDoc), err)
		},
		func(after string) (int, string, error) {
			facts, err := e.graph.ListFacts(ctx, ns, kgmem.FactFilter{IncludeExpired: true, Page: kgmem.Page{After: after, Limit: reindexPage}})
			return add(mapDocs(facts, factDoc), err)
		},
		func(after string) (int, string, error) {
			ents, err := e.graph.FindEntities(ctx, ns, kgmem.EntityFilter{Page: kgmem.Page{After: after, Limit: reindexPage}})
			return add(mapDocs(ents, entityDoc), err)
		},
		func(after string) (int, string, error) {
			items, err := e.graph.ListItems(ctx, ns, kgmem.Page{After: after, Limit: reindexPage})
			if err != nil || len(items) == 0 {
				return 0, "", err
			}
			_, _, _ = add(itemDocs(items), nil) // items without text have no vector
			return len(items), items[len(items)-1].ID, nil
		},
	}
	for _, page := range pagers {
		for after := ""; ; {
			n, last, err := page(after)
			if err != nil {
				return r, fmt.Errorf("check %s: read graph: %w", ns, err)
			}
			if n < reindexPage {
				break
			}
			after = last
		}
	}
	r.GraphRecords = len(graphKeys)
	seen := map[kgmem.VectorKey]bool{}
	err := e.scanVectors(ctx, ns, func(keys []kgmem.VectorKey) error {
		for _, k := range keys {
			r.Vectors++
			seen[k] = true
			if !graphKeys[k] {
				r.OrphanVectors++
				if len(r.Orphans) < maxReported {
					r.Orphans = append(r.Orphans, k)
				}
			}
		}
		return nil
	})
	if err != nil {
		return r, fmt.Errorf("check %s: %w", ns, err)
	}
	var missing []kgmem.VectorKey
	for k := range graphKeys {
		if !seen[k] {
			missing = append(missing, k)
		}
	}
	// A record whose text embeds to a zero vector has nothing to store.
	for start := 0; start < len(missing); start += reindexPage {
		chunk := missing[start:min(start+reindexPage, len(missing))]
		docs, err := e.loadDocs(ctx, ns, chunk)
		if err != nil {
			return r, fmt.Errorf("check %s: %w", ns, err)
		}
		_, zero, err := e.embedDocs(ctx, ns, docs)
		if err != nil {
			return r, fmt.Errorf("check %s: %w", ns, err)
		}
		unembeddable := map[kgmem.VectorKey]bool{}
		for _, k := range zero {
			unembeddable[k] = true
		}
		r.Unembeddable += len(zero)
		for _, k := range chunk {
			if !unembeddable[k] {
				r.MissingVectors++
				if len(r.Missing) < maxReported {
					r.Missing = append(r.Missing, k)
				}
			}
		}
	}
	for _, op := range e.outbox.box.Pending(0) {
		if op.Namespace == ns {
			r.Queued++
		}
	}
	return r, nil
}

// CheckAllConsistency checks every namespace the graph holds.
func (e *Engine) CheckAllConsistency(ctx context.Context) ([]ConsistencyReport, error) {
	nss, err := e.graph.Namespaces(ctx)
	if err != nil {
		return nil, fmt.Errorf("list namespaces: %w", err)
	}
	out := make([]ConsistencyReport, 0, len(nss))
	for _, ns := range nss {
		r, err := e.CheckConsistency(ctx, ns)
		if err != nil {
			return out, err
		}
		out = append(out, r)
	}
	return out, nil
}
