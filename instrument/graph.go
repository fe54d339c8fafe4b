package instrument

import (
	"context"
	"time"

	"github.com/kgmem/kgmem"
)

// Graph wraps g, counting its failures under backend (for example "neo4j").
func Graph(g kgmem.GraphStore, backend string, e *Errors) kgmem.GraphStore {
	return &graph{g: g, backend: backend, e: e}
}

type graph struct {
	g       kgmem.GraphStore
	backend string
	e       *Errors
}

func (s *graph) Apply(ctx context.Context, cs kgmem.ChangeSet) error {
	return s.e.observe(s.backend, "Apply", s.g.Apply(ctx, cs))
}

func (s *graph) Episodes(ctx context.Context, ns kgmem.Namespace, ids []string) ([]kgmem.Episode, error) {
	v, err := s.g.Episodes(ctx, ns, ids)
	return v, s.e.observe(s.backend, "Episodes", err)
}

func (s *graph) EpisodeSpeakers(ctx context.Context, ns kgmem.Namespace, ids []string) ([]string, bool, error) {
	names, known, err := s.g.EpisodeSpeakers(ctx, ns, ids)
	return names, known, s.e.observe(s.backend, "EpisodeSpeakers", err)
}

func (s *graph) ListEpisodes(ctx context.Context, ns kgmem.Namespace, page kgmem.Page) ([]kgmem.Episode, error) {
	v, err := s.g.ListEpisodes(ctx, ns, page)
	return v, s.e.observe(s.backend, "ListEpisodes", err)
}

func (s *graph) LatestTime(ctx context.Context, ns kgmem.Namespace) (time.Time, error) {
	v, err := s.g.LatestTime(ctx, ns)
	return v, s.e.observe(s.backend, "LatestTime", err)
}

func (s *graph) Items(ctx context.Context, ns kgmem.Namespace, ids []string) ([]kgmem.Item, error) {
	v, err := s.g.Items(ctx, ns, ids)
	return v, s.e.observe(s.backend, "Items", err)
}

func (s *graph) ListItems(ctx context.Context, ns kgmem.Namespace, page kgmem.Page) ([]kgmem.Item, error) {
	v, err := s.g.ListItems(ctx, ns, page)
	return v, s.e.observe(s.backend, "ListItems", err)
}

func (s *graph) DeleteItem(ctx context.Context, ns kgmem.Namespace, id string) error {
	return s.e.observe(s.backend, "DeleteItem", s.g.DeleteItem(ctx, ns, id))
}

func (s *graph) ItemNamespaces(ctx context.Context, prefix kgmem.Namespace, liveAt time.Time) ([]kgmem.Namespace, error) {
	v, err := s.g.ItemNamespaces(ctx, prefix, liveAt)
	return v, s.e.observe(s.backend, "ItemNamespaces", err)
}

func (s *graph) ExpiredItems(ctx context.Context, ns kgmem.Namespace, at time.Time, limit int) ([]string, error) {
	v, err := s.g.ExpiredItems(ctx, ns, at, limit)
	return v, s.e.observe(s.backend, "ExpiredItems", err)
}

func (s *graph) RefreshItems(ctx context.Context, ns kgmem.Namespace, expiries []kgmem.ItemExpiry, at time.Time) error {
	return s.e.observe(s.backend, "RefreshItems", s.g.RefreshItems(ctx, ns, expiries, at))
}

func (s *graph) Entity(ctx context.Context, ns kgmem.Namespace, id string) (kgmem.Entity, error) {
	v, err := s.g.Entity(ctx, ns, id)
	return v, s.e.observe(s.backend, "Entity", err)
}

func (s *graph) Entities(ctx context.Context, ns kgmem.Namespace, ids []string) ([]kgmem.Entity, error) {
	v, err := s.g.Entities(ctx, ns, ids)
	return v, s.e.observe(s.backend, "Entities", err)
}

