package memory_test

import (
	"context"
	"errors"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/decay"
	"github.com/kgmem/kgmem/embed"
	"github.com/kgmem/kgmem/episodes"
	"github.com/kgmem/kgmem/memory"
)

// TestRecipes searches one namespace of messages and facts with each
// built-in recipe: each returns its kinds and only its retrievers' hits; a
// request's recipe wins over the namespace's, which wins over the engine's.
func TestRecipes(t *testing.T) {
	for name, open := range searchBackends(t) {
		t.Run(name, func(t *testing.T) {
			ctx := t.Context()
			g := open(t)
			v := openVectors(t, embed.NewHashing(256))
			e := newSearchEngineWith(t, g, memory.Config{Vectors: v, Search: memory.SearchOptions{VectorWeight: 0.01, TextWeight: 1}})
			ns := kgmem.Namespace("memtest/recipes")
			day := time.Date(2024, 3, 1, 9, 0, 0, 0, time.UTC)
			msgs := []episodes.Message{
				{ID: "1", Role: episodes.RoleUser, Name: "Ann", Content: "Which team does Bob lead now?", Timestamp: day},
				{ID: "2", Role: episodes.RoleUser, Name: "Cid", Content: "Falcon, since March.", Timestamp: day},
			}
			if _, err := e.Ingest(ctx, memory.IngestRequest{Namespace: ns, ThreadID: "t1", Messages: msgs}); err != nil {
				t.Fatal(err)
			}
			facts := []kgmem.Triple{
				{Subject: "Bob", SubjectType: "Person", Predicate: "leads", Object: "Falcon", ObjectType: "Team", Text: "Bob leads Falcon.", ValidAt: day},
				{Subject: "Falcon", SubjectType: "Team", Predicate: "based_in", Object: "Oslo", ObjectType: "City", Text: "Falcon sits in Oslo.", ValidAt: day},
			}
			if _, err := e.AddFacts(ctx, memory.AddFactsRequest{Namespace: ns, Facts: facts}); err != nil {
				t.Fatal(err)
			}
			for _, tc := range []struct {
				recipe  string
				kinds   []kgmem.Kind // kinds with results
				allowed []string     // retrievers that may be a source
			}{
				{memory.RecipeDefault, []kgmem.Kind{kgmem.KindEpisode, kgmem.KindFact, kgmem.KindEntity}, []string{"vector", "bm25", "thread", "speaker", "graph"}},
				{memory.RecipeMessages, []kgmem.Kind{kgmem.KindEpisode}, []string{"vector", "bm25", "thread", "speaker"}},
				{memory.RecipeFacts, []kgmem.Kind{kgmem.KindFact}, []string{"vector", "bm25", "graph"}},
				{memory.RecipeDirect, []kgmem.Kind{kgmem.KindEpisode, kgmem.KindFact, kgmem.KindEntity}, []string{"vector", "bm25"}},
				{memory.RecipeKeyword, []kgmem.Kind{kgmem.KindEpisode, kgmem.KindFact, kgmem.KindEntity}, []string{"bm25"}},
				{memory.RecipeSemantic, []kgmem.Kind{kgmem.KindEpisode, kgmem.KindFact, kgmem.KindEntity}, []string{"vector"}},
			} {
				res, err := e.Search(ctx, memory.SearchRequest{Namespace: ns, Query: "Which team does Bob lead?", Recipe: tc.recipe})
				if err != nil {
					t.Fatalf("%s: %v", tc.recipe, err)
				}
				got := map[kgmem.Kind][]memory.SourceScore{}
				for _, f := range res.Facts {
					got[kgmem.KindFact] = append(got[kgmem.KindFact], f.Score.Sources...)
				}
				for _, ep := range res.Episodes {
					got[kgmem.KindEpisode] = append(got[kgmem.KindEpisode], ep.Score.Sources...)
				}
				for _, en := range res.Entities {
					got[kgmem.KindEntity] = append(got[kgmem.KindEntity], en.Score.Sources...)
				}
				for _, k := range kgmem.AllKinds() {
					if want := slices.Contains(tc.kinds, k); want != (len(got[k]) > 0) {
						t.Errorf("%s: results of kind %s = %d sources, want some %v", tc.recipe, k, len(got[k]), want)
					}
					for _, s := range got[k] {
						if !slices.Contains(tc.allowed, s.Retriever) {
							t.Errorf("%s: a %s found by %s, which the recipe does not run", tc.recipe, k, s.Retriever)
						}
					}
				}
			}
			// The namespace's recipe applies when a request names none; the
			// request's wins.
			if err := e.PutSettings(ctx, ns, kgmem.NamespaceSettings{SearchRecipe: memory.RecipeFacts}); err != nil {
				t.Fatal(err)
			}
			res, err := e.Search(ctx, memory.SearchRequest{Namespace: ns, Query: "Which team does Bob lead?"})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Facts) == 0 || len(res.Episodes) != 0 {
				t.Errorf("with the namespace's facts recipe: %d facts, %d episodes; want facts only", len(res.Facts), len(res.Episodes))
			}
			res, err = e.Search(ctx, memory.SearchRequest{Namespace: ns, Query: "Which team does Bob lead?", Recipe: memory.RecipeMessages})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Episodes) == 0 || len(res.Facts) != 0 {
				t.Errorf("with the request's messages recipe: %d facts, %d episodes; want messages only", len(res.Facts), len(res.Episodes))
			}
		})
	}
}

