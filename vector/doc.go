// Package vector holds kgmem's vector-index backends. The contract is
// kgmem.VectorIndex; every backend passes the conformance suite in
// vector/vectortest.
//
//   - vector/hnsw: the embedded default. Vectors persisted in a SQLite file,
//     searched in memory by exact scan (small namespaces) or an HNSW graph.
//   - vector/milvus: the production backend on a Milvus server.
package vector
