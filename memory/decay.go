package memory

import (
	"context"
	"fmt"
	"time"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/decay"
)

// stampDecay gives the records cs writes their forgetting-curve state. Memory
// ages from when a thing was said, not from when it was imported: a new episode
// starts at its message timestamp, a new fact at the latest message it was drawn
// from, and a restated fact (duplicate or update) or an entity mentioned again
// is reinforced at that time. Records without a message start now.
// Invalidated facts keep their state.
func (e *Engine) stampDecay(ctx context.Context, cs *kgmem.ChangeSet, changes []kgmem.FactChange, now time.Time) error {
	model, err := e.models(ctx, cs.Namespace)
	if err != nil {
		return fmt.Errorf("decay parameters of %q: %w", cs.Namespace, err)
	}
	said := make(map[string]time.Time, len(cs.Episodes))
	batchTime := time.Time{}
	for _, ep := range cs.Episodes {
		t := ep.Timestamp
		if t.IsZero() || t.After(now) {
			t = now
		}
		said[ep.ID] = t
		if t.After(batchTime) {
			batchTime = t
		}
	}
	if batchTime.IsZero() {
		batchTime = now
	}
	saidAt := func(episodeIDs []string) time.Time {
		var latest time.Time
		for _, id := range episodeIDs {
			if t, ok := said[id]; ok && t.After(latest) {
				latest = t
			}
		}
		if latest.IsZero() {
			return now
		}
		return latest
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
			f.Decay = model.Initial(f.Importance, saidAt(f.Episodes))
		case restated[f.ID]:
			f.Decay = model.Reinforce(f.Decay, f.Importance, saidAt(f.Episodes))
		}
	}
	for i := range cs.Entities {
		ent := &cs.Entities[i]
		if ent.Decay.LastReinforcedAt.IsZero() {
			ent.Decay = model.Initial(0, batchTime)
		} else {
			ent.Decay = model.Reinforce(ent.Decay, 0, batchTime)
		}
	}
	for i := range cs.Episodes {
		cs.Episodes[i].Decay = model.Initial(0, said[cs.Episodes[i].ID])
	}
	return nil
}

// reinforce records that refs were recalled; the Reinforcer applies it off the
// request path, durably.
func (e *Engine) reinforce(ctx context.Context, ns kgmem.Namespace, refs []decay.Ref) {
	if e.reinforcer == nil || len(refs) == 0 {
		return
	}
	if err := e.reinforcer.Enqueue(ns, refs...); err != nil {
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
	if err := e.checkRefs(ctx, req.Namespace, req.Refs); err != nil {
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
	return e.updateDecay(ctx, req.Namespace, req.Refs, func(m decay.Model, s kgmem.DecayState, now time.Time) kgmem.DecayState {
		if req.Pinned {
			return m.Restore(m.Pin(s, now), now)
		}
		return m.Unpin(s, now)
	})
}

// Restore brings soft-forgotten records back into default search.
func (e *Engine) Restore(ctx context.Context, ns kgmem.Namespace, refs []decay.Ref) error {
	return e.updateDecay(ctx, ns, refs, func(m decay.Model, s kgmem.DecayState, now time.Time) kgmem.DecayState {
		return m.Restore(s, now)
	})
}

// Sweep soft-forgets the records of ns whose retention fell below the
// namespace's threshold. Nothing is deleted.
func (e *Engine) Sweep(ctx context.Context, ns kgmem.Namespace) (decay.SweepStats, error) {
	model, err := e.models(ctx, ns)
	if err != nil {
		return decay.SweepStats{}, fmt.Errorf("decay parameters of %q: %w", ns, err)
	}
	unlock := e.lockNamespace(ns)
	defer unlock()
	return decay.Sweep(ctx, e.graph, ns, model, e.now())
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

// updateDecay rewrites the decay state of refs with change, under the namespace lock.
func (e *Engine) updateDecay(ctx context.Context, ns kgmem.Namespace, refs []decay.Ref, change func(decay.Model, kgmem.DecayState, time.Time) kgmem.DecayState) error {
	model, err := e.models(ctx, ns)
	if err != nil {
		return fmt.Errorf("decay parameters of %q: %w", ns, err)
	}
	unlock := e.lockNamespace(ns)
	defer unlock()
	states, err := e.decayStates(ctx, ns, refs)
	if err != nil {
		return err
	}
	now := e.now()
	updates := make([]kgmem.DecayUpdate, len(refs))
	for i, r := range refs {
		updates[i] = kgmem.DecayUpdate{Kind: r.Kind, ID: r.ID, State: change(model, states[i], now)}
	}
	return e.graph.SetDecay(ctx, ns, updates)
}

// checkRefs rejects refs with an unknown kind or an id ns does not hold.
func (e *Engine) checkRefs(ctx context.Context, ns kgmem.Namespace, refs []decay.Ref) error {
	_, err := e.decayStates(ctx, ns, refs)
	return err
}

// decayStates loads the decay state of each ref, in order; a missing record or
// an unknown kind is a client error naming the ref.
func (e *Engine) decayStates(ctx context.Context, ns kgmem.Namespace, refs []decay.Ref) ([]kgmem.DecayState, error) {
	if len(refs) == 0 {
		return nil, kgmem.Invalidf("refs", "must name at least one record")
	}
	if len(refs) > maxFactsPerRequest {
		return nil, kgmem.Invalidf("refs", "names %d records, at most %d allowed", len(refs), maxFactsPerRequest)
	}
	byKind := map[kgmem.Kind][]string{}
	for i, r := range refs {
		if !r.Kind.Valid() {
			return nil, kgmem.Invalidf(fmt.Sprintf("refs[%d].kind", i), "is %q; use fact, entity or episode", r.Kind)
		}
		byKind[r.Kind] = append(byKind[r.Kind], r.ID)
	}
	states := map[string]kgmem.DecayState{}
	if ids := byKind[kgmem.KindFact]; len(ids) > 0 {
		facts, err := e.graph.Facts(ctx, ns, ids)
		if err != nil {
			return nil, fmt.Errorf("load facts: %w", err)
		}
		for _, f := range facts {
			states["fact\x00"+f.ID] = f.Decay
		}
	}
	if ids := byKind[kgmem.KindEntity]; len(ids) > 0 {
		ents, err := e.graph.Entities(ctx, ns, ids)
		if err != nil {
			return nil, fmt.Errorf("load entities: %w", err)
		}
		for _, ent := range ents {
			states["entity\x00"+ent.ID] = ent.Decay
		}
	}
	if ids := byKind[kgmem.KindEpisode]; len(ids) > 0 {
		eps, err := e.graph.Episodes(ctx, ns, ids)
		if err != nil {
			return nil, fmt.Errorf("load episodes: %w", err)
		}
		for _, ep := range eps {
			states["episode\x00"+ep.ID] = ep.Decay
		}
	}
	out := make([]kgmem.DecayState, len(refs))
	for i, r := range refs {
		s, ok := states[string(r.Kind)+"\x00"+r.ID]
		if !ok {
			return nil, fmt.Errorf("refs[%d]: %s %q in namespace %q: %w", i, r.Kind, r.ID, ns, kgmem.ErrNotFound)
		}
		out[i] = s
	}
	return out, nil
}
