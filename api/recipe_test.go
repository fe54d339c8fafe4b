package api_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"os"
	"slices"
	"testing"

	"github.com/kgmem/kgmem/api"

	"github.com/kgmem/kgmem/memory"
)

// TestContractDeclaresTheRecipes: openapi.json lists the engine's recipes,
// in a search and in namespace settings.
func TestContractDeclaresTheRecipes(t *testing.T) {
	raw, err := os.ReadFile("openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Components struct {
			Schemas map[string]struct {
				Properties map[string]struct {
					Enum []*string `json:"enum"`
				} `json:"properties"`
			} `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, r := range memory.Recipes() {
		want = append(want, r.Name)
	}
	for _, at := range [][2]string{{"SearchRequest", "recipe"}, {"Settings", "search_recipe"}} {
		// null (absent: the default) besides the names, as the nullable
		// field's enum must list it.
		var got []string
		null := false
		for _, v := range doc.Components.Schemas[at[0]].Properties[at[1]].Enum {
			if v == nil {
				null = true
				continue
			}
			got = append(got, *v)
		}
		if !slices.Equal(got, want) || !null {
			t.Errorf("%s.%s lists %v (null %v), the engine has %v and null", at[0], at[1], got, null, want)
		}
	}
}

// TestSearchRecipeOverREST: a search names a recipe, a namespace's settings
// name one for its searches, and an unknown one is a 400 naming the field
// that changes nothing.
func TestSearchRecipeOverREST(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		s := newTestServer(t, b, api.Options{}, nil)
		ns := "apitest/recipes"
		post := map[string]any{"namespace": ns, "thread_id": "t1", "messages": []map[string]any{
			{"id": "1", "role": "user", "name": "Ann", "content": "Bob leads the Falcon team."}}}
		if code := s.json(http.MethodPost, "/v1/memories", post, nil); code != http.StatusCreated {
			t.Fatalf("post memories: %d", code)
		}
		facts := map[string]any{"namespace": ns, "facts": []map[string]any{{"subject": "Bob", "predicate": "leads", "object": "Falcon", "fact": "Bob leads Falcon."}}}
		if code := s.json(http.MethodPost, "/v1/facts", facts, nil); code != http.StatusOK && code != http.StatusCreated {
			t.Fatalf("post facts: %d", code)
		}
		var res struct {
			Facts    []json.RawMessage `json:"facts"`
			Episodes []json.RawMessage `json:"episodes"`
		}
		if code := s.json(http.MethodPost, "/v1/search", map[string]any{"namespace": ns, "query": "Who leads Falcon?", "recipe": "messages"}, &res); code != http.StatusOK || len(res.Episodes) == 0 || len(res.Facts) != 0 {
			t.Fatalf("search with the messages recipe: %d, %d facts, %d episodes; want messages only", code, len(res.Facts), len(res.Episodes))
		}
		var problem struct {
			Errors []struct {
				Field string `json:"field"`
			} `json:"errors"`
		}
		if code := s.json(http.MethodPost, "/v1/search", map[string]any{"namespace": ns, "query": "Who leads Falcon?", "recipe": "fastest"}, &problem); code != http.StatusBadRequest && code != http.StatusUnprocessableEntity {
			t.Errorf("search with an unknown recipe: %d, want 400 or 422", code)
		}
		settings := "/v1/namespaces/" + url.PathEscape(ns) + "/settings"
		if code := s.json(http.MethodPut, settings, map[string]any{"search_recipe": "fastest"}, nil); code != http.StatusBadRequest && code != http.StatusUnprocessableEntity {
			t.Errorf("settings with an unknown recipe: %d, want 400 or 422", code)
		}
		var got struct {
			SearchRecipe string `json:"search_recipe"`
		}
		if code := s.json(http.MethodPut, settings, map[string]any{"search_recipe": "facts"}, &got); code != http.StatusOK || got.SearchRecipe != "facts" {
			t.Fatalf("put settings: %d, search_recipe %q", code, got.SearchRecipe)
		}
		res.Facts, res.Episodes = nil, nil
		if code := s.json(http.MethodPost, "/v1/search", map[string]any{"namespace": ns, "query": "Who leads Falcon?"}, &res); code != http.StatusOK || len(res.Facts) == 0 || len(res.Episodes) != 0 {
			t.Errorf("search in a namespace set to facts: %d, %d facts, %d episodes; want facts only", code, len(res.Facts), len(res.Episodes))
		}
	})
}
