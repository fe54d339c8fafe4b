package kgmem

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// fakeSteps serves WalkNeighborhood from an in-memory graph: every fact of
// a frontier entity, once per frontier entity it touches (so a fact between
// two frontier entities comes twice, as a store's batched query returns it).
func fakeSteps(entities []string, facts []Fact, expandErr error) (NeighborhoodSteps, *[][]string) {
	var frontiers [][]string
	return NeighborhoodSteps{
		Entities: func(_ context.Context, ids []string) ([]Entity, error) {
			var out []Entity
			for _, id := range ids {
				if slices.Contains(entities, id) {
					out = append(out, Entity{ID: id})
				}
			}
			return out, nil
		},
		Expand: func(_ context.Context, frontier []string, out []Fact) ([]Fact, error) {
			if expandErr != nil {
				return nil, expandErr
			}
			frontiers = append(frontiers, slices.Clone(frontier))
			for _, id := range frontier {
				for _, f := range facts {
					if f.SubjectID == id || f.ObjectID == id {
						out = append(out, f)
					}
				}
			}
			return out, nil
		},
	}, &frontiers
}

func TestWalkNeighborhood(t *testing.T) {
	ents := []string{"a", "b", "c", "d"}
	facts := []Fact{
		{ID: "f_cb", SubjectID: "c", ObjectID: "b"},
		{ID: "f_ab", SubjectID: "a", ObjectID: "b"},
		{ID: "f_cd", SubjectID: "c", ObjectID: "d"},
	}
	tests := []struct {
		name          string
		seeds         []string
		depth         int
		wantFacts     []string
		wantDist      map[string]int
		wantFrontiers [][]string
	}{
		{"Depth1", []string{"a"}, 1, []string{"f_ab"}, map[string]int{"a": 0, "b": 1}, [][]string{{"a"}}},
		{"Depth2SortedFacts", []string{"a"}, 2, []string{"f_ab", "f_cb"}, map[string]int{"a": 0, "b": 1, "c": 2}, [][]string{{"a"}, {"b"}}},
		{"FactBetweenFrontierEntitiesOnce", []string{"b", "c"}, 1, []string{"f_ab", "f_cb", "f_cd"},
			map[string]int{"a": 1, "b": 0, "c": 0, "d": 1}, [][]string{{"b", "c"}}},
		{"SeedsDeduplicatedAndMissingDropped", []string{"d", "zz", "d"}, 3, []string{"f_ab", "f_cb", "f_cd"},
			map[string]int{"a": 3, "b": 2, "c": 1, "d": 0}, [][]string{{"d"}, {"c"}, {"b"}}},
		{"OnlyMissingSeeds", []string{"zz"}, 2, nil, map[string]int{}, nil},
		{"NoSeeds", nil, 2, nil, map[string]int{}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			steps, frontiers := fakeSteps(ents, facts, nil)
			g, err := WalkNeighborhood(t.Context(), NeighborhoodQuery{Seeds: tc.seeds}, tc.depth, steps)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, f := range g.Facts {
				got = append(got, f.ID)
			}
			if !slices.Equal(got, tc.wantFacts) {
				t.Errorf("facts = %v, want %v", got, tc.wantFacts)
			}
			if !maps.Equal(g.Distance, tc.wantDist) {
				t.Errorf("distance = %v, want %v", g.Distance, tc.wantDist)
			}
			var entIDs []string
			for _, e := range g.Entities {
				entIDs = append(entIDs, e.ID)
			}
			if want := slices.Sorted(maps.Keys(tc.wantDist)); !slices.Equal(entIDs, want) {
				t.Errorf("entities = %v, want %v", entIDs, want)
			}
			if !slices.EqualFunc(*frontiers, tc.wantFrontiers, slices.Equal) {
				t.Errorf("frontiers expanded = %v, want %v", *frontiers, tc.wantFrontiers)
			}
		})
	}
}

func TestWalkNeighborhoodExpandError(t *testing.T) {
	steps, _ := fakeSteps([]string{"a"}, nil, ErrUnavailable)
	if _, err := WalkNeighborhood(t.Context(), NeighborhoodQuery{Seeds: []string{"a"}}, 2, steps); !errors.Is(err, ErrUnavailable) {
		t.Fatalf("err = %v, want one wrapping ErrUnavailable", err)
	}
}

// TestSortFactsByID checks the index sort that moves each fact once against
// a plain sort, on permutations with cycles of every length, fixed points
// and none.
func TestSortFactsByID(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	for _, n := range []int{0, 1, 2, 3, 10, 257} {
		for round := range 20 {
			facts := make([]Fact, n)
			for i := range facts {
				facts[i] = Fact{ID: fmt.Sprintf("fact_%04d", rng.IntN(1000)*1000+i), Text: fmt.Sprint("text ", i), Confidence: float64(i)}
			}
			if round == 0 {
				slices.SortFunc(facts, func(a, b Fact) int { return strings.Compare(a.ID, b.ID) }) // already sorted
			}
			want := slices.Clone(facts)
			slices.SortFunc(want, func(a, b Fact) int { return strings.Compare(a.ID, b.ID) })
			sortFactsByID(facts)
			if !slices.EqualFunc(facts, want, func(a, b Fact) bool { return a.ID == b.ID && a.Text == b.Text && a.Confidence == b.Confidence }) {
				t.Fatalf("n=%d round %d: got %v, want %v", n, round, facts, want)
			}
		}
	}
}
