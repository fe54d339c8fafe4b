package kgmem

import "context"

// Embedder turns texts into vectors of a fixed dimension.
type Embedder interface {
	// Embed returns one vector per text, in order.
	Embed(ctx context.Context, texts []string) ([][]float32, error)
	// Dimension is the length of every vector Embed returns.
	Dimension() int
	// Name identifies the model ("hash-v1", "text-embedding-3-small"), so an index
	// built by one embedder is never searched with another's vectors.
	Name() string
}
