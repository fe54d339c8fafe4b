package hnsw

import (
	"github.com/kgmem/kgmem"
)

// The embedded index applies the shared rules of the root package (the same
// ones vector/milvus applies), so both backends accept and refuse the same
// input; these names keep the call sites short.

// checkNamespace validates ns, naming field in the error.
func checkNamespace(field string, ns kgmem.Namespace) error {
	return kgmem.CheckVectorNamespace(field, ns)
}

// checkKind validates a record kind.
func checkKind(field string, k kgmem.Kind) error { return kgmem.CheckVectorKind(field, k) }

// checkRecords validates a whole Upsert batch before anything is written.
func checkRecords(records []kgmem.VectorRecord, dim int) error {
	return kgmem.CheckVectorRecords(records, dim)
}

// checkQuery validates a search (any positive K: the index has no top-k cap).
func checkQuery(q kgmem.VectorQuery, dim int) error { return kgmem.CheckVectorQuery(q, dim, 0) }
