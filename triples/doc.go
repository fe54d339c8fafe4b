// Package triples turns conversation messages into graph changes: it asks an
// OpenAI-compatible LLM for entity–relation triples (Extractor), normalises
// predicates, entity names and types, resolves entity mentions against the
// stored graph, and decides per triple whether it is new, a duplicate, an
// update of a known fact, or a contradiction that invalidates an older fact
// (Integrator).
//
// Cheap deterministic rules decide the clear cases (exact names, synonyms,
// exclusive predicates, negations, refinements); an LLM is consulted only for
// what the rules leave ambiguous, in at most one batched call per ingest for
// entity resolution and fact decisions together.
package triples
