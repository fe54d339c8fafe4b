package milvus

import (
	"github.com/kgmem/kgmem"
)

// Milvus applies the shared rules of the root package (the same ones
// vector/hnsw applies), so both backends accept and refuse the same input.
// An all-zero vector, which COSINE cannot score, is refused there for both.

// checkNamespace validates ns, naming field in the error.
func checkNamespace(field string, ns kgmem.Namespace) error {
	return kgmem.CheckVectorNamespace(field, ns)
}

// checkID validates one record id, naming field in the error.
func checkID(field, id string) error { return kgmem.CheckVectorID(field, id) }

// checkKind validates a record kind, naming field in the error.
func checkKind(field string, k kgmem.Kind) error { return kgmem.CheckVectorKind(field, k) }