// TestRecipeRejects: an unknown recipe is refused wherever it is named, with
// the field and nothing changed.
func TestRecipeRejects(t *testing.T) {
	g := searchBackends(t)["sqlite"](t)
	e := newSearchEngine(t, g, memory.SearchOptions{})
	ctx := t.Context()
	ns := kgmem.Namespace("memtest/recipe-bad")
	_, err := e.Search(ctx, memory.SearchRequest{Namespace: ns, Query: "anything", Recipe: "fastest"})
	var fe *kgmem.FieldError
	if !errors.Is(err, kgmem.ErrInvalid) || !errors.As(err, &fe) || fe.Field != "recipe" {
		t.Errorf("search with recipe %q: %v, want ErrInvalid naming recipe", "fastest", err)
	}
	err = e.PutSettings(ctx, ns, kgmem.NamespaceSettings{SearchRecipe: "fastest"})
	if !errors.As(err, &fe) || fe.Field != "search_recipe" {
		t.Errorf("settings with recipe %q: %v, want ErrInvalid naming search_recipe", "fastest", err)
	}
	if s, _, err := e.Settings(ctx, ns); err != nil || s.SearchRecipe != "" {
		t.Errorf("settings after the refusal = %+v, %v; want unchanged", s, err)
	}
	if _, err := memory.New(memory.Config{Graph: g, Vectors: openVectors(t, embed.NewHashing(256)), Embedder: embed.NewHashing(256), Recipe: "fastest"}); !errors.Is(err, kgmem.ErrInvalid) {
		t.Errorf("engine with default recipe %q: %v, want ErrInvalid", "fastest", err)
	}
	for _, r := range memory.Recipes() {
		if err := memory.ValidRecipe("recipe", r.Name); err != nil || r.Description == "" || len(r.Retrievers) == 0 {
			t.Errorf("built-in recipe %+v: %v", r, err)
		}
	}
}

// settingsCounter counts the namespace settings a search reads.
type settingsCounter struct {
	kgmem.GraphStore
	reads *atomic.Int64
}

func (g settingsCounter) Settings(ctx context.Context, ns kgmem.Namespace) (kgmem.NamespaceSettings, error) {
	g.reads.Add(1)
	return g.GraphStore.Settings(ctx, ns)
}

// TestSearchReadsSettingsOnce: a search reads its namespace's settings once,
// for its recipe and its decay model both; with a model of its own the
// engine reads them only for a recipe the request does not name.
func TestSearchReadsSettingsOnce(t *testing.T) {
	ctx := t.Context()
	g := searchBackends(t)["sqlite"](t)
	v := openVectors(t, embed.NewHashing(256))
	ns := kgmem.Namespace("memtest/settings-once")
	var reads atomic.Int64
	counted := settingsCounter{GraphStore: g, reads: &reads}
	own := func(context.Context, kgmem.Namespace) (decay.Model, error) {
		return decay.NewModel(decay.DefaultParams())
	}
	for _, tc := range []struct {
		name   string
		models decay.ModelFunc
		recipe string
		want   int64
	}{
		{"models from the settings", nil, "", 1},
		{"models from the settings, a recipe named", nil, memory.RecipeMessages, 1},
		{"models of its own", own, "", 1},
		{"models of its own, a recipe named", own, memory.RecipeMessages, 0},
	} {
		e := newSearchEngineWith(t, counted, memory.Config{Vectors: v, Decay: tc.models})
		if _, err := e.Ingest(ctx, memory.IngestRequest{Namespace: ns, ThreadID: "t", Messages: []episodes.Message{
			{ID: "1", Role: episodes.RoleUser, Content: "Bob leads the Falcon team.", Timestamp: time.Date(2024, 3, 1, 0, 0, 0, 0, time.UTC)}}}); err != nil {
			t.Fatal(err)
		}
		reads.Store(0)
		if _, err := e.Search(ctx, memory.SearchRequest{Namespace: ns, Query: "Who leads Falcon?", Recipe: tc.recipe}); err != nil {
			t.Fatal(err)
		}
		if got := reads.Load(); got != tc.want {
			t.Errorf("%s: the search read the settings %d times, want %d", tc.name, got, tc.want)
		}
	}
}
