package memory

import (
	"context"
	"errors"
	"fmt"
	"time"

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
	// ExtractKnown, with Extract, extracts from every message of the
	// request, those stored before included: the follow-up of an extraction
	// deferred past its request's deadline (IngestResult.Deferred), whose
	// messages were stored by that request.
	ExtractKnown bool
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
	// JobID names the background job that continues an extraction that
	// could not finish within the request (set by the REST API; see
	// Deferred).
	JobID string `json:"job_id,omitempty"`
	// Deferred lists the episodes stored by this call whose extraction did
	// not finish before the call's context ended: they are stored and
	// searchable, without facts yet. Re-run with ExtractKnown to extract them.
	Deferred []string `json:"-"`
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
// stored under the same namespace, thread and id is not written again), then,
// when asked, extracts and integrates triples from the new ones, embeds what
// changed, and writes the facts.
//
// The messages are durable and searchable before any LLM call: the episodes
// (with their vectors) are written first, under the namespace's write lock.
// Extraction, the slow part, runs outside the lock on the episodes this call
// created, so a concurrent ingest of the same messages finds them stored and
// does not extract them again. Resolution, decisions and the facts' write run
// under the lock again. An LLM failure is a warning (the episodes are kept);
// an extraction the context's end cut short is reported in Deferred.
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
	written, stored, err := e.storeEpisodes(ctx, req.Namespace, eps, now)
	if err != nil {
		return IngestResult{}, err
	}
	res := IngestResult{Episodes: statuses(eps, stored, written), Facts: []kgmem.FactChange{}}
	todo := written
	if req.ExtractKnown {
		todo = make([]kgmem.Episode, len(res.Episodes))
		for i, ep := range res.Episodes {
			todo[i] = ep.Episode
		}
	}
	if req.Extract && len(todo) > 0 {
		res.Facts, res.Usage, res.Warnings, res.Deferred = e.extractFacts(ctx, req, todo, now)
	}
	e.metrics.ingested(len(written), res.Facts, res.Usage)
	res.Warnings = nonNil(res.Warnings)
	return res, nil
}

// storeEpisodes writes those of eps not stored yet, with their vectors,
// under the namespace's lock. It returns the episodes it wrote (with their
// decay state) and those found stored (by id).
func (e *Engine) storeEpisodes(ctx context.Context, ns kgmem.Namespace, eps []kgmem.Episode, now time.Time) ([]kgmem.Episode, map[string]kgmem.Episode, error) {
	unlock, err := e.lockNamespace(ctx, ns)
	if err != nil {
		return nil, nil, err
	}
	defer unlock()
	fresh, stored, err := e.freshEpisodes(ctx, ns, eps)
	if err != nil || len(fresh) == 0 {
		return nil, stored, err
	}
	cs := kgmem.ChangeSet{Namespace: ns, Episodes: fresh}
	if err := e.stampDecay(ctx, &cs, nil, now); err != nil {
		return nil, nil, err
	}
	if err := e.write(ctx, cs); err != nil {
		return nil, nil, err
	}
	return cs.Episodes, stored, nil
}

// extractFacts extracts triples from eps (stored already), integrates them
// and writes the facts. Failures are warnings: the episodes stay. When ctx
// ends before the facts are decided, or the graph is unavailable for their
// write, it returns eps' ids as deferred (to be extracted again later);
// decided facts are written even if ctx ended meanwhile (within
// factWriteLimit), so paid LLM work is not lost.
func (e *Engine) extractFacts(ctx context.Context, req IngestRequest, eps []kgmem.Episode, now time.Time) (facts []kgmem.FactChange, usage kgmem.LLMUsage, warnings, deferred []string) {
	facts = []kgmem.FactChange{}
	later := func(stage string, err error) ([]kgmem.FactChange, kgmem.LLMUsage, []string, []string) {
		e.log.WarnContext(ctx, stage+" did not finish; episodes kept, extraction deferred", "namespace", req.Namespace, "episodes", len(eps), "error", err)
		return []kgmem.FactChange{}, usage, append(warnings, "extraction did not finish within the request; the messages are stored, without facts yet"), episodeIDs(eps)
	}
	lost := func(err error) ([]kgmem.FactChange, kgmem.LLMUsage, []string, []string) {
		if ctx.Err() != nil || errors.Is(err, kgmem.ErrUnavailable) || errors.Is(err, context.DeadlineExceeded) {
			return later("writing extracted facts", err)
		}
		e.log.WarnContext(ctx, "writing extracted facts failed; episodes kept", "namespace", req.Namespace, "error", err)
		return []kgmem.FactChange{}, usage, append(warnings, "extracted facts not written, episodes kept without facts: "+err.Error()), nil
	}
	x := e.extractTriples(ctx, req, eps)
	usage, warnings = x.usage, x.warnings
	if ctx.Err() != nil {
		return later("extraction", ctx.Err())
	}
	if x.failed {
		return facts, usage, warnings, nil
	}
	unlock, err := e.lockNamespace(ctx, req.Namespace)
	if err != nil {
		return lost(err)
	}
	defer unlock()
	changes, decided, usage, warnings := e.integrate(ctx, req, x)
	if ctx.Err() != nil && len(decided) == 0 {
		return later("integration", ctx.Err()) // nothing decided
	}
	if len(changes.Facts)+len(changes.Entities)+len(changes.Mentions) == 0 {
		return decided, usage, warnings, nil
	}
	// Past the request's end, but bounded: a stalled graph must not hold
	// the namespace lock, nor this call, for ever.
	wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), factWriteLimit)
	defer cancel()
	cs := kgmem.ChangeSet{Namespace: req.Namespace, Entities: changes.Entities, Facts: changes.Facts, Mentions: changes.Mentions}
	if err := e.stampDecay(wctx, &cs, decided, now); err != nil {
		return lost(err)
	}
	if err := e.write(wctx, cs); err != nil {
		return lost(err)
	}
	syncChanges(decided, cs.Facts)
	return decided, usage, warnings, nil
}

// factWriteLimit bounds writing the facts an extraction decided (their
// embedding and their graph and vector writes), which outlives the request's
// context so that paid LLM work is not lost; past it the extraction is
// deferred, as when the graph is unavailable.
const factWriteLimit = 30 * time.Second

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
