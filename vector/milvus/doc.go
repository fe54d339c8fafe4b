// Package milvus implements kgmem.VectorIndex on a Milvus 2.3+ server through
// the official Go SDK (github.com/milvus-io/milvus-sdk-go/v2).
//
// One collection holds every namespace. Its schema is explicit:
//
//	id          VarChar(512)  primary key = the graph id (never AutoID), so writes are idempotent upserts
//	namespace   VarChar(600)  partition key (unless Config.DisablePartitionKey), filtered on every read
//	kind        VarChar(16)   fact / entity / episode
//	created_at  Int64         Unix milliseconds (0 when unknown)
//	vector      FloatVector(Config.Dim)
//
// The vector field carries an HNSW index with the COSINE metric, passed
// explicitly, so a search score is the cosine similarity in [-1, 1].
//
// Every filter expression is built by this package from validated values:
// namespaces are checked with kgmem.ParseNamespace, kinds against the known
// set, and every string literal (ids included) is written as an escaped,
// double-quoted literal, so no caller text can change an expression's shape.
//
// Reads use the collection's consistency level, Strong by default: a search or
// count issued after Upsert or Delete returned sees that write. Bounded
// (staleness of a few seconds, cheaper) can be chosen in Config.
package milvus
