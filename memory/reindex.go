package memory

import (
	"context"
	"fmt"
	"time"

	"github.com/kgmem/kgmem"
)

// reindexPage is how many graph records (and vector ids) one reindex step reads.
const reindexPage = 500

// ReindexStats reports what a reindex of one namespace did.
type ReindexStats struct {
	Namespace kgmem.Namespace `json:"namespace"`
	// Episodes, Facts and Entities count the graph records read.
	Episodes int `json:"episodes"`
	Facts    int `json:"facts"`
	Entities int `json:"entities"`
	Items    int `json:"items"`
	// Upserted counts vectors written; Unembeddable records whose text embeds
	// to a zero vector (nothing to store; any old vector is deleted).
	Upserted     int `json:"upserted"`
	Unembeddable int `json:"unembeddable"`
	// OrphansDeleted counts vectors deleted because their record is gone.
	OrphansDeleted int           `json:"orphans_deleted"`
	Duration       time.Duration `json:"duration_ns"`
}

// Reindex rebuilds the vectors of ns from the graph: it pages through every
// episode, fact (history included) and entity, embeds them in batches and
// upserts them, then deletes every vector of ns whose record no longer
// exists. It is idempotent. Each page is read and written under the
// namespace's write lock, so it never races an ingest or a delete; writes
// between pages are seen by the pages after them.
func (e *Engine) Reindex(ctx context.Context, ns kgmem.Namespace) (ReindexStats, error) {
	start := time.Now()
	st := ReindexStats{Namespace: ns}
	steps := []struct {
		kind  kgmem.Kind
		count *int
		page  func(after string) ([]doc, error)
	}{
		{kgmem.KindEpisode, &st.Episodes, func(after string) ([]doc, error) {
			eps, err := e.graph.ListEpisodes(ctx, ns, kgmem.Page{After: after, Limit: reindexPage})
			return mapDocs(eps, episodeDoc), err
		}},
		{kgmem.KindFact, &st.Facts, func(after string) ([]doc, error) {
			facts, err := e.graph.ListFacts(ctx, ns, kgmem.FactFilter{IncludeExpired: true, Page: kgmem.Page{After: after, Limit: reindexPage}})
			return mapDocs(facts, factDoc), err
		}},
		{kgmem.KindEntity, &st.Entities, func(after string) ([]doc, error) {
			ents, err := e.graph.FindEntities(ctx, ns, kgmem.EntityFilter{Page: kgmem.Page{After: after, Limit: reindexPage}})
			return mapDocs(ents, entityDoc), err
		}},
		{kgmem.KindItem, &st.Items, func(after string) ([]doc, error) {
			items, err := e.graph.ListItems(ctx, ns, kgmem.Page{After: after, Limit: reindexPage})
			return mapDocs(items, itemDoc), err
		}},
	}
	for _, step := range steps {
		after := ""
		for {
			n, last, ss, err := e.reindexPage(ctx, ns, after, step.page)
			if err != nil {
				return st, fmt.Errorf("reindex %s %ss after %q: %w", ns, step.kind, after, err)
			}
			*step.count += n
			st.Upserted += ss.Upserted
			st.Unembeddable += ss.Unembeddable
			if n < reindexPage {
				break
			}
			after = last
		}
	}
	unlock, err := e.lockNamespace(ctx, ns)
	if err != nil {
		return st, fmt.Errorf("reindex %s: %w", ns, err)
	}
	deleted, err := e.removeOrphans(ctx, ns)
	unlock()
	st.OrphansDeleted = deleted
	st.Duration = time.Since(start)
	if err != nil {
		return st, fmt.Errorf("reindex %s: %w", ns, err)
	}
	return st, nil
}

// reindexPage reads one page of records and writes their vectors under the
// namespace lock; it returns the page's size and last id.
func (e *Engine) reindexPage(ctx context.Context, ns kgmem.Namespace, after string, page func(string) ([]doc, error)) (int, string, syncStats, error) {
	unlock, err := e.lockNamespace(ctx, ns)
	if err != nil {
		return 0, "", syncStats{}, err
	}
	defer unlock()
	docs, err := page(after)
	if err != nil {
		return 0, "", syncStats{}, err
	}
	if len(docs) == 0 {
		return 0, "", syncStats{}, nil
	}
	records, zero, err := e.embedDocs(ctx, ns, docs)
	if err != nil {
		return 0, "", syncStats{}, err
	}
	if err := e.writeVectors(ctx, ns, records, zero); err != nil {
		return 0, "", syncStats{}, err
	}
	return len(docs), docs[len(docs)-1].key.ID, syncStats{Upserted: len(records), Unembeddable: len(zero)}, nil
}

func mapDocs[T any](records []T, fn func(T) doc) []doc {
	out := make([]doc, len(records))
	for i, r := range records {
		out[i] = fn(r)
	}
	return out
}

