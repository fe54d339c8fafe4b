package instrument

import (
	"context"
	"time"

	"github.com/kgmem/kgmem"
)

// Graph wraps g, timing its calls and counting its failures under backend (for example "neo4j").
func Graph(g kgmem.GraphStore, backend string, m *Metrics) kgmem.GraphStore {
	return &graph{g: g, backend: backend, m: m}
}

type graph struct {
	g       kgmem.GraphStore
	backend string
	m       *Metrics
}

func (s *graph) Apply(ctx context.Context, cs kgmem.ChangeSet) error {
	done := s.m.start(s.backend, "Apply")
	return done(s.g.Apply(ctx, cs))
}

func (s *graph) Episodes(ctx context.Context, ns kgmem.Namespace, ids []string) ([]kgmem.Episode, error) {
	done := s.m.start(s.backend, "Episodes")
	v, err := s.g.Episodes(ctx, ns, ids)
	return v, done(err)
}

func (s *graph) EpisodeSpeakers(ctx context.Context, ns kgmem.Namespace, ids []string) ([]string, bool, error) {
	done := s.m.start(s.backend, "EpisodeSpeakers")
	names, known, err := s.g.EpisodeSpeakers(ctx, ns, ids)
	return names, known, done(err)
}

func (s *graph) ListEpisodes(ctx context.Context, ns kgmem.Namespace, page kgmem.Page) ([]kgmem.Episode, error) {
	done := s.m.start(s.backend, "ListEpisodes")
	v, err := s.g.ListEpisodes(ctx, ns, page)
	return v, done(err)
}

func (s *graph) LatestTime(ctx context.Context, ns kgmem.Namespace) (time.Time, error) {
	done := s.m.start(s.backend, "LatestTime")
	v, err := s.g.LatestTime(ctx, ns)
	return v, done(err)
}

func (s *graph) Items(ctx context.Context, ns kgmem.Namespace, ids []string) ([]kgmem.Item, error) {
	done := s.m.start(s.backend, "Items")
	v, err := s.g.Items(ctx, ns, ids)
	return v, done(err)
}

func (s *graph) ListItems(ctx context.Context, ns kgmem.Namespace, page kgmem.Page) ([]kgmem.Item, error) {
	done := s.m.start(s.backend, "ListItems")
	v, err := s.g.ListItems(ctx, ns, page)
	return v, done(err)
}

func (s *graph) DeleteItem(ctx context.Context, ns kgmem.Namespace, id string) error {
	done := s.m.start(s.backend, "DeleteItem")
	return done(s.g.DeleteItem(ctx, ns, id))
}

func (s *graph) ItemNamespaces(ctx context.Context, prefix kgmem.Namespace, liveAt time.Time) ([]kgmem.Namespace, error) {
	done := s.m.start(s.backend, "ItemNamespaces")
	v, err := s.g.ItemNamespaces(ctx, prefix, liveAt)
	return v, done(err)
}

func (s *graph) ExpiredItems(ctx context.Context, ns kgmem.Namespace, at time.Time, limit int) ([]string, error) {
	done := s.m.start(s.backend, "ExpiredItems")
	v, err := s.g.ExpiredItems(ctx, ns, at, limit)
	return v, done(err)
}

func (s *graph) RefreshItems(ctx context.Context, ns kgmem.Namespace, expiries []kgmem.ItemExpiry, at time.Time) error {
	done := s.m.start(s.backend, "RefreshItems")
	return done(s.g.RefreshItems(ctx, ns, expiries, at))
}

func (s *graph) Entity(ctx context.Context, ns kgmem.Namespace, id string) (kgmem.Entity, error) {
	done := s.m.start(s.backend, "Entity")
	v, err := s.g.Entity(ctx, ns, id)
	return v, done(err)
}

func (s *graph) Entities(ctx context.Context, ns kgmem.Namespace, ids []string) ([]kgmem.Entity, error) {
	done := s.m.start(s.backend, "Entities")
	v, err := s.g.Entities(ctx, ns, ids)
	return v, done(err)
}

