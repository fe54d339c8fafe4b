package triples

import (
	"context"
	"fmt"
	"math"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/kgmem/kgmem"
)

// Limits on triple fields; longer values make the triple OpSkipped.
const (
	// MaxFactTextLen is the longest fact sentence, in characters: the one
	// limit of the API (POST /v1/facts answers 422 past it; api/openapi.json
	// declares it as the maxLength of a triple's "fact") and of extraction.
	MaxFactTextLen = 2000
	// DefaultImportance is used when a triple states none.
	DefaultImportance = 5
	// DefaultConfidence is used when a triple states none.
	DefaultConfidence = 0.9
)

// Integrator resolves extracted entities and triples against a GraphStore and
// decides the graph changes they make. It never writes: the caller applies
// IntegrateResult.Changes (plus the episodes) atomically. Safe for concurrent
// use; concurrent Integrate calls on one namespace may decide on stale reads,
// so callers serialise ingestion per namespace.
type Integrator struct {
	store    kgmem.GraphStore
	clock    kgmem.Clock
	embedder kgmem.Embedder
	llm      *llmClient
	llmErr   error
	preds    *PredicateNormalizer
}

// IntegratorOptions configures an Integrator. Every field is optional.
type IntegratorOptions struct {
	// Clock stamps CreatedAt/UpdatedAt/ExpiredAt (default: kgmem.SystemClock).
	Clock kgmem.Clock
	// Embedder, when set, helps fuzzy entity resolution with name-embedding cosine.
	Embedder kgmem.Embedder
	// LLM, when set, enables one batched LLM call per ingest for ambiguous entity
	// matches and one for fact decisions the rules cannot make.
	LLM *LLMConfig
	// Synonyms extend the default predicate synonym map (spelling → canonical).
	Synonyms map[string]string
}

// IntegrateRequest is one ingested batch to resolve and decide.
type IntegrateRequest struct {
	Namespace kgmem.Namespace
	// Entities are the entities the extractor named (with types and aliases).
	Entities []kgmem.ExtractedEntity
	// Triples are the facts to integrate, in order; later ones see earlier ones.
	Triples []kgmem.Triple
	// Episodes are the batch's messages: they become the mentions and provenance,
	// and their timestamps the default valid_at.
	Episodes []kgmem.Episode
	// OwnProvenance says each triple names its own provenance in EpisodeIDs
	// (facts posted by a client): a triple without EpisodeIDs gets none, instead
	// of every episode of the batch.
	OwnProvenance bool
	// Policy switches kinds of changes off.
	Policy kgmem.WritePolicy
	// Schema, when set, adds the namespace's entity types to the known types
	// and its relation types' cardinalities override the built-in table.
	Schema *kgmem.Schema
	// Cardinality overrides the built-in cardinality table (and the schema)
	// per predicate, in any spelling (NamespaceSettings.Cardinality).
	Cardinality map[string]kgmem.Cardinality
}

// IntegrateResult is what integrating a batch decided.
type IntegrateResult struct {
	// Changes holds the entities, facts and mentions to write (never episodes),
	// complete records ready for GraphStore.Apply.
	Changes kgmem.ChangeSet
	// FactChanges reports every decision, one or more per triple, in order.
	FactChanges []kgmem.FactChange
	// Usage counts the LLM calls made while integrating.
	Usage kgmem.LLMUsage
}

// NewIntegrator returns an Integrator over store. An invalid opts.LLM makes every
// Integrate call fail with an error wrapping kgmem.ErrInvalid.
func NewIntegrator(store kgmem.GraphStore, opts IntegratorOptions) *Integrator {
	in := &Integrator{store: store, clock: opts.Clock, embedder: opts.Embedder, preds: NewPredicateNormalizer(opts.Synonyms)}
	if in.clock == nil {
		in.clock = kgmem.SystemClock{}
	}
	if opts.LLM != nil {
		in.llm, in.llmErr = newLLMClient(*opts.LLM)
	}
	return in
}

