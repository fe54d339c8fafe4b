// Package vectortest is the conformance suite of kgmem.VectorIndex. Every
// backend (vector/hnsw, vector/milvus) runs the same Run, so the embedded
// default and the production index behave identically.
//
// The suite talks to the index through kgmem.VectorIndex only and keeps the
// data small (at most a few thousand vectors, written in batches) so it stays
// quick against a networked server. Ids are unique across namespaces, as the
// graph's ids are, so a backend may key records by id alone.
package vectortest

import (
	"testing"

	"github.com/kgmem/kgmem"
)

// Opener returns a fresh, empty index of dimension dim. It registers its own
// cleanup (closing the index, dropping its data) with t.Cleanup.
type Opener func(t *testing.T, dim int) kgmem.VectorIndex

// scoreTolerance absorbs float32 rounding in backends that normalise vectors.
const scoreTolerance = 1e-3

// Run runs the whole conformance suite against indexes made by open.
func Run(t *testing.T, open func(t *testing.T, dim int) kgmem.VectorIndex) {
	t.Helper()
	tests := []struct {
		name string
		fn   func(t *testing.T, open Opener)
	}{
		{"Dimension", testDimension},
		{"ExactMatchFirst", testExactMatchFirst},
		{"KHonoured", testKHonoured},
		{"KindsFilter", testKindsFilter},
		{"KEach", testKEach},
		{"NamespaceIsolation", testNamespaceIsolation},
		{"UpsertReplaces", testUpsertReplaces},
		{"Delete", testDelete},
		{"DeleteNamespace", testDeleteNamespace},
		{"Count", testCount},
		{"DimensionMismatch", testDimensionMismatch},
		{"EmptyNamespace", testEmptyNamespace},
		{"InvalidInput", testInvalidInput},
		{"ZeroVector", testZeroVector},
		{"ListIDs", testListIDs},
		{"Ping", testPing},
		{"Recall", testRecall},
		{"RecallAfterPurgeRewrite", testRecallAfterPurgeRewrite},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { tt.fn(t, open) })
	}
}
