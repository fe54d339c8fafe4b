package decay

import (
	"context"
	"fmt"
	"time"

	"github.com/kgmem/kgmem"
	"github.com/samber/lo"
)

// Ref names one decaying record of a namespace.
type Ref struct {
	Kind kgmem.Kind `json:"kind"`
	ID   string     `json:"id"`
}

// validateRefs rejects unknown kinds and empty ids, naming the offending element.
func validateRefs(refs []Ref) error {
	for i, r := range refs {
		if !r.Kind.Valid() {
			return kgmem.Invalidf(fmt.Sprintf("refs[%d].kind", i), "must be one of fact, entity, episode, item; got %q", r.Kind)
		}
		if r.ID == "" {
			return kgmem.Invalidf(fmt.Sprintf("refs[%d].id", i), "is required")
		}
	}
	return nil
}

// record is what the decay package needs to know about one stored item.
type record struct {
	Ref
	state      kgmem.DecayState
	importance int
	created    time.Time
}

func factRecord(f kgmem.Fact) record {
	return record{Ref: Ref{kgmem.KindFact, f.ID}, state: f.Decay, importance: f.Importance, created: f.CreatedAt}
}

func entityRecord(e kgmem.Entity) record {
	return record{Ref: Ref{kgmem.KindEntity, e.ID}, state: e.Decay, created: e.CreatedAt}
}

func episodeRecord(e kgmem.Episode) record {
	created := e.CreatedAt
	if created.IsZero() {
		created = e.Timestamp
	}
	return record{Ref: Ref{kgmem.KindEpisode, e.ID}, state: e.Decay, created: created}
}

func itemRecord(it kgmem.Item) record {
	return record{Ref: Ref{kgmem.KindItem, it.ID}, state: it.Decay, created: it.CreatedAt}
}

// loadRecords reads the current decay state of refs in ns, keyed by ref. Refs
// that do not exist in ns are absent from the map.
func loadRecords(ctx context.Context, store kgmem.GraphStore, ns kgmem.Namespace, refs []Ref) (map[Ref]record, error) {
	ids := make(map[kgmem.Kind][]string, 4)
	seen := make(map[Ref]bool, len(refs))
	for _, r := range refs {
		if !seen[r] {
			seen[r] = true
			ids[r.Kind] = append(ids[r.Kind], r.ID)
		}
	}
	out := make(map[Ref]record, len(seen))
	for _, chunk := range lo.Chunk(ids[kgmem.KindFact], loadChunk) {
		facts, err := store.Facts(ctx, ns, chunk)
		if err != nil {
			return nil, fmt.Errorf("read facts of %s: %w", ns, err)
		}
		for _, f := range facts {
			out[Ref{kgmem.KindFact, f.ID}] = factRecord(f)
		}
	}
	for _, chunk := range lo.Chunk(ids[kgmem.KindEntity], loadChunk) {
		entities, err := store.Entities(ctx, ns, chunk)
		if err != nil {
			return nil, fmt.Errorf("read entities of %s: %w", ns, err)
		}
		for _, e := range entities {
			out[Ref{kgmem.KindEntity, e.ID}] = entityRecord(e)
		}
	}
	for _, chunk := range lo.Chunk(ids[kgmem.KindEpisode], loadChunk) {
		episodes, err := store.Episodes(ctx, ns, chunk)
		if err != nil {
			return nil, fmt.Errorf("read episodes of %s: %w", ns, err)
		}
		for _, e := range episodes {
			out[Ref{kgmem.KindEpisode, e.ID}] = episodeRecord(e)
		}
	}
	for _, chunk := range lo.Chunk(ids[kgmem.KindItem], loadChunk) {
		items, err := store.Items(ctx, ns, chunk)
		if err != nil {
			return nil, fmt.Errorf("read items of %s: %w", ns, err)
		}
		for _, it := range items {
			out[Ref{kgmem.KindItem, it.ID}] = itemRecord(it)
		}
	}
	return out, nil
}

// loadChunk bounds the ids per store read and the updates per SetDecay call.
const loadChunk = 500

