package decay

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"sync"

	"github.com/kgmem/kgmem"
)

// memStore is a small in-memory kgmem.GraphStore with just what the decay
// package uses: Apply, the id and paged reads, SetDecay and settings. The
// rest of the interface is left unimplemented (calling it panics).
type memStore struct {
	kgmem.GraphStore // nil: unimplemented methods panic

	mu       sync.Mutex
	facts    map[kgmem.Namespace]map[string]kgmem.Fact
	entities map[kgmem.Namespace]map[string]kgmem.Entity
	episodes map[kgmem.Namespace]map[string]kgmem.Episode
	items    map[kgmem.Namespace]map[string]kgmem.Item
	settings map[kgmem.Namespace]kgmem.NamespaceSettings
}

func newMemStore() *memStore {
	return &memStore{
		facts:    map[kgmem.Namespace]map[string]kgmem.Fact{},
		entities: map[kgmem.Namespace]map[string]kgmem.Entity{},
		episodes: map[kgmem.Namespace]map[string]kgmem.Episode{},
		items:    map[kgmem.Namespace]map[string]kgmem.Item{},
		settings: map[kgmem.Namespace]kgmem.NamespaceSettings{},
	}
}

func put[T any](m map[kgmem.Namespace]map[string]T, ns kgmem.Namespace, id string, v T) {
	if m[ns] == nil {
		m[ns] = map[string]T{}
	}
	m[ns][id] = v
}

func (s *memStore) Apply(_ context.Context, cs kgmem.ChangeSet) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, e := range cs.Episodes {
		if _, ok := s.episodes[cs.Namespace][e.ID]; !ok {
			put(s.episodes, cs.Namespace, e.ID, e)
		}
	}
	for _, e := range cs.Entities {
		put(s.entities, cs.Namespace, e.ID, e)
	}
	for _, f := range cs.Facts {
		put(s.facts, cs.Namespace, f.ID, f)
	}
	for _, it := range cs.Items {
		put(s.items, cs.Namespace, it.ID, it)
	}
	return nil
}

func byIDs[T any](m map[string]T, ids []string) []T {
	var out []T
	for _, id := range ids {
		if v, ok := m[id]; ok {
			out = append(out, v)
		}
	}
	return out
}

func paged[T any](m map[string]T, page kgmem.Page, keep func(T) bool) []T {
	ids := make([]string, 0, len(m))
	for id := range m {
		if id > page.After && keep(m[id]) {
			ids = append(ids, id)
		}
	}
	slices.SortFunc(ids, cmp.Compare[string])
	limit := cmp.Or(page.Limit, 100)
	if len(ids) > limit {
		ids = ids[:limit]
	}
	return byIDs(m, ids)
}

func (s *memStore) Episodes(_ context.Context, ns kgmem.Namespace, ids []string) ([]kgmem.Episode, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return byIDs(s.episodes[ns], ids), nil
}

func (s *memStore) ListEpisodes(_ context.Context, ns kgmem.Namespace, page kgmem.Page) ([]kgmem.Episode, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return paged(s.episodes[ns], page, func(kgmem.Episode) bool { return true }), nil
}

func (s *memStore) Items(_ context.Context, ns kgmem.Namespace, ids []string) ([]kgmem.Item, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return byIDs(s.items[ns], ids), nil
}

func (s *memStore) ListItems(_ context.Context, ns kgmem.Namespace, page kgmem.Page) ([]kgmem.Item, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return paged(s.items[ns], page, func(kgmem.Item) bool { return true }), nil
}

func (s *memStore) Entities(_ context.Context, ns kgmem.Namespace, ids []string) ([]kgmem.Entity, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return byIDs(s.entities[ns], ids), nil
}

func (s *memStore) FindEntities(_ context.Context, ns kgmem.Namespace, f kgmem.EntityFilter) ([]kgmem.Entity, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return paged(s.entities[ns], f.Page, func(kgmem.Entity) bool { return true }), nil
}

func (s *memStore) Facts(_ context.Context, ns kgmem.Namespace, ids []string) ([]kgmem.Fact, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return byIDs(s.facts[ns], ids), nil
}

func (s *memStore) ListFacts(_ context.Context, ns kgmem.Namespace, f kgmem.FactFilter) ([]kgmem.Fact, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return paged(s.facts[ns], f.Page, func(x kgmem.Fact) bool { return f.IncludeExpired || x.Current() }), nil
}

func (s *memStore) SetDecay(_ context.Context, ns kgmem.Namespace, updates []kgmem.DecayUpdate) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, u := range updates {
		switch u.Kind {
		case kgmem.KindFact:
			if f, ok := s.facts[ns][u.ID]; ok {
				f.Decay = u.State
				s.facts[ns][u.ID] = f
			}
		case kgmem.KindEntity:
			if e, ok := s.entities[ns][u.ID]; ok {
				e.Decay = u.State
				s.entities[ns][u.ID] = e
			}
		case kgmem.KindEpisode:
			if e, ok := s.episodes[ns][u.ID]; ok {
				e.Decay = u.State
				s.episodes[ns][u.ID] = e
			}
		case kgmem.KindItem:
			if it, ok := s.items[ns][u.ID]; ok {
				it.Decay = u.State
				s.items[ns][u.ID] = it
			}
		default:
			return fmt.Errorf("set decay: kind %q: %w", u.Kind, kgmem.ErrInvalid)
		}
	}
	return nil
}

func (s *memStore) Settings(_ context.Context, ns kgmem.Namespace) (kgmem.NamespaceSettings, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.settings[ns], nil
}

func (s *memStore) PutSettings(_ context.Context, ns kgmem.Namespace, st kgmem.NamespaceSettings) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.settings[ns] = st
	return nil
}

func (s *memStore) Close() error { return nil }

// flakyStore fails SetDecay with kgmem.ErrUnavailable while failing is set.
type flakyStore struct {
	kgmem.GraphStore
	mu      sync.Mutex
	failing bool
	calls   int
}

func (s *flakyStore) setFailing(v bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.failing = v
}

func (s *flakyStore) SetDecay(ctx context.Context, ns kgmem.Namespace, updates []kgmem.DecayUpdate) error {
	s.mu.Lock()
	s.calls++
	failing := s.failing
	s.mu.Unlock()
	if failing {
		return fmt.Errorf("flaky store: %w", kgmem.ErrUnavailable)
	}
	return s.GraphStore.SetDecay(ctx, ns, updates)
}
