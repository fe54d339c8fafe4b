package instrument

import (
	"context"

	"github.com/kgmem/kgmem"
)

// Vectors wraps v, counting its failures under backend (for example "milvus").
func Vectors(v kgmem.VectorIndex, backend string, e *Errors) kgmem.VectorIndex {
	return &vectors{v: v, backend: backend, e: e}
}

type vectors struct {
	v       kgmem.VectorIndex
	backend string
	e       *Errors
}

func (s *vectors) Dimension() int { return s.v.Dimension() }

func (s *vectors) Upsert(ctx context.Context, records []kgmem.VectorRecord) error {
	return s.e.observe(s.backend, "Upsert", s.v.Upsert(ctx, records))
}

func (s *vectors) Delete(ctx context.Context, ns kgmem.Namespace, ids []string) error {
	return s.e.observe(s.backend, "Delete", s.v.Delete(ctx, ns, ids))
}

func (s *vectors) DeleteNamespace(ctx context.Context, ns kgmem.Namespace) error {
	return s.e.observe(s.backend, "DeleteNamespace", s.v.DeleteNamespace(ctx, ns))
}

func (s *vectors) Search(ctx context.Context, q kgmem.VectorQuery) ([]kgmem.Hit, error) {
	v, err := s.v.Search(ctx, q)
	return v, s.e.observe(s.backend, "Search", err)
}

func (s *vectors) Count(ctx context.Context, ns kgmem.Namespace, k kgmem.Kind) (int, error) {
	v, err := s.v.Count(ctx, ns, k)
	return v, s.e.observe(s.backend, "Count", err)
}

func (s *vectors) ListIDs(ctx context.Context, ns kgmem.Namespace, page kgmem.Page) ([]kgmem.VectorKey, error) {
	v, err := s.v.ListIDs(ctx, ns, page)
	return v, s.e.observe(s.backend, "ListIDs", err)
}

func (s *vectors) Ping(ctx context.Context) error {
	return s.e.observe(s.backend, "Ping", s.v.Ping(ctx))
}

func (s *vectors) Close() error { return s.v.Close() }