// Integrate resolves the batch's entities and decides each triple. Bad triples
// become OpSkipped changes with a reason; only a bad namespace, a store failure
// or a cancelled context make it fail. LLM failures during resolution or
// decisions fall back to the rule-based outcome (the triple is added).
func (in *Integrator) Integrate(ctx context.Context, req IntegrateRequest) (IntegrateResult, error) {
	if _, err := kgmem.ParseNamespace(string(req.Namespace)); err != nil {
		return IntegrateResult{}, fmt.Errorf("integrate: %w", err)
	}
	if in.llmErr != nil {
		return IntegrateResult{}, fmt.Errorf("integrate: llm config: %w", in.llmErr)
	}
	for i, ep := range req.Episodes {
		if ep.Namespace != "" && ep.Namespace != req.Namespace {
			return IntegrateResult{}, fmt.Errorf("integrate: %w", kgmem.Invalidf(fmt.Sprintf("episodes[%d].namespace", i),
				"is %q, the batch is %q", ep.Namespace, req.Namespace))
		}
	}
	reads := newCallReads(in.store, req.Namespace)
	w := newWork(in, req, reads, nil)
	if err := w.run(ctx); err != nil {
		return IntegrateResult{}, err
	}
	if in.llm != nil && (len(w.ambiguous) > 0 || len(w.pending) > 0) {
		// One judge call for everything the rules left open, then a second,
		// decided pass over the same batch (no LLM call), on the records the
		// first pass read (callReads).
		d := w.judge(ctx)
		if ctx.Err() != nil {
			return IntegrateResult{}, fmt.Errorf("integrate: %w", ctx.Err())
		}
		usage, now := w.usage, w.now
		w = newWork(in, req, reads, d)
		w.usage, w.now = usage, now
		if err := w.run(ctx); err != nil {
			return IntegrateResult{}, err
		}
	}
	return w.result(), nil
}

// run prepares, resolves and decides the batch.
func (w *work) run(ctx context.Context) error {
	w.prepare()
	if err := w.resolve(ctx); err != nil {
		return fmt.Errorf("integrate: resolve entities: %w", err)
	}
	if err := w.decideAll(ctx); err != nil {
		return fmt.Errorf("integrate: decide facts: %w", err)
	}
	return nil
}

// candidate is one triple after validation, before resolution.
type candidate struct {
	index      int
	subject    mention
	object     mention
	predicate  string
	text       string
	validAt    time.Time
	invalidAt  time.Time
	confidence float64
	importance int
	attributes map[string]any
	episodes   []string
}

// mention is an entity name as the batch uses it.
type mention struct {
	name    string // cleaned display name
	key     string // kgmem.NormalizeName(name)
	typ     string // normalised type, "" when unstated
	aliases []string
	attrs   map[string]any
	listed  bool // from the extractor's entity list
}

// work is the state of one Integrate call.
type work struct {
	in    *Integrator
	req   IntegrateRequest
	reads *callReads // the store, read once per Integrate call
	ns    kgmem.Namespace
	now   time.Time

	episodes map[string]kgmem.Episode
	cands    []candidate
	mentions []mention // every entity mention, listed entities first

	// resolution
	keyToEntity    map[string]string // name key → entity id
	entities       map[string]*kgmem.Entity
	changedEntity  map[string]bool
	newEntity      map[string]bool
	entityOrder    []string
	entityEpisodes map[string]map[string]bool

	// facts
	facts       map[string]*kgmem.Fact
	factsOf     map[string][]string // entity id → ids of facts touching it
	loadedFacts map[string]bool     // fact filters (loadFacts keys) already read from the store
	changedFact map[string]bool
	addedNow    map[string]bool // facts added by this batch
	factOrder   []string
	changes     []kgmem.FactChange
	usage       kgmem.LLMUsage

	// the LLM judge: questions collected by the first pass, answers for the second
	ambiguous []*group
	pending   []pendingDecision
	decisions *decisions

	cards cardinalities
}

func newWork(in *Integrator, req IntegrateRequest, reads *callReads, d *decisions) *work {
	w := &work{
		in: in, req: req, reads: reads, ns: req.Namespace, now: in.clock.Now(), decisions: d,
		episodes:       map[string]kgmem.Episode{},
		keyToEntity:    map[string]string{},
		entities:       map[string]*kgmem.Entity{},
		changedEntity:  map[string]bool{},
		newEntity:      map[string]bool{},
		entityEpisodes: map[string]map[string]bool{},
		facts:          map[string]*kgmem.Fact{},
		factsOf:        map[string][]string{},
		loadedFacts:    map[string]bool{},
		changedFact:    map[string]bool{},
		addedNow:       map[string]bool{},
		cards:          newCardinalities(in.preds, req.Schema, req.Cardinality),
	}
	for _, ep := range req.Episodes {
		w.episodes[ep.ID] = ep
	}
	return w
}