// setDecay writes updates in chunks.
func setDecay(ctx context.Context, store kgmem.GraphStore, ns kgmem.Namespace, updates []kgmem.DecayUpdate) error {
	for _, chunk := range lo.Chunk(updates, loadChunk) {
		if err := store.SetDecay(ctx, ns, chunk); err != nil {
			return fmt.Errorf("write decay state of %d records in %s: %w", len(chunk), ns, err)
		}
	}
	return nil
}

// lookup validates refs and loads their records from ns; a missing one fails
// the call, wrapping kgmem.ErrNotFound.
func lookup(ctx context.Context, store kgmem.GraphStore, ns kgmem.Namespace, refs []Ref) (map[Ref]record, error) {
	if _, err := kgmem.ParseNamespace(string(ns)); err != nil {
		return nil, err
	}
	if len(refs) == 0 {
		return nil, kgmem.Invalidf("refs", "must name at least one record")
	}
	if err := validateRefs(refs); err != nil {
		return nil, err
	}
	records, err := loadRecords(ctx, store, ns, refs)
	if err != nil {
		return nil, err
	}
	var missing []Ref
	for _, r := range refs {
		if _, ok := records[r]; !ok {
			missing = append(missing, r)
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("%d of %d records not in namespace %s (first: %s %s): %w",
			len(missing), len(refs), ns, missing[0].Kind, missing[0].ID, kgmem.ErrNotFound)
	}
	return records, nil
}

// CheckItems reports whether every ref names a record of ns, without writing:
// an invalid ref wraps kgmem.ErrInvalid, a missing record kgmem.ErrNotFound.
func CheckItems(ctx context.Context, store kgmem.GraphStore, ns kgmem.Namespace, refs ...Ref) error {
	_, err := lookup(ctx, store, ns, refs)
	return err
}

// update applies change to each of refs in ns and writes the result, all or
// nothing as far as reads go: refs are validated and looked up first, and a
// missing one fails the call (wrapping kgmem.ErrNotFound) before anything is written.
func update(ctx context.Context, store kgmem.GraphStore, ns kgmem.Namespace, refs []Ref, change func(record) kgmem.DecayState) (int, error) {
	records, err := lookup(ctx, store, ns, refs)
	if err != nil {
		return 0, err
	}
	updates := make([]kgmem.DecayUpdate, 0, len(records))
	done := make(map[Ref]bool, len(records))
	for _, r := range refs {
		if done[r] {
			continue
		}
		done[r] = true
		updates = append(updates, kgmem.DecayUpdate{Kind: r.Kind, ID: r.ID, State: change(records[r])})
	}
	if err := setDecay(ctx, store, ns, updates); err != nil {
		return 0, err
	}
	return len(updates), nil
}

// RestoreItems remembers the given forgotten records of ns again (see
// Model.Restore) and reports how many it wrote. Records that are not forgotten
// only get their clock restarted. Invalid refs fail with kgmem.ErrInvalid and a
// missing record with kgmem.ErrNotFound, before anything is written.
func RestoreItems(ctx context.Context, store kgmem.GraphStore, ns kgmem.Namespace, model Model, now time.Time, refs ...Ref) (int, error) {
	n, err := update(ctx, store, ns, refs, func(r record) kgmem.DecayState {
		return model.Restore(model.Backfill(r.state, r.created), now)
	})
	if err != nil {
		return 0, fmt.Errorf("restore: %w", err)
	}
	return n, nil
}

// PinItems pins (pinned true) or unpins the given records of ns (see Model.Pin
// and Model.Unpin) and reports how many it wrote. Errors as for RestoreItems.
func PinItems(ctx context.Context, store kgmem.GraphStore, ns kgmem.Namespace, model Model, now time.Time, pinned bool, refs ...Ref) (int, error) {
	n, err := update(ctx, store, ns, refs, func(r record) kgmem.DecayState {
		s := model.Backfill(r.state, r.created)
		if pinned {
			return model.Pin(s, now)
		}
		return model.Unpin(s, now)
	})
	if err != nil {
		return 0, fmt.Errorf("pin: %w", err)
	}
	return n, nil
}
