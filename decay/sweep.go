package decay

import (
	"context"
	"fmt"
	"time"

	"github.com/kgmem/kgmem"
)

// sweepPage is how many records the sweep reads per store call.
const sweepPage = 200

// SweepCounts counts what the sweep saw of one record kind.
type SweepCounts struct {
	// Scanned records of the kind.
	Scanned int `json:"scanned"`
	// Forgotten records newly marked forgotten by this sweep.
	Forgotten int `json:"forgotten"`
	// Pinned records skipped because they never decay (pinned or evergreen).
	Pinned int `json:"pinned"`
	// AlreadyForgotten records skipped because an earlier sweep forgot them.
	AlreadyForgotten int `json:"already_forgotten"`
}

func (c SweepCounts) add(o SweepCounts) SweepCounts {
	return SweepCounts{
		Scanned:          c.Scanned + o.Scanned,
		Forgotten:        c.Forgotten + o.Forgotten,
		Pinned:           c.Pinned + o.Pinned,
		AlreadyForgotten: c.AlreadyForgotten + o.AlreadyForgotten,
	}
}

// SweepStats reports one forgetting sweep of a namespace.
type SweepStats struct {
	Facts    SweepCounts `json:"facts"`
	Entities SweepCounts `json:"entities"`
	Episodes SweepCounts `json:"episodes"`
	// Items are never forgotten: an item lives until it is deleted or its
	// TTL runs out, so the sweep leaves them alone and Items stays zero.
	Items SweepCounts `json:"items"`
	// ExpiredItems counts the items whose TTL ran out that the sweep of
	// the namespace deleted (memory.Engine.Sweep; decay.Sweep leaves it 0).
	ExpiredItems int `json:"expired_items"`
	// Disabled is true when the namespace's decay is off and nothing was scanned.
	Disabled bool `json:"disabled,omitempty"`
}

// Total sums the counts over the kinds.
func (s SweepStats) Total() SweepCounts {
	return s.Facts.add(s.Entities).add(s.Episodes).add(s.Items)
}

// Sweep soft-forgets the records of ns whose retention at now is below the
// model's forget threshold: it pages through every fact (current and
// historical), entity and episode of ns and sets DecayState.ForgottenAt = now
// on those due (see Model.Due), writing each page's changes with one SetDecay
// call. Items are exempt: they are kept until deleted or expired (their
// TTL), as LangGraph's stores keep them, and the forgetting curve only
// weighs them in search. It never deletes, never forgets pinned or evergreen records, and leaves
// already forgotten ones untouched. Records never anchored in time are aged
// from their creation time. When the model is disabled it does nothing.
//
// A failed write stops the sweep with an error; pages already written stay
// written, and running the sweep again is safe.
func Sweep(ctx context.Context, store kgmem.GraphStore, ns kgmem.Namespace, model Model, now time.Time) (SweepStats, error) {
	var stats SweepStats
	if _, err := kgmem.ParseNamespace(string(ns)); err != nil {
		return stats, fmt.Errorf("sweep: %w", err)
	}
	if !model.Params().Enabled {
		stats.Disabled = true
		return stats, nil
	}
	var err error
	stats.Facts, err = sweepKind(ctx, store, ns, model, now, func(page kgmem.Page) ([]record, error) {
		facts, err := store.ListFacts(ctx, ns, kgmem.FactFilter{IncludeExpired: true, Page: page})
		return mapRecords(facts, factRecord), err
	})
	if err != nil {
		return stats, fmt.Errorf("sweep facts of %s: %w", ns, err)
	}
	stats.Entities, err = sweepKind(ctx, store, ns, model, now, func(page kgmem.Page) ([]record, error) {
		entities, err := store.FindEntities(ctx, ns, kgmem.EntityFilter{Page: page})
		return mapRecords(entities, entityRecord), err
	})
	if err != nil {
		return stats, fmt.Errorf("sweep entities of %s: %w", ns, err)
	}
	stats.Episodes, err = sweepKind(ctx, store, ns, model, now, func(page kgmem.Page) ([]record, error) {
		episodes, err := store.ListEpisodes(ctx, ns, page)
		return mapRecords(episodes, episodeRecord), err
	})
	if err != nil {
		return stats, fmt.Errorf("sweep episodes of %s: %w", ns, err)
	}
	return stats, nil
}

func mapRecords[T any](items []T, f func(T) record) []record {
	out := make([]record, len(items))
	for i, it := range items {
		out[i] = f(it)
	}
	return out
}

// sweepKind pages through one kind with list until an empty page.
func sweepKind(ctx context.Context, store kgmem.GraphStore, ns kgmem.Namespace, model Model, now time.Time,
	list func(kgmem.Page) ([]record, error)) (SweepCounts, error) {
	var counts SweepCounts
	page := kgmem.Page{Limit: sweepPage}
	for {
		if err := ctx.Err(); err != nil {
			return counts, err
		}
		records, err := list(page)
		if err != nil {
			return counts, fmt.Errorf("list after %q: %w", page.After, err)
		}
		if len(records) == 0 {
			return counts, nil
		}
		var updates []kgmem.DecayUpdate
		for _, r := range records {
			counts.Scanned++
			s := model.Backfill(r.state, r.created)
			switch {
			case s.Forgotten():
				counts.AlreadyForgotten++
			case model.Pinned(s, r.importance):
				counts.Pinned++
			case model.Due(s, r.importance, now):
				updates = append(updates, kgmem.DecayUpdate{Kind: r.Kind, ID: r.ID, State: model.Forget(r.state, now)})
			}
		}
		if err := setDecay(ctx, store, ns, updates); err != nil {
			return counts, err
		}
		counts.Forgotten += len(updates)
		page.After = records[len(records)-1].ID
	}
}
