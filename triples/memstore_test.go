package triples

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"unicode"

	"github.com/kgmem/kgmem"
)

// memStore is a small in-memory kgmem.GraphStore covering what the Integrator
// reads (FindEntities, ListFacts, Entities, Facts) and Apply. Methods the
// Integrator never calls panic through the nil embedded interface.
type memStore struct {
	kgmem.GraphStore
	mu       sync.Mutex
	entities map[string]kgmem.Entity
	facts    map[string]kgmem.Fact
	episodes map[string]kgmem.Episode
	mentions map[kgmem.Mention]bool
}

func newMemStore() *memStore {
	return &memStore{entities: map[string]kgmem.Entity{}, facts: map[string]kgmem.Fact{},
		episodes: map[string]kgmem.Episode{}, mentions: map[kgmem.Mention]bool{}}
}

func scoped(ns kgmem.Namespace, id string) string { return string(ns) + "\x00" + id }

func (m *memStore) Apply(_ context.Context, cs kgmem.ChangeSet) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, f := range cs.Facts {
		for _, id := range []string{f.SubjectID, f.ObjectID} {
			inCS := slices.ContainsFunc(cs.Entities, func(e kgmem.Entity) bool { return e.ID == id })
			if _, ok := m.entities[scoped(cs.Namespace, id)]; !ok && !inCS {
				return fmt.Errorf("fact %s: entity %s missing: %w", f.ID, id, kgmem.ErrInvalid)
			}
		}
	}
	for _, e := range cs.Episodes {
		if _, ok := m.episodes[scoped(cs.Namespace, e.ID)]; !ok {
			m.episodes[scoped(cs.Namespace, e.ID)] = e
		}
	}
	for _, e := range cs.Entities {
		m.entities[scoped(cs.Namespace, e.ID)] = e
	}
	for _, f := range cs.Facts {
		m.facts[scoped(cs.Namespace, f.ID)] = f
	}
	for _, mm := range cs.Mentions {
		m.mentions[mm] = true
	}
	return nil
}

func page[T any](items []T, id func(T) string, p kgmem.Page) []T {
	sort.Slice(items, func(i, j int) bool { return id(items[i]) < id(items[j]) })
	var out []T
	limit := p.Limit
	if limit == 0 {
		limit = 100
	}
	for _, it := range items {
		if id(it) > p.After && len(out) < limit {
			out = append(out, it)
		}
	}
	return out
}

func (m *memStore) FindEntities(_ context.Context, ns kgmem.Namespace, f kgmem.EntityFilter) ([]kgmem.Entity, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	keys := map[string]bool{}
	for _, n := range f.Names {
		keys[kgmem.NormalizeName(n)] = true
	}
	var out []kgmem.Entity
	for _, e := range m.entities {
		if e.Namespace != ns || f.Type != "" && e.Type != f.Type {
			continue
		}
		ok := true
		if len(f.Names) > 0 {
			ok = slices.ContainsFunc(e.Names(), func(n string) bool { return keys[kgmem.NormalizeName(n)] })
		}
		if ok && f.Query != "" {
			ok = slices.ContainsFunc(e.Names(), func(n string) bool {
				return strings.Contains(strings.ToLower(n), strings.ToLower(f.Query))
			})
		}
		if ok {
			out = append(out, e)
		}
	}
	return page(out, func(e kgmem.Entity) string { return e.ID }, f.Page), nil
}

func (m *memStore) ListFacts(_ context.Context, ns kgmem.Namespace, f kgmem.FactFilter) ([]kgmem.Fact, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []kgmem.Fact
	for _, fact := range m.facts {
		if fact.Namespace != ns || !f.IncludeExpired && !fact.ExpiredAt.IsZero() ||
			f.EntityID != "" && fact.SubjectID != f.EntityID && fact.ObjectID != f.EntityID ||
			f.Predicate != "" && fact.Predicate != f.Predicate {
			continue
		}
		out = append(out, m.withNames(ns, fact))
	}
	return page(out, func(f kgmem.Fact) string { return f.ID }, f.Page), nil
}

func (m *memStore) withNames(ns kgmem.Namespace, f kgmem.Fact) kgmem.Fact {
	f.SubjectName = m.entities[scoped(ns, f.SubjectID)].Name
	f.ObjectName = m.entities[scoped(ns, f.ObjectID)].Name
	return f
}

func (m *memStore) Entities(_ context.Context, ns kgmem.Namespace, ids []string) ([]kgmem.Entity, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []kgmem.Entity
	for _, id := range ids {
		if e, ok := m.entities[scoped(ns, id)]; ok {
			out = append(out, e)
		}
	}
	return out, nil
}

// SearchText scores entities by the number of query words among their names' words.
func (m *memStore) SearchText(_ context.Context, ns kgmem.Namespace, q kgmem.TextQuery) ([]kgmem.Hit, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	words := strings.FieldsFunc(strings.ToLower(q.Text), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
	var hits []kgmem.Hit
	for _, e := range m.entities {
		if e.Namespace != ns {
			continue
		}
		have := map[string]bool{}
		for _, n := range e.Names() {
			for _, w := range strings.FieldsFunc(strings.ToLower(n), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
				have[w] = true
			}
		}
		score := 0
		for _, w := range words {
			if have[w] {
				score++
			}
		}
		if score > 0 {
			hits = append(hits, kgmem.Hit{Kind: kgmem.KindEntity, ID: e.ID, Score: float64(score)})
		}
	}
	sort.Slice(hits, func(i, j int) bool {
		return hits[i].Score > hits[j].Score || hits[i].Score == hits[j].Score && hits[i].ID < hits[j].ID
	})
	if q.Limit > 0 && len(hits) > q.Limit {
		hits = hits[:q.Limit]
	}
	return hits, nil
}
