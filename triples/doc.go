// Package triples turns conversation messages into graph changes: it asks an
// OpenAI-compatible LLM for entity–relation triples (Extractor), normalises
// predicates, entity names and types, resolves entity mentions against the
// stored graph, and decides per triple whether it is new, a duplicate, an
// update of a known fact, or a contradiction that invalidates an older fact
// (Integrator).
//
// # Extraction
//
// The Extractor asks for structured output with a strict JSON schema
// (response_format json_schema), falls back to JSON mode and then to plain text
// with the schema in the prompt when the endpoint answers 400 "unsupported"
// (ModeAuto remembers the downgrade), and parses tolerantly: reasoning blocks and
// code fences are stripped, the first complete JSON object is taken, trailing
// commas are removed and a truncated answer is cut back to its last complete
// value. 429 (honouring Retry-After), 5xx, timeouts and unparseable answers are
// retried with exponential backoff and jitter. Every entity and fact is
// validated; what is dropped or repaired is explained in Extraction.Warnings.
// Message contents reach the model only as JSON string values and the system
// prompt declares them data, never instructions.
//
// # Normalisation
//
// Predicates become lower_snake: Latin diacritics are folded to ASCII, letters
// of other scripts are kept, punctuation collapses to "_", articles after the
// first word are dropped, British spellings unified, synonyms map to one
// canonical verb ("is manager of" → "manages", "loves" → "likes": the fact text
// keeps the nuance), passive forms swap subject and object ("is managed by"),
// negations become "not_" + the positive ("doesn't like any more" → "not_likes").
// A canonical predicate longer than MaxPredicateLen is rejected, never cut.
// Names lose format characters and parenthesised annotations ("Bob Smith
// (he)" → "Bob Smith") and match through kgmem.NormalizeName; types map to the default or schema types.
//
// # Resolution and decisions
//
// Entities are resolved cheapest first: within the batch (shared names or
// aliases, "the ML-team" = "ML team", a first name = the batch's only person
// with that first name), then exact names and aliases in the store, then fuzzy
// candidates (Jaro–Winkler, word subsets for named types, optional embedding
// cosine). Each triple is then decided by rules:
//
//   - same subject, predicate and object, current or history: a restatement
//     (timeline.go) — duplicate (provenance added) for the same validity,
//     else the intervals merge by a documented rule, or it is a new period;
//   - single-valued relations (cardinality.go: lives_in, works_at,
//     is_ceo_of, is_married_to, …, overridable per namespace), p versus
//     not_p, likes versus dislikes: the facts that exclude each other form a
//     timeline ordered by start, and each ends where the next conflicting one
//     starts (invalidated), unless its own end comes first (ended); a late
//     fact takes its place in the timeline, so the end state does not depend
//     on arrival order;
//   - a more specific object for the same subject and predicate ("likes miso
//     ramen" after "likes ramen"): the fact is updated in place.
//
// Invalidation sets InvalidAt to the successor's valid_at (else the time it
// was recorded) and ExpiredAt to now; the fact stays as history. What the rules leave
// open (ambiguous names, related facts with the same subject and predicate or
// object) goes to ONE batched LLM judge call per ingest; with extraction that is
// at most two LLM calls per batch. The write policy can switch off inserts,
// updates and invalidations.
package triples