func (w *work) skip(index int, t kgmem.Triple, reason string) {
	w.changes = append(w.changes, kgmem.FactChange{
		Op:     kgmem.OpSkipped,
		Fact:   kgmem.Fact{Namespace: w.ns, SubjectName: t.Subject, Predicate: t.Predicate, ObjectName: t.Object, Text: t.Text},
		Reason: fmt.Sprintf("triples[%d]: %s", index, reason),
	})
}

// prepare validates and cleans entities and triples.
func (w *work) prepare() {
	for _, e := range w.req.Entities {
		m, ok := w.mentionOf(e.Name, e.Type, nil)
		if !ok {
			continue
		}
		m.listed, m.attrs = true, e.Attributes
		for _, a := range e.Aliases {
			if c := CleanEntityName(a); kgmem.NormalizeName(c) != "" && utf8.RuneCountInString(c) <= MaxNameLen && !isPronoun(c) {
				m.aliases = append(m.aliases, c)
			}
		}
		w.mentions = append(w.mentions, m)
	}
	for i, t := range w.req.Triples {
		c, reason := w.prepareTriple(i, t)
		if reason != "" {
			w.skip(i, t, reason)
			continue
		}
		w.cands = append(w.cands, c)
		w.mentions = append(w.mentions, c.subject, c.object)
	}
}

func isPronoun(name string) bool {
	k := kgmem.NormalizeName(name)
	return firstPersonPronouns[k] || otherPronouns[k]
}

// mentionOf builds a mention from a raw name, resolving first-person pronouns to
// speaker when known. ok is false for names that cannot be used.
func (w *work) mentionOf(raw, typ string, speaker *kgmem.Episode) (mention, bool) {
	name := CleanEntityName(raw)
	key := kgmem.NormalizeName(name)
	if firstPersonPronouns[key] {
		if speaker == nil || CleanEntityName(speaker.Name) == "" {
			return mention{}, false
		}
		name, typ = CleanEntityName(speaker.Name), kgmem.TypePerson
		key = kgmem.NormalizeName(name)
	}
	if key == "" || otherPronouns[key] || utf8.RuneCountInString(name) > MaxNameLen {
		return mention{}, false
	}
	m := mention{name: name, key: key}
	if strings.TrimSpace(typ) == "" && speaker != nil && key == nameKey(speaker.Name) {
		typ = kgmem.TypePerson
	}
	if strings.TrimSpace(typ) != "" {
		m.typ = NormalizeEntityType(typ, w.req.Schema)
	}
	return m, true
}

func (w *work) prepareTriple(i int, t kgmem.Triple) (candidate, string) {
	c := candidate{index: i, attributes: t.Attributes}
	for _, id := range t.EpisodeIDs {
		if _, ok := w.episodes[id]; ok {
			c.episodes = append(c.episodes, id)
		}
	}
	if len(c.episodes) == 0 && len(t.EpisodeIDs) == 0 && !w.req.OwnProvenance {
		for _, ep := range w.req.Episodes {
			c.episodes = append(c.episodes, ep.ID)
		}
	}
	speaker := w.speakerOf(c.episodes)
	pred, swap, err := w.in.preds.normalize(t.Predicate)
	if err != nil {
		return c, "predicate " + err.Error()
	}
	c.predicate = pred
	for _, f := range []struct {
		field, raw, typ string
		dst             *mention
	}{{"subject", t.Subject, t.SubjectType, &c.subject}, {"object", t.Object, t.ObjectType, &c.object}} {
		if _, err := validateName(f.field, f.raw); err != nil {
			return c, err.Error()
		}
		m, ok := w.mentionOf(f.raw, f.typ, speaker)
		if !ok {
			return c, fmt.Sprintf("%s %q is a pronoun that cannot be resolved", f.field, truncateForMessage(f.raw))
		}
		*f.dst = m
	}
	if swap {
		c.subject, c.object = c.object, c.subject
	}
	if c.subject.key == c.object.key {
		return c, fmt.Sprintf("subject and object are the same entity %q", c.subject.name)
	}
	c.text = strings.Join(strings.Fields(t.Text), " ")
	if n := utf8.RuneCountInString(c.text); n > MaxFactTextLen {
		return c, fmt.Sprintf("fact text is %d characters, at most %d allowed", n, MaxFactTextLen)
	}
	switch {
	case math.IsNaN(t.Confidence) || t.Confidence < 0 || t.Confidence > 1:
		return c, fmt.Sprintf("confidence %v is outside [0, 1]", t.Confidence)
	case t.Confidence == 0:
		c.confidence = DefaultConfidence
	default:
		c.confidence = t.Confidence
	}
	switch {
	case t.Importance == 0:
		c.importance = DefaultImportance
	case t.Importance < 1 || t.Importance > 10:
		return c, fmt.Sprintf("importance %d is outside 1–10", t.Importance)
	default:
		c.importance = t.Importance
	}
	c.validAt, c.invalidAt = t.ValidAt.UTC(), t.InvalidAt.UTC()
	if t.ValidAt.IsZero() {
		// Unstated start: the message time, unless the fact had already ended by
		// then (then its start is unknown).
		if at := w.episodeTime(c.episodes); c.invalidAt.IsZero() || c.invalidAt.After(at) {
			c.validAt = at
		}
	}
	if !c.invalidAt.IsZero() && !c.validAt.IsZero() && c.invalidAt.Before(c.validAt) {
		return c, fmt.Sprintf("invalid_at %s is before valid_at %s", c.invalidAt.Format(time.RFC3339), c.validAt.Format(time.RFC3339))
	}
	return c, ""
}

