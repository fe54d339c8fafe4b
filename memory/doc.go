// Package memory is the kgmem engine: the ingest pipeline (messages → episodes →
// extracted triples → resolved, deduplicated, contradiction-checked graph changes
// → embeddings) and the search pipeline (vector recall and BM25, fused by
// reciprocal rank, scored with a per-result breakdown). It is written against the
// interfaces of the root package only; cmd/server chooses the backends.
package memory
