package memory

import (
	"context"
	"fmt"
	"time"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/decay"
)

// stampDecay gives the records cs writes their forgetting-curve state. The
// curve starts when kgmem learns a record, not at its message's timestamp:
// an imported or back-dated message is as fresh to the engine as one said
// now (its timestamp, the world time, stays for time-aware ranking). So a
// new episode, fact or entity starts at now, and a restated fact (duplicate
// or update) or an entity mentioned again is reinforced at now. Invalidated
// facts keep their state.
func (e *Engine) stampDecay(ctx context.Context, cs *kgmem.ChangeSet, changes []kgmem.FactChange, now time.Time) error {
	model, err := e.models(ctx, cs.Namespace)
	if err != nil {
		return fmt.Errorf("decay parameters of %q: %w", cs.Namespace, err)
	}
	restated := map[string]bool{}
	for _, ch := range changes {
		if ch.Op == kgmem.OpDuplicate || ch.Op == kgmem.OpUpdated {
			restated[ch.Fact.ID] = true
		}
	}
	for i := range cs.Facts {
		f := &cs.Facts[i]
		switch {
		case f.Decay.LastReinforcedAt.IsZero():
			f.Decay = model.Initial(f.Importance, now)
		case restated[f.ID]:
			f.Decay = model.Reinforce(f.Decay, f.Importance, now)
		}
	}
	for i := range cs.Entities {
		ent := &cs.Entities[i]
		if ent.Decay.LastReinforcedAt.IsZero() {
			ent.Decay = model.Initial(0, now)
		} else {
			ent.Decay = model.Reinforce(ent.Decay, 0, now)
		}
	}
	for i := range cs.Episodes {
		cs.Episodes[i].Decay = model.Initial(0, now)
	}
	return nil
}

// reinforce records that refs were recalled; the Reinforcer applies it off the
// request path.
func (e *Engine) reinforce(ctx context.Context, ns kgmem.Namespace, refs []decay.Ref) {
	if e.reinforcer == nil || len(refs) == 0 {
		return
	}
	// A recall is safe to lose with the machine (docs/concepts/forgetting.md): the search does
	// not wait for the journal's fsync.
	if err := e.reinforcer.Record(ns, refs...); err != nil {
		e.log.WarnContext(ctx, "recording recall failed", "namespace", ns, "error", err)
	}
}

// FeedbackRequest confirms that search results were used, reinforcing them.
type FeedbackRequest struct {
	Namespace kgmem.Namespace
	Refs      []decay.Ref
}

// Feedback reinforces records the client confirms it used. Unknown ids are
// rejected so a typo is not silently ignored.
func (e *Engine) Feedback(ctx context.Context, req FeedbackRequest) error {
	if e.reinforcer == nil {
		return fmt.Errorf("%w: reinforcement is not configured on this server", kgmem.ErrConflict)
	}
	if err := checkRefCount(req.Refs); err != nil {
		return err
	}
	if err := decay.CheckItems(ctx, e.graph, req.Namespace, req.Refs...); err != nil {
		return err
	}
	return e.reinforcer.Enqueue(req.Namespace, req.Refs...)
}

// PinRequest pins (never decays) or unpins records.
type PinRequest struct {
	Namespace kgmem.Namespace
	Refs      []decay.Ref
	Pinned    bool
}

// SetPinned pins or unpins records. Pinning also restores a forgotten record.
func (e *Engine) SetPinned(ctx context.Context, req PinRequest) error {
	if err := checkRefCount(req.Refs); err != nil {
		return err
	}
	model, err := e.models(ctx, req.Namespace)
	if err != nil {
		return fmt.Errorf("decay parameters of %q: %w", req.Namespace, err)
	}
	unlock, err := e.lockNamespace(ctx, req.Namespace)
	if err != nil {
		return err
	}
	defer unlock()
	_, err = decay.PinItems(ctx, e.graph, req.Namespace, model, e.now(), req.Pinned, req.Refs...)
	return err
}

// Restore brings soft-forgotten records back into default search.
func (e *Engine) Restore(ctx context.Context, ns kgmem.Namespace, refs []decay.Ref) error {
	if err := checkRefCount(refs); err != nil {
		return err
	}
	model, err := e.models(ctx, ns)
	if err != nil {
		return fmt.Errorf("decay parameters of %q: %w", ns, err)
	}
	unlock, err := e.lockNamespace(ctx, ns)
	if err != nil {
		return err
	}
	defer unlock()
	_, err = decay.RestoreItems(ctx, e.graph, ns, model, e.now(), refs...)
	return err
}

// Sweep runs the sweeps of ns now: it deletes the items whose TTL ran out
// (as the TTL sweeper does) and soft-forgets the records whose retention
// fell below the namespace's threshold (nothing else is deleted).
func (e *Engine) Sweep(ctx context.Context, ns kgmem.Namespace) (decay.SweepStats, error) {
	if _, err := kgmem.ParseNamespace(string(ns)); err != nil {
		return decay.SweepStats{}, fmt.Errorf("sweep: %w", err)
	}
	model, err := e.models(ctx, ns)
	if err != nil {
		return decay.SweepStats{}, fmt.Errorf("decay parameters of %q: %w", ns, err)
	}
	expired, err := e.sweepExpired(ctx, ns)
	if err != nil {
		return decay.SweepStats{ExpiredItems: expired}, err
	}
	unlock, err := e.lockNamespace(ctx, ns)
	if err != nil {
		return decay.SweepStats{ExpiredItems: expired}, err
	}
	defer unlock()
	stats, err := decay.Sweep(ctx, e.graph, ns, model, e.now())
	stats.ExpiredItems = expired
	return stats, err
}

// SweepAll sweeps every namespace and returns the stats per namespace.
func (e *Engine) SweepAll(ctx context.Context) (map[kgmem.Namespace]decay.SweepStats, error) {
	nss, err := e.graph.Namespaces(ctx)
	if err != nil {
		return nil, fmt.Errorf("list namespaces: %w", err)
	}
	out := make(map[kgmem.Namespace]decay.SweepStats, len(nss))
	for _, ns := range nss {
		st, err := e.Sweep(ctx, ns)
		if err != nil {
			return out, err
		}
		out[ns] = st
	}
	return out, nil
}

// checkRefCount bounds how many records one request may name.
func checkRefCount(refs []decay.Ref) error {
	if len(refs) > maxFactsPerRequest {
		return kgmem.Invalidf("refs", "names %d records, at most %d allowed", len(refs), maxFactsPerRequest)
	}
	return nil
}

// Strengths reports how strongly each record is held now: retention, search
// weight, stability, whether the next sweep forgets it, and its forgetting
// curve. A missing record fails with kgmem.ErrNotFound; nothing is written.
func (e *Engine) Strengths(ctx context.Context, ns kgmem.Namespace, refs []decay.Ref) ([]decay.Strength, error) {
	if err := checkRefCount(refs); err != nil {
		return nil, err
	}
	model, err := e.models(ctx, ns)
	if err != nil {
		return nil, fmt.Errorf("decay parameters of %q: %w", ns, err)
	}
	return decay.Strengths(ctx, e.graph, ns, model, e.now(), refs...)
}
