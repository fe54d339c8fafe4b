package instrument

import (
	"context"

	"github.com/kgmem/kgmem"
)

// Vectors wraps v, timing its calls and counting its failures under backend (for example "milvus").
func Vectors(v kgmem.VectorIndex, backend string, m *Metrics) kgmem.VectorIndex {
	return &vectors{v: v, backend: backend, m: m}
}

type vectors struct {
	v       kgmem.VectorIndex
	backend string
	m       *Metrics
}

func (s *vectors) Dimension() int { return s.v.Dimension() }

func (s *vectors) Upsert(ctx context.Context, records []kgmem.VectorRecord) error {
	done := s.m.start(s.backend, "Upsert")
	return done(s.v.Upsert(ctx, records))
}

func (s *vectors) Delete(ctx context.Context, ns kgmem.Namespace, ids []string) error {
	done := s.m.start(s.backend, "Delete")
	return done(s.v.Delete(ctx, ns, ids))
}

func (s *vectors) DeleteNamespace(ctx context.Context, ns kgmem.Namespace) error {
	done := s.m.start(s.backend, "DeleteNamespace")
	return done(s.v.DeleteNamespace(ctx, ns))
}

func (s *vectors) Search(ctx context.Context, q kgmem.VectorQuery) ([]kgmem.Hit, error) {
	done := s.m.start(s.backend, "Search")
	v, err := s.v.Search(ctx, q)
	return v, done(err)
}

func (s *vectors) Count(ctx context.Context, ns kgmem.Namespace, k kgmem.Kind) (int, error) {
	done := s.m.start(s.backend, "Count")
	v, err := s.v.Count(ctx, ns, k)
	return v, done(err)
}

func (s *vectors) ListIDs(ctx context.Context, ns kgmem.Namespace, page kgmem.Page) ([]kgmem.VectorKey, error) {
	done := s.m.start(s.backend, "ListIDs")
	v, err := s.v.ListIDs(ctx, ns, page)
	return v, done(err)
}

func (s *vectors) Ping(ctx context.Context) error {
	done := s.m.start(s.backend, "Ping")
	return done(s.v.Ping(ctx))
}

func (s *vectors) Close() error { return s.v.Close() }