func (s *graph) FindEntities(ctx context.Context, ns kgmem.Namespace, f kgmem.EntityFilter) ([]kgmem.Entity, error) {
	done := s.m.start(s.backend, "FindEntities")
	v, err := s.g.FindEntities(ctx, ns, f)
	return v, done(err)
}

func (s *graph) Fact(ctx context.Context, ns kgmem.Namespace, id string) (kgmem.Fact, error) {
	done := s.m.start(s.backend, "Fact")
	v, err := s.g.Fact(ctx, ns, id)
	return v, done(err)
}

func (s *graph) Facts(ctx context.Context, ns kgmem.Namespace, ids []string) ([]kgmem.Fact, error) {
	done := s.m.start(s.backend, "Facts")
	v, err := s.g.Facts(ctx, ns, ids)
	return v, done(err)
}

func (s *graph) ListFacts(ctx context.Context, ns kgmem.Namespace, f kgmem.FactFilter) ([]kgmem.Fact, error) {
	done := s.m.start(s.backend, "ListFacts")
	v, err := s.g.ListFacts(ctx, ns, f)
	return v, done(err)
}

func (s *graph) SearchText(ctx context.Context, ns kgmem.Namespace, q kgmem.TextQuery) ([]kgmem.Hit, error) {
	done := s.m.start(s.backend, "SearchText")
	v, err := s.g.SearchText(ctx, ns, q)
	return v, done(err)
}

func (s *graph) Neighborhood(ctx context.Context, ns kgmem.Namespace, q kgmem.NeighborhoodQuery) (kgmem.Subgraph, error) {
	done := s.m.start(s.backend, "Neighborhood")
	v, err := s.g.Neighborhood(ctx, ns, q)
	return v, done(err)
}

func (s *graph) WalkFacts(ctx context.Context, ns kgmem.Namespace, q kgmem.NeighborhoodQuery, visit func(kgmem.WalkedFact)) error {
	done := s.m.start(s.backend, "WalkFacts")
	return done(s.g.WalkFacts(ctx, ns, q, visit))
}

func (s *graph) ThreadNeighbors(ctx context.Context, ns kgmem.Namespace, q kgmem.ThreadNeighborsQuery) ([]kgmem.ThreadNeighbor, error) {
	done := s.m.start(s.backend, "ThreadNeighbors")
	v, err := s.g.ThreadNeighbors(ctx, ns, q)
	return v, done(err)
}

func (s *graph) SetDecay(ctx context.Context, ns kgmem.Namespace, u []kgmem.DecayUpdate) error {
	done := s.m.start(s.backend, "SetDecay")
	return done(s.g.SetDecay(ctx, ns, u))
}

func (s *graph) DeleteFact(ctx context.Context, ns kgmem.Namespace, id string) error {
	done := s.m.start(s.backend, "DeleteFact")
	return done(s.g.DeleteFact(ctx, ns, id))
}

func (s *graph) PurgeNamespace(ctx context.Context, ns kgmem.Namespace) (kgmem.PurgeStats, error) {
	done := s.m.start(s.backend, "PurgeNamespace")
	v, err := s.g.PurgeNamespace(ctx, ns)
	return v, done(err)
}

func (s *graph) Namespaces(ctx context.Context) ([]kgmem.Namespace, error) {
	done := s.m.start(s.backend, "Namespaces")
	v, err := s.g.Namespaces(ctx)
	return v, done(err)
}

func (s *graph) Settings(ctx context.Context, ns kgmem.Namespace) (kgmem.NamespaceSettings, error) {
	done := s.m.start(s.backend, "Settings")
	v, err := s.g.Settings(ctx, ns)
	return v, done(err)
}

func (s *graph) PutSettings(ctx context.Context, ns kgmem.Namespace, st kgmem.NamespaceSettings) error {
	done := s.m.start(s.backend, "PutSettings")
	return done(s.g.PutSettings(ctx, ns, st))
}

func (s *graph) Ping(ctx context.Context) error {
	done := s.m.start(s.backend, "Ping")
	return done(s.g.Ping(ctx))
}

func (s *graph) Close() error { return s.g.Close() }
