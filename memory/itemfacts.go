package memory

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/kgmem/kgmem"
)

// Facts drawn from items. With extraction asked for, an item's text is
// extracted and integrated like a message, the item standing in for the
// message as the facts' provenance (their episodes name the item's id).
// The item keeps the ids of the facts that cite it (Item.FactIDs), so that
// rewriting or deleting it updates them: a fact the item's new text no
// longer states is invalidated when the item was its only source, or
// loses the item from its provenance when other sources back it.

// itemEpisode presents an item's text to the extractor and the integrator
// as a message; it is never stored.
func itemEpisode(it kgmem.Item) kgmem.Episode {
	return kgmem.Episode{ID: it.ID, Namespace: it.Namespace, MessageID: it.Key, Content: it.Text,
		Timestamp: it.UpdatedAt, CreatedAt: it.UpdatedAt}
}

// extractItem asks the extractor for the facts of it's text (LLM failures
// are warnings, as for messages).
func (e *Engine) extractItem(ctx context.Context, it kgmem.Item) *extraction {
	return e.extractTriples(ctx, IngestRequest{Namespace: it.Namespace}, []kgmem.Episode{itemEpisode(it)})
}

// itemFactChanges is what putting or deleting an item does to facts.
type itemFactChanges struct {
	// cs holds the entities and facts to write with the item.
	cs       kgmem.ChangeSet
	changes  []kgmem.FactChange
	usage    kgmem.LLMUsage
	warnings []string
}

// itemFacts integrates x (nil: nothing was extracted, the item lost its
// text or is being deleted) for it, sets it.FactIDs to the facts that cite
// it now, and settles the facts its previous version cited (stale): see
// the comment at the top of the file. The caller holds the namespace lock.
func (e *Engine) itemFacts(ctx context.Context, it *kgmem.Item, stale []string, x *extraction, now time.Time) (itemFactChanges, error) {
	out := itemFactChanges{cs: kgmem.ChangeSet{Namespace: it.Namespace}, changes: []kgmem.FactChange{}}
	if x != nil {
		changes, facts, usage, warnings := e.integrate(ctx, IngestRequest{Namespace: it.Namespace}, x)
		// Mentions link stored messages to entities; the item is none.
		out.cs.Entities, out.cs.Facts = changes.Entities, changes.Facts
		out.changes, out.usage, out.warnings = facts, usage, warnings
	}
	// Decay is stamped on what the integration wrote; a fact only
	// losing the item as a source is not restated.
	if err := e.stampDecay(ctx, &out.cs, out.changes, now); err != nil {
		return out, err
	}
	// The facts citing the item: those written, and those the text only
	// restated (a duplicate that already cited the item is not rewritten).
	it.FactIDs = nil
	cite := func(f kgmem.Fact) {
		if slices.Contains(f.Episodes, it.ID) && f.ExpiredAt.IsZero() && !slices.Contains(it.FactIDs, f.ID) {
			it.FactIDs = append(it.FactIDs, f.ID)
		}
	}
	written := map[string]int{}
	for i, f := range out.cs.Facts {
		written[f.ID] = i
		cite(f)
	}
	for _, ch := range out.changes {
		if ch.Op == kgmem.OpDuplicate || ch.Op == kgmem.OpUpdated || ch.Op == kgmem.OpAdded {
			cite(ch.Fact)
		}
	}
	var gone []string
	for _, id := range stale {
		if !slices.Contains(it.FactIDs, id) {
			gone = append(gone, id)
		}
	}
	if len(gone) > 0 {
		facts, err := e.graph.Facts(ctx, it.Namespace, gone)
		if err != nil {
			return out, fmt.Errorf("read the facts of item %q: %w", it.Key, err)
		}
		for _, f := range facts {
			if i, ok := written[f.ID]; ok {
				f = out.cs.Facts[i] // already rewritten by this integration
			}
			f, change := unciteItem(f, it.ID, now)
			if i, ok := written[f.ID]; ok {
				out.cs.Facts[i] = f
			} else {
				out.cs.Facts = append(out.cs.Facts, f)
			}
			out.changes = append(out.changes, change)
		}
	}
	return out, nil
}

// unciteItem takes the item itemID away from f's sources: a fact with other
// sources keeps them (updated), one the item alone stated is invalidated
// at now, its provenance kept as history.
func unciteItem(f kgmem.Fact, itemID string, now time.Time) (kgmem.Fact, kgmem.FactChange) {
	others := slices.DeleteFunc(slices.Clone(f.Episodes), func(id string) bool { return id == itemID })
	if len(others) > 0 {
		f.Episodes = others
		return f, kgmem.FactChange{Op: kgmem.OpUpdated, Fact: f, Reason: "item " + itemID + " no longer states it; its other sources remain"}
	}
	if f.ExpiredAt.IsZero() {
		f.ExpiredAt = now
		if f.InvalidAt.IsZero() || f.InvalidAt.After(now) {
			f.InvalidAt = now
		}
	}
	return f, kgmem.FactChange{Op: kgmem.OpInvalidated, Fact: f, Reason: "item " + itemID + ", its only source, no longer states it"}
}
