// Package embedded opens the embedded stores (the SQLite graph store and
// the HNSW vector index) in a directory as a server on the embedded
// backends opens them, and builds engines over them, for the in-process
// benchmarks.
package embedded

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/graph/sqlite"
	"github.com/kgmem/kgmem/memory"
	"github.com/kgmem/kgmem/vector/hnsw"
)

// Stores are a graph store and a vector index for one embedder.
type Stores struct {
	Graph    *sqlite.Store
	Vectors  *hnsw.Index
	Embedder kgmem.Embedder
}

// Open opens (or creates) the stores in dir, which must exist: the graph
// file owned by this process (sqlite.Exclusive), as the server owns it.
func Open(ctx context.Context, dir string, embedder kgmem.Embedder) (_ *Stores, err error) {
	s := &Stores{Embedder: embedder}
	defer func() {
		if err != nil {
			err = errors.Join(err, s.Close())
		}
	}()
	if s.Graph, err = sqlite.Open(ctx, filepath.Join(dir, "graph.db"), sqlite.Exclusive()); err != nil {
		return nil, fmt.Errorf("open graph store: %w", err)
	}
	if s.Vectors, err = hnsw.Open(ctx, filepath.Join(dir, "vectors.db"), embedder.Dimension(), hnsw.Options{}); err != nil {
		return nil, fmt.Errorf("open vector index: %w", err)
	}
	return s, nil
}

// Engine is an engine over the stores wired as the server wires it by
// default (decay from the namespace settings, searches that stop fanning
// out once the cores are busy, no extractor), with opts; log may be nil.
func (s *Stores) Engine(opts memory.SearchOptions, log *slog.Logger) (*memory.Engine, error) {
	return memory.New(memory.Config{Graph: s.Graph, Vectors: s.Vectors, Embedder: s.Embedder, Logger: log,
		Search: opts, InlineWhenBusy: true})
}

// Close closes the stores that are open.
func (s *Stores) Close() error {
	var errs []error
	if s.Vectors != nil {
		errs = append(errs, s.Vectors.Close())
	}
	if s.Graph != nil {
		errs = append(errs, s.Graph.Close())
	}
	return errors.Join(errs...)
}
