package memory

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/triples"
	"github.com/samber/lo"
)

// Limits on explicitly posted facts.
const (
	maxFactsPerRequest = 1000
	maxNameBytes       = 256
	// defaultPageLimit is the stores' default page size (kgmem.Page).
	defaultPageLimit = 100
)

// AddFactsRequest posts triples directly (bring-your-own extraction).
type AddFactsRequest struct {
	Namespace kgmem.Namespace
	Facts     []kgmem.Triple
}

// AddFactsResult reports what the posted triples changed.
type AddFactsResult struct {
	Facts []kgmem.FactChange `json:"facts"`
	Usage kgmem.LLMUsage     `json:"usage"`
}

// AddFacts validates the triples, resolves their entities by normalised name
// within the namespace, decides per triple (add, duplicate, update, invalidate)
// and writes the result atomically. Any invalid triple rejects the whole request
// and nothing is written.
func (e *Engine) AddFacts(ctx context.Context, req AddFactsRequest) (AddFactsResult, error) {
	if err := validateTriples(req.Facts); err != nil {
		return AddFactsResult{}, err
	}
	unlock, err := e.lockNamespace(ctx, req.Namespace)
	if err != nil {
		return AddFactsResult{}, err
	}
	defer unlock()

	provenance, err := e.provenanceEpisodes(ctx, req.Namespace, req.Facts)
	if err != nil {
		return AddFactsResult{}, err
	}
	settings, err := e.graph.Settings(ctx, req.Namespace)
	if err != nil {
		return AddFactsResult{}, fmt.Errorf("read namespace settings: %w", err)
	}
	out, err := e.integrator.Integrate(ctx, triples.IntegrateRequest{
		Namespace:     req.Namespace,
		Triples:       req.Facts,
		Episodes:      provenance,
		OwnProvenance: true,
		Policy:        settings.Writes,
		Schema:        settings.Schema,
		Cardinality:   settings.Cardinality,
	})
	if err != nil {
		return AddFactsResult{}, fmt.Errorf("integrate facts: %w", err)
	}
	cs := out.Changes
	cs.Namespace = req.Namespace
	if err := e.stampDecay(ctx, &cs, out.FactChanges, e.now()); err != nil {
		return AddFactsResult{}, err
	}
	if err := e.write(ctx, cs); err != nil {
		return AddFactsResult{}, err
	}
	syncChanges(out.FactChanges, cs.Facts)
	e.metrics.ingested(0, out.FactChanges, out.Usage)
	return AddFactsResult{Facts: nonNil(out.FactChanges), Usage: out.Usage}, nil
}

func validateTriples(ts []kgmem.Triple) error {
	if len(ts) == 0 {
		return kgmem.Invalidf("facts", "must hold at least one fact")
	}
	if len(ts) > maxFactsPerRequest {
		return kgmem.Invalidf("facts", "holds %d facts, at most %d allowed per request", len(ts), maxFactsPerRequest)
	}
	for i, t := range ts {
		path := fmt.Sprintf("facts[%d]", i)
		for _, f := range []struct {
			name, value string
			required    bool
			max         int
		}{
			{"subject", t.Subject, true, maxNameBytes},
			{"predicate", t.Predicate, true, maxNameBytes},
			{"object", t.Object, true, maxNameBytes},
			{"subject_type", t.SubjectType, false, maxNameBytes},
			{"object_type", t.ObjectType, false, maxNameBytes},
			{"fact", t.Text, false, 0},
		} {
			switch {
			case f.required && f.value == "":
				return kgmem.Invalidf(path+"."+f.name, "is empty")
			case f.required && kgmem.NormalizeName(f.value) == "":
				return kgmem.Unprocessablef(path+"."+f.name, "is empty once spaces and format characters are removed")
			case f.max > 0 && len(f.value) > f.max:
				return kgmem.TooLong(path+"."+f.name, f.value, f.max)
			case !utf8.ValidString(f.value):
				return kgmem.Invalidf(path+"."+f.name, "is not valid UTF-8")
			}
		}
		// The one limit of a fact's text, the integrator's: a longer text
		// would be dropped there, so it is refused here, before anything
		// is written.
		if n := utf8.RuneCountInString(t.Text); n > triples.MaxFactTextLen {
			return kgmem.Unprocessablef(path+".fact", "is %d characters, at most %d allowed", n, triples.MaxFactTextLen)
		}
		if err := kgmem.CheckMetadata(path+".metadata", t.Attributes); err != nil {
			return err
		}
		if _, err := triples.NormalizePredicate(t.Predicate); err != nil {
			var fe *kgmem.FieldError
			if errors.As(err, &fe) {
				return kgmem.Unprocessablef(path+".predicate", "%s", fe.Reason)
			}
			return kgmem.Unprocessablef(path+".predicate", "%v", err)
		}
		if t.Confidence < 0 || t.Confidence > 1 {
			return kgmem.Invalidf(path+".confidence", "is %v, must be within [0, 1]", t.Confidence)
		}
		if t.Importance < 0 || t.Importance > 10 {
			return kgmem.Invalidf(path+".importance", "is %d, must be within 1..10 (0: default)", t.Importance)
		}
		for k := range t.Attributes {
			if strings.HasPrefix(k, kgmem.ReservedAttributePrefix) {
				return kgmem.Unprocessablef(path+".metadata."+k, "uses the prefix %q, which kgmem reserves for itself", kgmem.ReservedAttributePrefix)
			}
		}
		if !t.ValidAt.IsZero() && !t.InvalidAt.IsZero() && t.InvalidAt.Before(t.ValidAt) {
			return kgmem.Unprocessablef(path+".invalid_at", "is before valid_at")
		}
	}
	return nil
}

