// Package memory is the kgmem engine: the ingest pipeline (messages → episodes →
// extracted triples → resolved, deduplicated, contradiction-checked graph changes
// → embeddings) and the search pipeline, declared as stages in pipeline.go
// (retrievers behind one interface, weighted reciprocal rank fusion, priors
// for decay, currency, time and "when", MMR, reranking), each result scored
// with a per-result breakdown. It is written against the
// interfaces of the root package only; cmd/server chooses the backends.
package memory
