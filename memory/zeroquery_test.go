package memory_test

import (
	"context"
	"testing"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/episodes"
	"github.com/kgmem/kgmem/memory"
)

// TestQueryWithoutFeatures checks that a query with nothing to embed (the
// hash embedder gives punctuation a zero vector, which no vector index
// accepts) is answered without vector recall and without a warning: nothing
// failed.
func TestQueryWithoutFeatures(t *testing.T) {
	h := newHarness(t, nil)
	ctx := context.Background()
	const ns = kgmem.Namespace("zq")
	if _, err := h.engine.Ingest(ctx, memory.IngestRequest{Namespace: ns, ThreadID: "t", Messages: []episodes.Message{msg("m1", "Ann", "Rockets at dawn.", "2024-01-01T00:00:00Z")}}); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"???", "!!! ..."} {
		res, err := h.engine.Search(ctx, memory.SearchRequest{Namespace: ns, Query: q})
		if err != nil {
			t.Fatalf("search %q: %v", q, err)
		}
		if len(res.Warnings) != 0 {
			t.Errorf("search %q: warnings %q, want none", q, res.Warnings)
		}
	}
}
