package sqlite

import (
	"context"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/internal/nscache"
	"github.com/kgmem/kgmem/lexical"
)

// SearchThroughFTS5 makes s rank every search with FTS5, as it does for a
// namespace too large for the in-memory BM25 index.
func SearchThroughFTS5(s *Store) { s.lex = nscache.New[*lexical.Index](0, 0) }

// LexicalIsCurrent reports whether s holds the BM25 index of kind in ns at
// its current graph version (built or advanced), without reading it.
func LexicalIsCurrent(ctx context.Context, s *Store, ns kgmem.Namespace, kind kgmem.Kind) (bool, error) {
	version, err := graphVersion(ctx, s.cached(s.r), ns)
	if err != nil {
		return false, err
	}
	read := false
	_, _, err = s.lex.Get(ctx, lexicalKey(kind, ns), version, func(context.Context) (nscache.Loaded[*lexical.Index], error) {
		read = true
		return nscache.Loaded[*lexical.Index]{}, nscache.ErrTooLarge
	})
	return !read, err
}

// WalkThreadsInSQL makes s answer ThreadNeighbors in SQL, as it does for a
// namespace too large for the thread order in memory.
func WalkThreadsInSQL(s *Store) { s.threads = nscache.New[*threadOrder](0, 0) }

// CacheEpisodes gives s an episode cache of at most budget bytes.
func CacheEpisodes(s *Store, budget int) { s.episodes = newEpisodeCache(budget) }

// HeldViews returns how many views of namespaces s holds in memory: BM25
// indexes, topologies, entity names, thread orders and entity facts.
func HeldViews(s *Store) int {
	_, lex := s.lex.Held()
	_, topo := s.topo.Held()
	_, names := s.names.Held()
	_, threads := s.threads.Held()
	_, facts := s.entityFacts.Held()
	return lex + topo + names + threads + facts
}

// EpisodeBytes is what ep weighs against an episode cache's budget.
func EpisodeBytes(ep kgmem.Episode) int { return episodeBytes(ep) }

// CachedEpisodes returns how many episodes of ns s holds in memory.
func CachedEpisodes(s *Store, ns kgmem.Namespace) int {
	s.episodes.mu.Lock()
	defer s.episodes.mu.Unlock()
	if sp := s.episodes.spaces[ns]; sp != nil {
		return len(sp.byID)
	}
	return 0
}

// HeldVersions returns the graph and episode versions s holds in memory for
// ns, and whether it holds them.
func HeldVersions(s *Store, ns kgmem.Namespace) (graph, episode int64, held bool) {
	s.memo.mu.Lock()
	defer s.memo.mu.Unlock()
	if e := s.memo.entries[ns]; e != nil && e.versions != nil {
		return e.versions.graph, e.versions.episode, true
	}
	return 0, 0, false
}

// FileVersions reads the graph and episode versions of ns from s's file.
func FileVersions(ctx context.Context, s *Store, ns kgmem.Namespace) (graph, episode int64, err error) {
	v, err := readVersions(ctx, s.r, ns)
	return v.graph, v.episode, err
}

// FindEntitiesInSQL makes s match entity names in SQL, as it does for a
// namespace with too many names to hold in memory.
func FindEntitiesInSQL(s *Store) { s.names = nscache.New[*entityNames](0, 0) }

// FactsShownFromMemory reports whether Facts would show the ends of the
// facts of ids from the entity names in memory (factsShown).
func FactsShownFromMemory(ctx context.Context, s *Store, ns kgmem.Namespace, ids []string) (bool, error) {
	_, ok, err := s.factsShown(ctx, ns, ids)
	return ok, err
}

// ListFactsStored is ListFacts by the file's indexes alone, without the
// entity-facts view.
func ListFactsStored(ctx context.Context, s *Store, ns kgmem.Namespace, f kgmem.FactFilter) ([]kgmem.Fact, error) {
	limit, err := pageLimit("limit", f.Page)
	if err != nil {
		return nil, err
	}
	return s.listFactsStored(ctx, ns, f, limit)
}

// EntityFactsAreCurrent reports whether s holds the entity-facts view of ns
// at its current graph version (built or advanced), without reading it.
func EntityFactsAreCurrent(ctx context.Context, s *Store, ns kgmem.Namespace) (bool, error) {
	version, err := graphVersion(ctx, s.cached(s.r), ns)
	if err != nil {
		return false, err
	}
	read := false
	_, _, err = s.entityFacts.Get(ctx, string(ns), version, func(context.Context) (nscache.Loaded[*entityFacts], error) {
		read = true
		return nscache.Loaded[*entityFacts]{}, nscache.ErrTooLarge
	})
	return !read, err
}
