package memory

import (
	"cmp"
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/kgmem/kgmem"
)

// TestPlan pins the declared pipeline: which stages run, in which order,
// for requests and options that switch stages on and off.
func TestPlan(t *testing.T) {
	e := &Engine{}
	all := kgmem.AllKinds()
	def := DefaultSearchOptions()
	noThread := def
	noThread.ThreadWeight = -1
	off := def
	off.ThreadWeight, off.GraphWeight, off.CurrencyFactor, off.TimeFactor, off.WhenFactor, off.MMRLambda = -1, -1, 1, -1, 1, 0.7
	tests := []struct {
		name  string
		req   SearchRequest
		opts  SearchOptions
		stage []string
	}{
		{"present tense, every kind", SearchRequest{Query: "Where does Alice live?", Include: all}, def,
			[]string{"retrieve:vector|bm25", "fuse", "retrieve:thread|graph & hydrate:entity|item", "fuse", "hydrate:fact|episode", "prior:currency", "provenance", "context"}},
		{"past tense", SearchRequest{Query: "Where did Alice live?", Include: all}, def,
			[]string{"retrieve:vector|bm25", "fuse", "retrieve:thread|graph & hydrate:entity|item", "fuse", "hydrate:fact|episode", "provenance", "context"}},
		{"a year", SearchRequest{Query: "Where did Kim live in 2021?", Include: all}, def,
			[]string{"retrieve:vector|bm25", "fuse", "retrieve:thread|graph & hydrate:entity|item", "fuse", "hydrate:fact|episode", "prior:time", "provenance", "context"}},
		{"as_of", SearchRequest{Query: "Where does Alice live?", Include: all, AsOf: time.Now()}, def,
			[]string{"retrieve:vector|bm25", "fuse", "retrieve:thread|graph & hydrate:entity|item", "fuse", "hydrate:fact|episode", "provenance", "context"}},
		{"history", SearchRequest{Query: "Where does Alice live?", Include: all, IncludeHistory: true}, def,
			[]string{"retrieve:vector|bm25", "fuse", "retrieve:thread|graph & hydrate:entity|item", "fuse", "hydrate:fact|episode", "provenance", "context"}},
		{"episodes only", SearchRequest{Query: "Where does Alice live?", Include: []kgmem.Kind{kgmem.KindEpisode}}, def,
			[]string{"retrieve:vector|bm25", "fuse", "retrieve:thread", "fuse", "hydrate:episode", "prior:currency", "provenance", "context"}},
		{"facts only", SearchRequest{Query: "When did Alice move?", Include: []kgmem.Kind{kgmem.KindFact}}, def,
			[]string{"retrieve:vector|bm25", "fuse", "retrieve:graph", "fuse", "hydrate:fact", "prior:when", "provenance", "context"}},
		{"thread off: episodes hydrated while the graph is walked", SearchRequest{Query: "Where did Alice live?", Include: all}, noThread,
			[]string{"retrieve:vector|bm25", "fuse", "retrieve:graph & hydrate:entity|episode|item", "fuse", "hydrate:fact", "provenance", "context"}},
		{"stages off, MMR on", SearchRequest{Query: "When did Alice move in 2021?", Include: all}, off,
			[]string{"retrieve:vector|bm25", "fuse", "hydrate:fact|entity|episode|item", "mmr", "provenance", "context"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := e.plan(tc.req, tc.opts.withDefaults(), parseQuery(tc.req.Query)).stageNames()
			if !slices.Equal(got, tc.stage) {
				t.Errorf("stages\n got %v\nwant %v", got, tc.stage)
			}
		})
	}
	noWhen := def
	noWhen.WhenFactor = -1
	got := e.plan(SearchRequest{Query: "When did Alice move?", Include: all}, noWhen.withDefaults(), parseQuery("When did Alice move?")).stageNames()
	if slices.Contains(got, "prior:when") {
		t.Errorf("a when-question with the when prior off plans %v", got)
	}
}

// TestSearchOptionsDefaults pins how zero and out-of-range prior factors
// are read: zero takes the default, outside (0, 1] switches the prior off.
func TestSearchOptionsDefaults(t *testing.T) {
	d := DefaultSearchOptions()
	tests := []struct {
		in, want float64
	}{{0, d.TimeFactor}, {0.3, 0.3}, {1, 1}, {-1, 1}, {2, 1}}
	for _, tc := range tests {
		if got := (SearchOptions{TimeFactor: tc.in}).withDefaults().TimeFactor; got != tc.want {
			t.Errorf("TimeFactor %v → %v, want %v", tc.in, got, tc.want)
		}
	}
}

// TestKindsNotAskedForAreEmptyLists searches one kind at a time: the other
// kinds are empty lists, not null, in the JSON answer (each kind is
// hydrated in a stage of its own, and one not asked for in none).
func TestKindsNotAskedForAreEmptyLists(t *testing.T) {
	e, _, ns := newSmallEngine(t)
	for _, k := range kgmem.AllKinds() {
		res, err := e.Search(t.Context(), SearchRequest{Namespace: ns, Query: "Ann Falcon bread", Include: []kgmem.Kind{k}})
		if err != nil {
			t.Fatal(err)
		}
		body, err := json.Marshal(res)
		if err != nil {
			t.Fatal(err)
		}
		var fields map[string]json.RawMessage
		if err := json.Unmarshal(body, &fields); err != nil {
			t.Fatal(err)
		}
		for _, name := range []string{"facts", "episodes", "entities", "items", "warnings"} {
			if v := string(fields[name]); v == "" || v == "null" {
				t.Errorf("include %s: %q is %s, want a list", k, name, cmp.Or(v, "missing"))
			}
		}
	}
}
