// Package synth generates reproducible synthetic memories at scale and
// measures search on them: issue #7's million-fact benchmark.
//
// A Config (seed, totals, namespaces) names one memory. The Generator
// splits the totals over the namespaces (a few large, many small: Skew),
// gives each namespace entities of the default types with names drawn from
// fixed word lists, and draws facts between them by preferential
// attachment (each endpoint is, with probability 1 − UniformShare, an
// entity picked in proportion to the facts it already has), which gives the
// heavy-tailed degree distribution of real knowledge graphs. Facts come
// from a vocabulary of predicates with sentence templates; every three
// facts make one message (episode) that states them, said at a time spread
// over a year, so decay matters; a small share of facts is later
// invalidated and kept as history. Each namespace draws from its own random
// stream, so the same seed gives the same ids and texts in any order.
//
// Build writes a memory through the real stores' batch writes
// (GraphStore.Apply, VectorIndex.Upsert with the engine's embedding texts);
// Queries draws searches from the generated facts (entity names,
// questions, keywords, paraphrases); MeasureSearch runs them through the
// engine's full hybrid search; MeasureRecall checks the vector step against
// exact search. cmd/bench synth drives it all; docs/benchmarks.md has the
// command and the figures.
package synth