func (s *graph) FindEntities(ctx context.Context, ns kgmem.Namespace, f kgmem.EntityFilter) ([]kgmem.Entity, error) {
	v, err := s.g.FindEntities(ctx, ns, f)
	return v, s.e.observe(s.backend, "FindEntities", err)
}

func (s *graph) Fact(ctx context.Context, ns kgmem.Namespace, id string) (kgmem.Fact, error) {
	v, err := s.g.Fact(ctx, ns, id)
	return v, s.e.observe(s.backend, "Fact", err)
}

func (s *graph) Facts(ctx context.Context, ns kgmem.Namespace, ids []string) ([]kgmem.Fact, error) {
	v, err := s.g.Facts(ctx, ns, ids)
	return v, s.e.observe(s.backend, "Facts", err)
}

func (s *graph) ListFacts(ctx context.Context, ns kgmem.Namespace, f kgmem.FactFilter) ([]kgmem.Fact, error) {
	v, err := s.g.ListFacts(ctx, ns, f)
	return v, s.e.observe(s.backend, "ListFacts", err)
}

func (s *graph) SearchText(ctx context.Context, ns kgmem.Namespace, q kgmem.TextQuery) ([]kgmem.Hit, error) {
	v, err := s.g.SearchText(ctx, ns, q)
	return v, s.e.observe(s.backend, "SearchText", err)
}

func (s *graph) Neighborhood(ctx context.Context, ns kgmem.Namespace, q kgmem.NeighborhoodQuery) (kgmem.Subgraph, error) {
	v, err := s.g.Neighborhood(ctx, ns, q)
	return v, s.e.observe(s.backend, "Neighborhood", err)
}

func (s *graph) WalkFacts(ctx context.Context, ns kgmem.Namespace, q kgmem.NeighborhoodQuery, visit func(kgmem.WalkedFact)) error {
	return s.e.observe(s.backend, "WalkFacts", s.g.WalkFacts(ctx, ns, q, visit))
}

func (s *graph) ThreadNeighbors(ctx context.Context, ns kgmem.Namespace, q kgmem.ThreadNeighborsQuery) ([]kgmem.ThreadNeighbor, error) {
	v, err := s.g.ThreadNeighbors(ctx, ns, q)
	return v, s.e.observe(s.backend, "ThreadNeighbors", err)
}

func (s *graph) SetDecay(ctx context.Context, ns kgmem.Namespace, u []kgmem.DecayUpdate) error {
	return s.e.observe(s.backend, "SetDecay", s.g.SetDecay(ctx, ns, u))
}

func (s *graph) DeleteFact(ctx context.Context, ns kgmem.Namespace, id string) error {
	return s.e.observe(s.backend, "DeleteFact", s.g.DeleteFact(ctx, ns, id))
}

func (s *graph) PurgeNamespace(ctx context.Context, ns kgmem.Namespace) (kgmem.PurgeStats, error) {
	v, err := s.g.PurgeNamespace(ctx, ns)
	return v, s.e.observe(s.backend, "PurgeNamespace", err)
}

func (s *graph) Namespaces(ctx context.Context) ([]kgmem.Namespace, error) {
	v, err := s.g.Namespaces(ctx)
	return v, s.e.observe(s.backend, "Namespaces", err)
}

func (s *graph) Settings(ctx context.Context, ns kgmem.Namespace) (kgmem.NamespaceSettings, error) {
	v, err := s.g.Settings(ctx, ns)
	return v, s.e.observe(s.backend, "Settings", err)
}

func (s *graph) PutSettings(ctx context.Context, ns kgmem.Namespace, st kgmem.NamespaceSettings) error {
	return s.e.observe(s.backend, "PutSettings", s.g.PutSettings(ctx, ns, st))
}

func (s *graph) Ping(ctx context.Context) error {
	return s.e.observe(s.backend, "Ping", s.g.Ping(ctx))
}

func (s *graph) Close() error { return s.g.Close() }
