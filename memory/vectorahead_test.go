package memory_test

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/embed"
	"github.com/kgmem/kgmem/episodes"
	"github.com/kgmem/kgmem/memory"
)

// settingsAfterVectors is a graph store whose settings, while its vector
// index expects a search, answer only once that search reached the index
// (or the caller's context ends).
type settingsAfterVectors struct {
	kgmem.GraphStore
	vectors *searchSignal
}

func (g settingsAfterVectors) Settings(ctx context.Context, ns kgmem.Namespace) (kgmem.NamespaceSettings, error) {
	if searched := g.vectors.expected(); searched != nil {
		select {
		case <-searched:
		case <-ctx.Done():
			return kgmem.NamespaceSettings{}, fmt.Errorf("settings waited for a vector search that never came: %w", ctx.Err())
		}
	}
	return g.GraphStore.Settings(ctx, ns)
}

// searchSignal is a vector index that records the kinds each search asked
// for and, after expectSearch, closes the channel it returned at the next
// search.
type searchSignal struct {
	kgmem.VectorIndex
	mu       sync.Mutex
	searched chan struct{}
	kinds    []kgmem.Kind
}

// expectSearch arms the signal for the next search and forgets the kinds
// asked so far.
func (v *searchSignal) expectSearch() {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.searched = make(chan struct{})
	v.kinds = nil
}

// expected is the channel the next search closes; nil when none is expected.
func (v *searchSignal) expected() <-chan struct{} {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.searched == nil {
		return nil
	}
	return v.searched
}

// asked is the kinds the searches since expectSearch asked for.
func (v *searchSignal) asked() []kgmem.Kind {
	v.mu.Lock()
	defer v.mu.Unlock()
	return slices.Clone(v.kinds)
}

func (v *searchSignal) Search(ctx context.Context, q kgmem.VectorQuery) ([]kgmem.Hit, error) {
	v.mu.Lock()
	v.kinds = append(v.kinds, q.Kinds...)
	if v.searched != nil {
		close(v.searched)
		v.searched = nil
	}
	v.mu.Unlock()
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
	vectors := &searchSignal{VectorIndex: openVectors(t, emb)}
	g := searchBackends(t)["sqlite"](t)
	// A bound for the old order, whose settings read would wait for ever.
	opts := memory.SearchOptions{Timeout: 10 * time.Second}
	e := newSearchEngineWith(t, settingsAfterVectors{GraphStore: g, vectors: vectors}, memory.Config{Vectors: vectors, Search: opts})
	const ns = kgmem.Namespace("memtest/ahead")
	if _, err := e.Ingest(ctx, memory.IngestRequest{Namespace: ns, ThreadID: "t", Messages: []episodes.Message{
		{ID: "1", Role: episodes.RoleUser, Name: "Bob", Content: "Bob leads the Falcon team."}}}); err != nil {
		t.Fatal(err)
	}
	vectors.expectSearch() // searches only: the ingest reads the settings too
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
	// The settings answer once the guess reached the index: it is asked,
	// then dropped.
	vectors.expectSearch()
	res, err = e.Search(ctx, memory.SearchRequest{Namespace: ns, Query: "Who leads Falcon?"})
	if err != nil {
		t.Fatal(err)
	}
	if !foundBy(res, memory.RetrieverVector) || len(res.Facts)+len(res.Entities) > 0 {
		t.Errorf("the messages recipe's search: %+v", res)
	}
	asked := vectors.asked()
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
