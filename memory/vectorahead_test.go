package memory_test

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/embed"
	"github.com/kgmem/kgmem/episodes"
	"github.com/kgmem/kgmem/memory"
)

// settingsAfterVectors is a graph store whose settings answer, once armed,
// only when the vector index was searched (or the caller's context ends).
type settingsAfterVectors struct {
	kgmem.GraphStore
	armed    *atomic.Bool
	searched <-chan struct{}
}

func (g settingsAfterVectors) Settings(ctx context.Context, ns kgmem.Namespace) (kgmem.NamespaceSettings, error) {
	if !g.armed.Load() {
		return g.GraphStore.Settings(ctx, ns)
	}
	select {
	case <-g.searched:
		return g.GraphStore.Settings(ctx, ns)
	case <-ctx.Done():
		return kgmem.NamespaceSettings{}, fmt.Errorf("settings waited for a vector search that never came: %w", ctx.Err())
	}
}

// searchSignal is a vector index that closes searched at its first search
// and records the kinds each search asked for.
type searchSignal struct {
	kgmem.VectorIndex
	once     sync.Once
	searched chan struct{}
	mu       sync.Mutex
	kinds    []kgmem.Kind
}

func (v *searchSignal) Search(ctx context.Context, q kgmem.VectorQuery) ([]kgmem.Hit, error) {
	v.mu.Lock()
	v.kinds = append(v.kinds, q.Kinds...)
	v.mu.Unlock()
	v.once.Do(func() { close(v.searched) })
	return v.VectorIndex.Search(ctx, q)
}

// TestVectorRecallOverlapsSettings: a search starts its vector recall
// while it reads its namespace's settings (a round trip to Neo4j, another
// to Milvus: the two overlap), guessing the recipe the settings name; a
// guess the settings contradict is dropped, and the recall the namespace's
// recipe asks for is run instead. The settings read came first, and the
// recall only after it.
func TestVectorRecallOverlapsSettings(t *testing.T) {
	ctx := t.Context()
	emb := embed.NewHashing(256)
	vectors := &searchSignal{VectorIndex: openVectors(t, emb), searched: make(chan struct{})}
	g := searchBackends(t)["sqlite"](t)
	// A bound for the old order, whose settings read would wait for ever.
	opts := memory.SearchOptions{Timeout: 10 * time.Second}
	var armed atomic.Bool
	e := newSearchEngineWith(t, settingsAfterVectors{GraphStore: g, armed: &armed, searched: vectors.searched}, memory.Config{Vectors: vectors, Search: opts})
	const ns = kgmem.Namespace("memtest/ahead")
	if _, err := e.Ingest(ctx, memory.IngestRequest{Namespace: ns, ThreadID: "t", Messages: []episodes.Message{
		{ID: "1", Role: episodes.RoleUser, Name: "Bob", Content: "Bob leads the Falcon team."}}}); err != nil {
		t.Fatal(err)
	}
	armed.Store(true) // searches only: the ingest reads the settings too
	res, err := e.Search(ctx, memory.SearchRequest{Namespace: ns, Query: "Who leads Falcon?"})
	if err != nil {
		t.Fatal(err)
	}
	if !foundBy(res, memory.RetrieverVector) {
		t.Errorf("the default recipe's search found nothing by vector: %+v", res.Episodes)
	}

	// The namespace names a recipe of messages only: the guess (every
	// kind) is dropped and the recall asks for episodes alone.
	if err := e.PutSettings(ctx, ns, kgmem.NamespaceSettings{SearchRecipe: memory.RecipeMessages}); err != nil {
		t.Fatal(err)
	}
	vectors.mu.Lock()
	vectors.kinds = nil
	vectors.mu.Unlock()
	res, err = e.Search(ctx, memory.SearchRequest{Namespace: ns, Query: "Who leads Falcon?"})
	if err != nil {
		t.Fatal(err)
	}
	if !foundBy(res, memory.RetrieverVector) || len(res.Facts)+len(res.Entities) > 0 {
		t.Errorf("the messages recipe's search: %+v", res)
	}
	vectors.mu.Lock()
	asked := slices.Clone(vectors.kinds)
	vectors.mu.Unlock()
	episodeSearches := 0
	for _, k := range asked {
		if k == kgmem.KindEpisode {
			episodeSearches++
		}
	}
	if len(asked) < 2 || episodeSearches < 2 {
		t.Errorf("vector searches asked for %v; want the guess's kinds, then episodes again for the namespace's recipe", asked)
	}

	// A recipe without vector recall: nothing found by vector.
	if err := e.PutSettings(ctx, ns, kgmem.NamespaceSettings{SearchRecipe: memory.RecipeKeyword}); err != nil {
		t.Fatal(err)
	}
	res, err = e.Search(ctx, memory.SearchRequest{Namespace: ns, Query: "Who leads Falcon?"})
	if err != nil {
		t.Fatal(err)
	}
	if foundBy(res, memory.RetrieverVector) || len(res.Episodes) == 0 {
		t.Errorf("the keyword recipe's search used vector recall or found nothing: %+v", res.Episodes)
	}
}

// foundBy reports whether retriever found any episode of res.
func foundBy(res memory.SearchResult, retriever string) bool {
	for _, ep := range res.Episodes {
		for _, s := range ep.Score.Sources {
			if s.Retriever == retriever {
				return true
			}
		}
	}
	return false
}