// ReindexAll reindexes every namespace the graph holds.
func (e *Engine) ReindexAll(ctx context.Context) ([]ReindexStats, error) {
	nss, err := e.graph.Namespaces(ctx)
	if err != nil {
		return nil, fmt.Errorf("list namespaces: %w", err)
	}
	out := make([]ReindexStats, 0, len(nss))
	for _, ns := range nss {
		st, err := e.Reindex(ctx, ns)
		if err != nil {
			return out, err
		}
		out = append(out, st)
	}
	return out, nil
}

// removeOrphans deletes every vector of ns whose record the graph no longer
// holds (under its kind) and returns how many. The caller holds the namespace lock.
func (e *Engine) removeOrphans(ctx context.Context, ns kgmem.Namespace) (int, error) {
	deleted := 0
	err := e.scanVectors(ctx, ns, func(keys []kgmem.VectorKey) error {
		orphans, err := e.missingFromGraph(ctx, ns, keys)
		if err != nil {
			return err
		}
		if len(orphans) == 0 {
			return nil
		}
		if err := e.writeVectors(ctx, ns, nil, orphans); err != nil {
			return err
		}
		deleted += len(orphans)
		return nil
	})
	return deleted, err
}

// scanVectors calls fn with each page of the vector ids of ns, in id order.
func (e *Engine) scanVectors(ctx context.Context, ns kgmem.Namespace, fn func([]kgmem.VectorKey) error) error {
	after := ""
	for {
		keys, err := e.vectors.ListIDs(ctx, ns, kgmem.Page{After: after, Limit: reindexPage})
		if err != nil {
			return fmt.Errorf("list vector ids of %s: %w", ns, err)
		}
		if len(keys) > 0 {
			if err := fn(keys); err != nil {
				return err
			}
		}
		if len(keys) < reindexPage {
			return nil
		}
		after = keys[len(keys)-1].ID
	}
}

// missingFromGraph returns the keys whose record ns does not hold.
func (e *Engine) missingFromGraph(ctx context.Context, ns kgmem.Namespace, keys []kgmem.VectorKey) ([]kgmem.VectorKey, error) {
	docs, err := e.loadDocs(ctx, ns, keys)
	if err != nil {
		return nil, err
	}
	found := make(map[kgmem.VectorKey]bool, len(docs))
	for _, d := range docs {
		found[d.key] = true
	}
	var out []kgmem.VectorKey
	for _, k := range keys {
		if !found[k] {
			out = append(out, k)
		}
	}
	return out, nil
}

// rebuildBackoff bounds the wait between failed passes of RebuildVectors.
const (
	rebuildMinBackoff = time.Second
	rebuildMaxBackoff = 30 * time.Second
)

// RebuildVectors rebuilds the vector index from the graph (ReindexAll),
// retrying a failed pass with backoff, until a pass succeeds or ctx ends.
// A vector index that lost its collection calls it in the background; a
// call while a rebuild runs makes that one pass again rather than run
// beside it. VectorsRebuilding reports it meanwhile (on /readyz). It
// reports whether this call rebuilt (false: it left the work to the
// running one, which returns once it is done).
func (e *Engine) RebuildVectors(ctx context.Context) (bool, error) {
	o := e.outbox
	o.rebuildAgain.Store(true)
	ran := false
	for {
		if !o.rebuilding.CompareAndSwap(0, 1) {
			return ran, nil // the running rebuild passes again
		}
		ran = true
		err := e.rebuildPasses(ctx)
		o.rebuilding.Store(0)
		// A request that came after the last pass began and before the
		// flag was cleared found the rebuild running: take it up.
		if err != nil || !o.rebuildAgain.Load() {
			if err == nil {
				e.VectorsRecovered()
			}
			return ran, err
		}
	}
}

// rebuildPasses reindexes everything while passes are asked for.
func (e *Engine) rebuildPasses(ctx context.Context) error {
	o := e.outbox
	backoff := rebuildMinBackoff
	for o.rebuildAgain.Swap(false) {
		start := time.Now()
		stats, err := e.ReindexAll(ctx)
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			e.log.WarnContext(ctx, "rebuilding the vector index failed; will retry", "retry_in", backoff, "error", err)
			o.rebuildAgain.Store(true)
			t := time.NewTimer(backoff)
			select {
			case <-ctx.Done():
				t.Stop()
				return ctx.Err()
			case <-t.C:
			}
			backoff = min(2*backoff, rebuildMaxBackoff)
			continue
		}
		upserted := 0
		for _, st := range stats {
			upserted += st.Upserted
		}
		e.log.InfoContext(ctx, "vector index rebuilt from the graph", "namespaces", len(stats), "upserted", upserted, "took", time.Since(start))
		backoff = rebuildMinBackoff
	}
	return nil
}

// VectorsRebuilding reports whether RebuildVectors is running.
func (e *Engine) VectorsRebuilding() bool { return e.outbox.rebuilding.Load() > 0 }