// provenanceEpisodes loads the episodes the triples cite, rejecting ids that
// ns does not hold.
func (e *Engine) provenanceEpisodes(ctx context.Context, ns kgmem.Namespace, ts []kgmem.Triple) ([]kgmem.Episode, error) {
	var out []kgmem.Episode
	seen := map[string]bool{}
	for i, t := range ts {
		if len(t.EpisodeIDs) == 0 {
			continue
		}
		found, err := e.graph.Episodes(ctx, ns, t.EpisodeIDs)
		if err != nil {
			return nil, fmt.Errorf("look up provenance episodes: %w", err)
		}
		have := lo.KeyBy(found, func(ep kgmem.Episode) string { return ep.ID })
		for _, id := range t.EpisodeIDs {
			ep, ok := have[id]
			if !ok {
				return nil, kgmem.NotFoundf(fmt.Sprintf("facts[%d].episode_ids", i), "episode %q does not exist in namespace %q", id, ns)
			}
			if !seen[id] {
				seen[id] = true
				out = append(out, ep)
			}
		}
	}
	return out, nil
}

// FactView is a fact with its status spelled out for clients.
type FactView struct {
	kgmem.Fact
	// Status is the fact's kgmem.FactStatus at the engine's clock: "current",
	// "upcoming", "ended" or "invalidated".
	Status kgmem.FactStatus `json:"status"`
}

// NewFactView labels f with its status at the wall clock. The engine labels
// with its own clock (Engine.FactViewAt); use NewFactViewAt where the instant
// matters.
func NewFactView(f kgmem.Fact) FactView { return NewFactViewAt(f, time.Now()) }

// NewFactViewAt labels f with its status at now; kgmem's own attributes
// (kgmem.ReservedAttributePrefix) are left out.
func NewFactViewAt(f kgmem.Fact, now time.Time) FactView {
	for k := range f.Attributes {
		if strings.HasPrefix(k, kgmem.ReservedAttributePrefix) {
			attrs := make(map[string]any, len(f.Attributes))
			for k, v := range f.Attributes {
				if !strings.HasPrefix(k, kgmem.ReservedAttributePrefix) {
					attrs[k] = v
				}
			}
			if len(attrs) == 0 {
				attrs = nil
			}
			f.Attributes = attrs
			break
		}
	}
	return FactView{Fact: f, Status: f.Status(now)}
}

// FactViewAt labels f with its status at the engine's clock.
func (e *Engine) FactViewAt(f kgmem.Fact) FactView { return NewFactViewAt(f, e.now()) }

// Fact returns one fact of ns, current or historical.
func (e *Engine) Fact(ctx context.Context, ns kgmem.Namespace, id string) (FactView, error) {
	f, err := e.graph.Fact(ctx, ns, id)
	if err != nil {
		return FactView{}, fmt.Errorf("fact %q: %w", id, err)
	}
	return e.FactViewAt(f), nil
}

// ListFactsRequest selects facts to list.
type ListFactsRequest struct {
	Namespace kgmem.Namespace
	// Entity is an entity id or a name/alias; empty lists the whole namespace.
	Entity string
	// CurrentOnly keeps only facts whose status is "current" (true now and
	// still believed); by default history (ended, invalidated) and upcoming
	// facts are included.
	CurrentOnly bool
	// AsOf, when set, keeps only the facts that held at that world time
	// (kgmem.Fact.ValidAtInstant), whatever their status now: never one that
	// was not yet true. With CurrentOnly, both must hold.
	AsOf time.Time
	kgmem.Page
}

// ListFacts lists facts of ns in id order, with history, optionally about
// one entity. Filters apply before paging: a page holds up to Limit matching
// facts, and the last one's id is the cursor for the next page.
func (e *Engine) ListFacts(ctx context.Context, req ListFactsRequest) ([]FactView, error) {
	filter := kgmem.FactFilter{IncludeExpired: !req.CurrentOnly || !req.AsOf.IsZero(), Page: req.Page}
	if req.Entity != "" {
		ent, err := e.resolveEntity(ctx, req.Namespace, req.Entity)
		if err != nil {
			return nil, err
		}
		filter.EntityID = ent.ID
	}
	if filter.Limit == 0 {
		filter.Limit = defaultPageLimit
	}
	limit := filter.Limit
	now := e.now()
	keep := func(f kgmem.Fact) bool {
		if req.CurrentOnly && f.Status(now) != kgmem.FactCurrent {
			return false
		}
		return req.AsOf.IsZero() || f.ValidAtInstant(req.AsOf)
	}
	views := []FactView{}
	for {
		facts, err := e.graph.ListFacts(ctx, req.Namespace, filter)
		if err != nil {
			return nil, fmt.Errorf("list facts: %w", err)
		}
		for _, f := range facts {
			if keep(f) && len(views) < limit {
				views = append(views, NewFactViewAt(f, now))
			}
		}
		if len(views) >= limit || len(facts) < filter.Limit {
			return views, nil
		}
		filter.After = facts[len(facts)-1].ID
	}
}

// DeleteFact hard-deletes one fact and its vector.
func (e *Engine) DeleteFact(ctx context.Context, ns kgmem.Namespace, id string) error {
	unlock, err := e.lockNamespace(ctx, ns)
	if err != nil {
		return err
	}
	defer unlock()
	keys := []kgmem.VectorKey{{Kind: kgmem.KindFact, ID: id}}
	return e.guardedWrite(ctx, deleteOps(ns, keys),
		func() error {
			defer e.timelines.forget(ns) // the fact may have set the timeline's end
			if err := e.graph.DeleteFact(ctx, ns, id); err != nil {
				return fmt.Errorf("delete fact %q: %w", id, err)
			}
			return nil
		},
		func(ctx context.Context) error { return e.writeVectors(ctx, ns, nil, keys) })
}
