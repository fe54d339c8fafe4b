package memory

import (
	"context"
	"fmt"
	"slices"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/episodes"
	"github.com/kgmem/kgmem/triples"
	"github.com/samber/lo"
)

// IngestRequest is one batch of messages of one thread.
type IngestRequest struct {
	Namespace kgmem.Namespace
	ThreadID  string
	Messages  []episodes.Message
	// Extract asks the configured LLM for triples from the new messages.
	Extract bool
	// Schema overrides the namespace's schema for this request's extraction.
	Schema *kgmem.Schema
}

// IngestResult reports what an ingest stored and changed.
type IngestResult struct {
	Episodes []EpisodeStatus    `json:"episodes"`
	Facts    []kgmem.FactChange `json:"facts"`
	Usage    kgmem.LLMUsage     `json:"usage"`
	// Warnings report anything that did not go to plan but lost nothing
	// (for example: the LLM failed, so no facts were extracted; episodes kept).
	Warnings []string `json:"warnings"`
}

// EpisodeStatus is a stored episode and whether this request created it
// (false: it existed already, and nothing was written for it).
type EpisodeStatus struct {
	kgmem.Episode
	Created bool `json:"created"`
}

// ErrExtractionDisabled is returned when a request asks for extraction but no
// LLM is configured. It wraps kgmem.ErrConflict (409: the server is not set up for it;
// the request is well formed): the request is rejected unchanged.
var ErrExtractionDisabled = fmt.Errorf("%w: extraction requested but no LLM is configured (set KGMEM_LLM_BASE_URL and KGMEM_LLM_MODEL)", kgmem.ErrConflict)

// Ingest stores every message as an episode (idempotently: a message already
// stored under the same namespace, thread and id is not written again), extracts
// and integrates triples from the new ones when asked, embeds what changed, and
// writes the graph atomically.
//
// The extraction call, the slow part, runs before the namespace's write lock:
// it reads only the new messages, so other batches of the namespace go on
// meanwhile. Resolution, decisions and the write run under the lock. When a
// concurrent ingest stored some of the same messages in between, extraction
// runs again under the lock on what is still new, so nothing is extracted or
// written twice.
func (e *Engine) Ingest(ctx context.Context, req IngestRequest) (IngestResult, error) {
	if err := validateSchema(req.Schema); err != nil {
		return IngestResult{}, err
	}
	if req.Extract && e.extractor == nil {
		return IngestResult{}, ErrExtractionDisabled
	}
	now := e.now()
	eps, err := episodes.Build(req.Namespace, req.ThreadID, req.Messages, now, e.limits)
	if err != nil {
		return IngestResult{}, err
	}
	var early *extraction
	var spent kgmem.LLMUsage // LLM use of an early extraction that had to be redone
	if req.Extract {
		fresh, _, err := e.freshEpisodes(ctx, req.Namespace, eps)
		if err != nil {
			return IngestResult{}, err
		}
		if len(fresh) > 0 {
			early = e.extractTriples(ctx, req, fresh)
		}
	}

	unlock, err := e.lockNamespace(ctx, req.Namespace)
	if err != nil {
		return IngestResult{}, err
	}
	defer unlock()

	fresh, stored, err := e.freshEpisodes(ctx, req.Namespace, eps)
	if err != nil {
		return IngestResult{}, err
	}
	res := IngestResult{Facts: []kgmem.FactChange{}}
	cs := kgmem.ChangeSet{Namespace: req.Namespace, Episodes: fresh}
	if len(fresh) > 0 {
		if req.Extract {
			x := early
			if x == nil || !slices.Equal(episodeIDs(x.episodes), episodeIDs(fresh)) {
				if x != nil {
					spent = x.usage
				}
				x = e.extractTriples(ctx, req, fresh)
			}
			changes, facts, usage, warnings := e.integrate(ctx, req, x)
			res.Facts, res.Usage, res.Warnings = facts, usage.Add(spent), warnings
			cs.Entities, cs.Facts, cs.Mentions = changes.Entities, changes.Facts, changes.Mentions
		}
		if err := e.stampDecay(ctx, &cs, res.Facts, now); err != nil {
			return IngestResult{}, err
		}
		if err := e.write(ctx, cs); err != nil {
			return IngestResult{}, err
		}
		syncChanges(res.Facts, cs.Facts)
		e.metrics.ingested(len(fresh), res.Facts, res.Usage)
	} else if early != nil {
		// Everything was stored by a concurrent ingest meanwhile; the early
		// extraction still cost what it cost.
		res.Usage = early.usage
		e.metrics.ingested(0, nil, res.Usage)
	}
	res.Episodes = statuses(eps, stored, cs.Episodes)
	res.Warnings = nonNil(res.Warnings)
	return res, nil
}

