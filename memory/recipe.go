package memory

import (
	"fmt"
	"slices"
	"strings"

	"github.com/kgmem/kgmem"
)

// A Recipe is a named search configuration, declared as data: the kinds a
// search returns when the request names none, and the retrievers it runs
// with their weights. A request names its recipe (SearchRequest.Recipe), a
// namespace may name one for its searches (kgmem.NamespaceSettings.
// SearchRecipe), and the engine has a default (Config.Recipe); the
// engine's SearchOptions hold the constants every recipe starts from.
type Recipe struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	// Kinds are the kinds returned when the request names none (empty:
	// every kind).
	Kinds []kgmem.Kind `json:"kinds,omitempty"`
	// Retrievers are the retrievers the recipe runs, each with a factor on
	// the weight the engine's options give it (1: as configured). A
	// retriever the recipe does not name does not run.
	Retrievers map[string]float64 `json:"retrievers"`
}

// The built-in recipes' names.
const (
	RecipeDefault  = "default"
	RecipeMessages = "messages"
	RecipeFacts    = "facts"
	RecipeDirect   = "direct"
	RecipeKeyword  = "keyword"
	RecipeSemantic = "semantic"
)

// Recipes lists the built-in recipes, the default first.
func Recipes() []Recipe {
	all := map[string]float64{RetrieverVector: 1, RetrieverBM25: 1, RetrieverThread: 1, RetrieverSpeaker: 1, RetrieverGraph: 1}
	return []Recipe{
		{Name: RecipeDefault, Description: "every kind, every retriever: vector and BM25 recall, then the thread neighbours of the hits, the speakers the query names and the graph around its entities",
			Retrievers: all},
		{Name: RecipeMessages, Description: "messages only, with their thread neighbours and speakers",
			Kinds:      []kgmem.Kind{kgmem.KindEpisode},
			Retrievers: map[string]float64{RetrieverVector: 1, RetrieverBM25: 1, RetrieverThread: 1, RetrieverSpeaker: 1}},
		{Name: RecipeFacts, Description: "facts only, with the graph around the entities the query names",
			Kinds:      []kgmem.Kind{kgmem.KindFact},
			Retrievers: map[string]float64{RetrieverVector: 1, RetrieverBM25: 1, RetrieverGraph: 1}},
		{Name: RecipeDirect, Description: "every kind, direct matches only: vector and BM25 recall, no expansion around the hits",
			Retrievers: map[string]float64{RetrieverVector: 1, RetrieverBM25: 1}},
		{Name: RecipeKeyword, Description: "every kind, BM25 alone",
			Retrievers: map[string]float64{RetrieverBM25: 1}},
		{Name: RecipeSemantic, Description: "every kind, vector recall alone",
			Retrievers: map[string]float64{RetrieverVector: 1}},
	}
}

// recipeNamed returns the built-in recipe name, or an error naming field
// and the recipes there are.
func recipeNamed(field, name string) (Recipe, error) {
	all := Recipes()
	if i := slices.IndexFunc(all, func(r Recipe) bool { return r.Name == name }); i >= 0 {
		return all[i], nil
	}
	names := make([]string, len(all))
	for i, r := range all {
		names[i] = r.Name
	}
	return Recipe{}, kgmem.Invalidf(field, "%q is not a search recipe; use one of %s", name, strings.Join(names, ", "))
}

// ValidRecipe checks that name ("" for the default) names a recipe; the
// error wraps kgmem.ErrInvalid and names field.
func ValidRecipe(field, name string) error {
	if name == "" {
		return nil
	}
	_, err := recipeNamed(field, name)
	return err
}

// apply returns opts with the recipe's retrievers weighted: each it names
// at its factor of the weight opts give it, the others off.
func (r Recipe) apply(opts SearchOptions) SearchOptions {
	weigh := func(w *float64, retriever string) {
		*w *= r.Retrievers[retriever] // a retriever not named: 0, off
	}
	weigh(&opts.VectorWeight, RetrieverVector)
	weigh(&opts.TextWeight, RetrieverBM25)
	weigh(&opts.ThreadWeight, RetrieverThread)
	weigh(&opts.SpeakerWeight, RetrieverSpeaker)
	weigh(&opts.GraphWeight, RetrieverGraph)
	return opts
}

// kinds returns the kinds a search with the recipe returns when the request
// names none.
func (r Recipe) kinds() []kgmem.Kind {
	if len(r.Kinds) == 0 {
		return kgmem.AllKinds()
	}
	return slices.Clone(r.Kinds)
}

// searchRecipe is the recipe of a search: the request's, else the
// namespace's, else the engine's default.
func (e *Engine) searchRecipe(req SearchRequest, settings kgmem.NamespaceSettings) (Recipe, error) {
	switch {
	case req.Recipe != "":
		return recipeNamed("recipe", req.Recipe)
	case settings.SearchRecipe != "":
		r, err := recipeNamed("search_recipe", settings.SearchRecipe)
		if err != nil {
			return Recipe{}, fmt.Errorf("settings of %q: %w", req.Namespace, err)
		}
		return r, nil
	}
	return e.recipe, nil
}
