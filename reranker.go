package kgmem

import "context"

// Reranker scores documents against a query with a model that reads both
// (a cross-encoder), to reorder the candidates of a search.
type Reranker interface {
	// Rerank returns one relevance score per document, in order; higher is
	// more relevant. Scores are comparable within one call only.
	Rerank(ctx context.Context, query string, documents []string) ([]float64, error)
	// Name identifies the model.
	Name() string
}