// speakerOf returns the single speaker of the given episodes (or of the whole
// batch when ids is empty), nil when there is none or several.
func (w *work) speakerOf(ids []string) *kgmem.Episode {
	var eps []kgmem.Episode
	for _, id := range ids {
		eps = append(eps, w.episodes[id])
	}
	if len(eps) == 0 && !w.req.OwnProvenance {
		eps = w.req.Episodes
	}
	var found *kgmem.Episode
	for i := range eps {
		if eps[i].Name == "" || eps[i].Role == "assistant" {
			continue
		}
		if found != nil && nameKey(found.Name) != nameKey(eps[i].Name) {
			return nil
		}
		found = &eps[i]
	}
	return found
}

// nameKey is kgmem.NormalizeName of the cleaned name.
func nameKey(s string) string { return kgmem.NormalizeName(CleanEntityName(s)) }

// episodeTime is the latest timestamp of the given episodes (the batch's when none).
func (w *work) episodeTime(ids []string) time.Time {
	var t time.Time
	consider := func(ep kgmem.Episode) {
		if ep.Timestamp.After(t) {
			t = ep.Timestamp.UTC()
		}
	}
	for _, id := range ids {
		consider(w.episodes[id])
	}
	if t.IsZero() && !w.req.OwnProvenance {
		for _, ep := range w.req.Episodes {
			consider(ep)
		}
	}
	return t
}

// result assembles the change set.
func (w *work) result() IntegrateResult {
	cs := kgmem.ChangeSet{Namespace: w.ns}
	for _, id := range w.entityOrder {
		if w.changedEntity[id] {
			cs.Entities = append(cs.Entities, *w.entities[id])
		}
	}
	for _, id := range w.factOrder {
		if w.changedFact[id] {
			cs.Facts = append(cs.Facts, *w.facts[id])
		}
	}
	for _, id := range w.entityOrder {
		for _, ep := range w.req.Episodes {
			if w.entityEpisodes[id][ep.ID] {
				cs.Mentions = append(cs.Mentions, kgmem.Mention{EpisodeID: ep.ID, EntityID: id})
			}
		}
	}
	// Report each changed fact in its final form, except that a change
	// followed by another change of the same fact in this request keeps the
	// validity and belief it left the fact with: "added" shows the fact as
	// added, the later "invalidated" shows it invalidated.
	last := map[string]int{}
	for i, c := range w.changes {
		last[c.Fact.ID] = i
	}
	for i := range w.changes {
		id := w.changes[i].Fact.ID
		f, ok := w.facts[id]
		if !ok || id == "" {
			continue
		}
		final := *f
		if last[id] != i {
			snap := w.changes[i].Fact
			final.ValidAt, final.InvalidAt, final.ExpiredAt = snap.ValidAt, snap.InvalidAt, snap.ExpiredAt
		}
		w.changes[i].Fact = final
	}
	return IntegrateResult{Changes: cs, FactChanges: w.changes, Usage: w.usage}
}