// IngestThreads is Ingest without extraction for several threads of ns at
// once: the episodes all of reqs store go to the graph and the vector index
// in one write, under one hold of the namespace's lock. A bulk import of
// many short threads (a chat export holds thousands of conversations) pays
// one write per call instead of one per thread. Every request must be for
// ns and leave Extract off; a request that fails validation fails the call
// before anything is written. Results are in the order of reqs.
func (e *Engine) IngestThreads(ctx context.Context, ns kgmem.Namespace, reqs []IngestRequest) ([]IngestResult, error) {
	now := e.now()
	built := make([][]kgmem.Episode, len(reqs))
	var all []kgmem.Episode
	for i, req := range reqs {
		field := fmt.Sprintf("requests[%d]", i)
		switch {
		case req.Namespace != ns:
			return nil, kgmem.Invalidf(field+".namespace", "is %q, the call's is %q", req.Namespace, ns)
		case req.Extract:
			return nil, kgmem.Invalidf(field+".extract", "IngestThreads does not extract; send the thread to Ingest")
		}
		eps, err := episodes.Build(ns, req.ThreadID, req.Messages, now, e.limits)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", field, err)
		}
		built[i], all = eps, append(all, eps...)
	}
	unlock, err := e.lockNamespace(ctx, ns)
	if err != nil {
		return nil, err
	}
	defer unlock()
	fresh, stored, err := e.freshEpisodes(ctx, ns, all)
	if err != nil {
		return nil, err
	}
	cs := kgmem.ChangeSet{Namespace: ns, Episodes: fresh}
	if len(fresh) > 0 {
		if err := e.stampDecay(ctx, &cs, nil, now); err != nil {
			return nil, err
		}
		if err := e.write(ctx, cs); err != nil {
			return nil, err
		}
		e.metrics.ingested(len(fresh), nil, kgmem.LLMUsage{})
	}
	results := make([]IngestResult, len(reqs))
	for i, eps := range built {
		results[i] = IngestResult{Episodes: statuses(eps, stored, cs.Episodes), Facts: []kgmem.FactChange{}, Warnings: []string{}}
	}
	return results, nil
}

// statuses reports each of eps as stored before (found in stored) or
// created now (as written).
func statuses(eps []kgmem.Episode, stored map[string]kgmem.Episode, written []kgmem.Episode) []EpisodeStatus {
	byID := lo.KeyBy(written, func(ep kgmem.Episode) string { return ep.ID })
	out := make([]EpisodeStatus, 0, len(eps))
	for _, ep := range eps {
		if old, ok := stored[ep.ID]; ok {
			out = append(out, EpisodeStatus{Episode: old})
		} else {
			out = append(out, EpisodeStatus{Episode: byID[ep.ID], Created: true})
		}
	}
	return out
}

// freshEpisodes splits eps into those not stored yet and those stored (by id).
func (e *Engine) freshEpisodes(ctx context.Context, ns kgmem.Namespace, eps []kgmem.Episode) ([]kgmem.Episode, map[string]kgmem.Episode, error) {
	existing, err := e.graph.Episodes(ctx, ns, episodeIDs(eps))
	if err != nil {
		return nil, nil, fmt.Errorf("look up existing episodes: %w", err)
	}
	stored := make(map[string]kgmem.Episode, len(existing))
	for _, ep := range existing {
		stored[ep.ID] = ep
	}
	var fresh []kgmem.Episode
	for _, ep := range eps {
		if _, ok := stored[ep.ID]; !ok {
			fresh = append(fresh, ep)
		}
	}
	return fresh, stored, nil
}

// extraction is the extractor's answer for some new episodes, or why there is none.
type extraction struct {
	episodes []kgmem.Episode
	settings kgmem.NamespaceSettings
	schema   *kgmem.Schema
	result   kgmem.Extraction
	usage    kgmem.LLMUsage
	warnings []string
	// failed is set when there is nothing to integrate (warnings say why).
	failed bool
}

// extractTriples asks the extractor for the triples of the new episodes. An
// LLM failure is reported as warnings, never as an error: the episodes are
// stored anyway.
func (e *Engine) extractTriples(ctx context.Context, req IngestRequest, fresh []kgmem.Episode) *extraction {
	x := &extraction{episodes: fresh}
	settings, err := e.graph.Settings(ctx, req.Namespace)
	if err != nil {
		x.failed, x.warnings = true, []string{"extraction skipped: reading namespace settings: " + err.Error()}
		return x
	}
	x.settings, x.schema = settings, req.Schema
	if x.schema == nil {
		x.schema = settings.Schema
	}
	ext, err := e.extractor.Extract(ctx, kgmem.ExtractRequest{Namespace: req.Namespace, Messages: fresh, Schema: x.schema})
	x.result, x.usage = ext, ext.Usage
	x.warnings = append([]string(nil), ext.Warnings...)
	if err != nil {
		e.log.WarnContext(ctx, "extraction failed; episodes kept", "namespace", req.Namespace, "error", err)
		x.failed, x.warnings = true, append(x.warnings, "extraction failed, episodes kept without facts: "+err.Error())
	}
	return x
}

// integrate resolves the extracted triples against the graph (under the
// namespace lock). A failure is a warning: the episodes are kept.
func (e *Engine) integrate(ctx context.Context, req IngestRequest, x *extraction) (kgmem.ChangeSet, []kgmem.FactChange, kgmem.LLMUsage, []string) {
	if x.failed {
		return kgmem.ChangeSet{}, []kgmem.FactChange{}, x.usage, x.warnings
	}
	ext := x.result
	for i := range ext.Triples {
		if len(ext.Triples[i].EpisodeIDs) == 0 {
			ext.Triples[i].EpisodeIDs = episodeIDs(x.episodes)
		}
	}
	out, err := e.integrator.Integrate(ctx, triples.IntegrateRequest{
		Namespace:   req.Namespace,
		Entities:    ext.Entities,
		Triples:     ext.Triples,
		Episodes:    x.episodes,
		Policy:      x.settings.Writes,
		Schema:      x.schema,
		Cardinality: x.settings.Cardinality,
	})
	usage := x.usage.Add(out.Usage)
	if err != nil {
		e.log.WarnContext(ctx, "integration failed; episodes kept", "namespace", req.Namespace, "error", err)
		return kgmem.ChangeSet{}, []kgmem.FactChange{}, usage, append(x.warnings, "integrating extracted facts failed, episodes kept without facts: "+err.Error())
	}
	return out.Changes, nonNil(out.FactChanges), usage, x.warnings
}

func episodeIDs(eps []kgmem.Episode) []string {
	ids := make([]string, len(eps))
	for i, ep := range eps {
		ids[i] = ep.ID
	}
	return ids
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// syncChanges copies the decay state the engine stamped on each written
// fact into the change reports that carry it; the rest of each report is
// the fact as its change left it (triples reports a fact added then
// invalidated in one request as added, then as invalidated).
func syncChanges(changes []kgmem.FactChange, written []kgmem.Fact) {
	byID := lo.KeyBy(written, func(f kgmem.Fact) string { return f.ID })
	for i := range changes {
		if f, ok := byID[changes[i].Fact.ID]; ok {
			changes[i].Fact.Decay = f.Decay
		}
	}
}
