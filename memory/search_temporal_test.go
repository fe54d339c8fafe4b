package memory_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/embed"
	"github.com/kgmem/kgmem/episodes"
	"github.com/kgmem/kgmem/memory"
)

func ymd(y int, m time.Month, d int) time.Time { return time.Date(y, m, d, 0, 0, 0, 0, time.UTC) }

// TestTemporalFactSearch pins time-aware retrieval of facts on every
// backend: a present-tense question ranks the fact true now first, a year
// in the question ranks the fact valid then first (no as_of needed), an
// event ("before she moved to Berlin") is dated from the facts, and
// as_of never returns what was not yet true. Each case posts its facts in
// both orders, so a tie broken by arrival order cannot pass.
func TestTemporalFactSearch(t *testing.T) {
	alice := []kgmem.Triple{
		{Subject: "Alice", Predicate: "lives in", Object: "Paris", Text: "Alice lives in Paris.", ValidAt: ymd(2023, 1, 1), InvalidAt: ymd(2024, 2, 1)},
		{Subject: "Alice", Predicate: "lives in", Object: "Berlin", Text: "Alice lives in Berlin.", ValidAt: ymd(2024, 2, 1)},
	}
	kim := []kgmem.Triple{
		{Subject: "Kim", Predicate: "lives in", Object: "Oslo", Text: "Kim lives in Oslo.", ValidAt: ymd(2019, 6, 1), InvalidAt: ymd(2022, 3, 1)},
		{Subject: "Kim", Predicate: "lives in", Object: "Rome", Text: "Kim lives in Rome.", ValidAt: ymd(2022, 3, 1)},
		{Subject: "Kim", Predicate: "lived in", Object: "Lima", Text: "Kim lived in Lima.", ValidAt: ymd(2015, 1, 1), InvalidAt: ymd(2019, 6, 1)},
	}
	tests := []struct {
		name  string
		facts []kgmem.Triple
		req   memory.SearchRequest
		first string   // the expected first fact ("" : none at all)
		never []string // facts that must not be returned
	}{
		{"present tense prefers what is true now", alice, memory.SearchRequest{Query: "Where does Alice live?"}, "Alice lives in Berlin.", nil},
		{"present tense, no question word", alice, memory.SearchRequest{Query: "Alice's city"}, "Alice lives in Berlin.", nil},
		{"before an event: the state just before it", kim, memory.SearchRequest{Query: "Where did Kim live before she moved to Rome?"}, "Kim lives in Oslo.", nil},
		{"before an event", alice, memory.SearchRequest{Query: "Where did Alice live before she moved to Berlin?"}, "Alice lives in Paris.", nil},
		{"after an event that ends a fact", kim, memory.SearchRequest{Query: "Where did Kim live after leaving Oslo?"}, "Kim lives in Rome.", nil},
		{"before an event that ends a fact", kim, memory.SearchRequest{Query: "Where did Kim go before leaving Lima?"}, "Kim lived in Lima.", nil},
		{"a year in the question", kim, memory.SearchRequest{Query: "Where did Kim live in 2021?"}, "Kim lives in Oslo.", nil},
		{"another year", kim, memory.SearchRequest{Query: "Where did Kim live in 2017?"}, "Kim lived in Lima.", nil},
		{"a month and year", kim, memory.SearchRequest{Query: "Where was Kim living in May 2023?"}, "Kim lives in Rome.", nil},
		{"before a year", kim, memory.SearchRequest{Query: "Where did Kim live before 2019?"}, "Kim lived in Lima.", nil},
		{"now", kim, memory.SearchRequest{Query: "Where does Kim live?"}, "Kim lives in Rome.", nil},
		{"as_of never returns what was not yet true", kim, memory.SearchRequest{Query: "Where does Kim live?", AsOf: ymd(2020, 1, 1)}, "Kim lives in Oslo.", []string{"Kim lives in Rome."}},
		{"as_of before anything", kim, memory.SearchRequest{Query: "Where does Kim live?", AsOf: ymd(2014, 1, 1)}, "", nil},
	}
	for name, open := range searchBackends(t) {
		t.Run(name, func(t *testing.T) {
			for _, tc := range tests {
				for _, reversed := range []bool{false, true} {
					t.Run(tc.name+map[bool]string{false: "", true: "/reversed"}[reversed], func(t *testing.T) {
						ctx := t.Context()
						e := newSearchEngine(t, open(t), memory.SearchOptions{})
						ns := kgmem.Namespace("memtest/temporal/" + kgmem.NewID("t"))
						facts := slices.Clone(tc.facts)
						if reversed {
							slices.Reverse(facts)
						}
						for _, f := range facts { // one request each: arrival order matters to the integrator
							if _, err := e.AddFacts(ctx, memory.AddFactsRequest{Namespace: ns, Facts: []kgmem.Triple{f}}); err != nil {
								t.Fatal(err)
							}
						}
						req := tc.req
						req.Namespace, req.Include = ns, []kgmem.Kind{kgmem.KindFact}
						res, err := e.Search(ctx, req)
						if err != nil {
							t.Fatal(err)
						}
						var got []string
						for _, f := range res.Facts {
							got = append(got, f.Text)
						}
						switch {
						case tc.first == "" && len(got) > 0:
							t.Errorf("facts %q, want none", got)
						case tc.first != "" && (len(got) == 0 || got[0] != tc.first):
							t.Errorf("facts %q, want %q first", got, tc.first)
						}
						for _, n := range tc.never {
							if slices.Contains(got, n) {
								t.Errorf("facts %q hold %q, which was not yet true", got, n)
							}
						}
					})
				}
			}
		})
	}
}

// TestTemporalEpisodeSearch pins time-aware retrieval of messages: a
// relative time ("last year") resolves against the namespace's own
// timeline (its latest message), not the wall clock, and a "when…?"
// question with the when prior on ranks the message that dates the event
// first.
func TestTemporalEpisodeSearch(t *testing.T) {
	msgs := []episodes.Message{
		{ID: "m1", Role: "user", Name: "Ann", Content: "I cooked a big paella for the family.", Timestamp: ymd(2022, 7, 3)},
		{ID: "m2", Role: "user", Name: "Ann", Content: "I cooked a big paella for friends.", Timestamp: ymd(2023, 5, 20)},
		{ID: "m3", Role: "user", Name: "Sam", Content: "The puppy we adopted is adorable.", Timestamp: ymd(2023, 5, 21)},
		{ID: "m4", Role: "user", Name: "Sam", Content: "We adopted a puppy last weekend!", Timestamp: ymd(2023, 5, 22)},
		{ID: "m5", Role: "user", Name: "Sam", Content: "Ann, your paella was great.", Timestamp: ymd(2023, 6, 1)},
	}
	tests := []struct {
		name  string
		opts  memory.SearchOptions
		query string
		first string
	}{
		{"last year is the timeline's", memory.SearchOptions{}, "What did Ann cook last year?", "m1"},
		{"this year is the timeline's", memory.SearchOptions{}, "What did Ann cook this year?", "m2"},
		{"an explicit year", memory.SearchOptions{}, "What did Ann cook in 2022?", "m1"},
		{"a month ago", memory.SearchOptions{}, "What did Ann cook a month ago?", "m2"},
		{"when did: the message that dates it", memory.SearchOptions{WhenFactor: 0.5}, "When did Sam adopt the puppy?", "m4"},
	}
	for name, open := range searchBackends(t) {
		t.Run(name, func(t *testing.T) {
			g := open(t)
			ctx := t.Context()
			ns := kgmem.Namespace("memtest/temporal-episodes/" + kgmem.NewID("t"))
			v := openVectors(t, embed.NewHashing(256))
			seed := newSearchEngineWith(t, g, memory.Config{Vectors: v})
			if _, err := seed.Ingest(ctx, memory.IngestRequest{Namespace: ns, ThreadID: "t1", Messages: msgs}); err != nil {
				t.Fatal(err)
			}
			for _, tc := range tests {
				t.Run(tc.name, func(t *testing.T) {
					e := newSearchEngineWith(t, g, memory.Config{Search: tc.opts, Vectors: v})
					res, err := e.Search(ctx, memory.SearchRequest{Namespace: ns, Query: tc.query, Include: []kgmem.Kind{kgmem.KindEpisode}})
					if err != nil {
						t.Fatal(err)
					}
					var got []string
					for _, ep := range res.Episodes {
						got = append(got, ep.MessageID)
					}
					if len(got) == 0 || got[0] != tc.first {
						t.Errorf("episodes %v, want %s first", got, tc.first)
					}
				})
			}
		})
	}
}

// timelineDown fails the read of a namespace's latest time.
type timelineDown struct{ kgmem.GraphStore }

func (timelineDown) LatestTime(context.Context, kgmem.Namespace) (time.Time, error) {
	return time.Time{}, errors.New("latest time unavailable")
}

// TestTimePriorDegrades checks that a relative time the namespace's
// timeline cannot resolve (its store fails) degrades the search with a
// warning instead of failing it.
func TestTimePriorDegrades(t *testing.T) {
	g := searchBackends(t)["sqlite"](t)
	v := openVectors(t, embed.NewHashing(256))
	ctx := t.Context()
	ns := kgmem.Namespace("memtest/timeline-down")
	seed := newSearchEngineWith(t, g, memory.Config{Vectors: v})
	if _, err := seed.Ingest(ctx, memory.IngestRequest{Namespace: ns, ThreadID: "t", Messages: []episodes.Message{
		{ID: "m1", Role: "user", Name: "Ann", Content: "I cooked paella.", Timestamp: ymd(2022, 7, 3)},
	}}); err != nil {
		t.Fatal(err)
	}
	e := newSearchEngineWith(t, timelineDown{g}, memory.Config{Vectors: v})
	res, err := e.Search(ctx, memory.SearchRequest{Namespace: ns, Query: "What did Ann cook last year?"})
	if err != nil {
		t.Fatalf("search failed instead of degrading: %v", err)
	}
	if len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0], "time prior unavailable") || len(res.Episodes) == 0 {
		t.Errorf("warnings %q, episodes %d: want one time-prior warning and the message", res.Warnings, len(res.Episodes))
	}
}

// TestRelativeTimeFollowsDeletes checks that "last year" resolves against
// the namespace's timeline as it is now: deleting the fact that set the
// timeline's end moves it back, so the next search dates the year from
// what remains.
func TestRelativeTimeFollowsDeletes(t *testing.T) {
	facts := []kgmem.Triple{
		{Subject: "Ann", Predicate: "ran", Object: "Oslo marathon", Text: "Ann ran the Oslo marathon.", ValidAt: ymd(2021, 5, 1), InvalidAt: ymd(2021, 5, 2)},
		{Subject: "Ann", Predicate: "ran", Object: "Bergen marathon", Text: "Ann ran the Bergen marathon race.", ValidAt: ymd(2022, 5, 1), InvalidAt: ymd(2022, 5, 2)},
		{Subject: "Ann", Predicate: "plans", Object: "Rome marathon", Text: "Ann plans the Rome marathon.", ValidAt: ymd(2030, 5, 1), InvalidAt: ymd(2030, 5, 2)},
	}
	query := "Which marathon race did Ann run last year?"
	for name, open := range searchBackends(t) {
		t.Run(name, func(t *testing.T) {
			ctx := t.Context()
			e := newSearchEngineWith(t, open(t), memory.Config{})
			ns := kgmem.Namespace("memtest/timeline-delete-" + name)
			added, err := e.AddFacts(ctx, memory.AddFactsRequest{Namespace: ns, Facts: facts})
			if err != nil {
				t.Fatal(err)
			}
			search := func() memory.SearchResult {
				t.Helper()
				res, err := e.Search(ctx, memory.SearchRequest{Namespace: ns, Query: query, Include: []kgmem.Kind{kgmem.KindFact}, IncludeHistory: true})
				if err != nil {
					t.Fatal(err)
				}
				return res
			}
			search() // reads the timeline, ending in 2030
			var rome string
			for _, c := range added.Facts {
				if c.Fact.Text == facts[2].Text {
					rome = c.Fact.ID
				}
			}
			if rome == "" {
				t.Fatalf("the Rome fact was not added: %+v", added.Facts)
			}
			if err := e.DeleteFact(ctx, ns, rome); err != nil {
				t.Fatal(err)
			}
			res := search() // the timeline now ends in 2022: last year is 2021
			if len(res.Facts) == 0 || res.Facts[0].Text != facts[0].Text {
				var got []string
				for _, f := range res.Facts {
					got = append(got, f.Text)
				}
				t.Errorf("first facts %q, want %q first", got, facts[0].Text)
			}
		})
	}
}

// TestNamedTimeReachesSupersededFacts: a residence a later fact superseded
// (status invalidated, not merely ended) is what a question naming a time
// it held asks for, without include_history; a question about the present
// still never sees it.
func TestNamedTimeReachesSupersededFacts(t *testing.T) {
	nils := []kgmem.Triple{
		{Subject: "Nils", SubjectType: "Person", Predicate: "lives in", Object: "Bergen", ObjectType: "City", Text: "Nils lives in Bergen.", ValidAt: ymd(2018, 4, 1)},
		{Subject: "Nils", SubjectType: "Person", Predicate: "lives in", Object: "Tromsø", ObjectType: "City", Text: "Nils lives in Tromsø.", ValidAt: ymd(2021, 9, 1)},
	}
	tests := []struct {
		name  string
		query string
		first string
		never []string
	}{
		{"a year the superseded fact held", "Where did Nils live in 2020?", "Nils lives in Bergen.", nil},
		{"a year the new fact holds", "Where did Nils live in 2022?", "Nils lives in Tromsø.", nil},
		{"the present", "Where does Nils live?", "Nils lives in Tromsø.", []string{"Nils lives in Bergen."}},
	}
	for name, open := range searchBackends(t) {
		t.Run(name, func(t *testing.T) {
			ctx := t.Context()
			e := newSearchEngine(t, open(t), memory.SearchOptions{})
			ns := kgmem.Namespace("memtest/superseded/" + kgmem.NewID("t"))
			for _, f := range nils {
				if _, err := e.AddFacts(ctx, memory.AddFactsRequest{Namespace: ns, Facts: []kgmem.Triple{f}}); err != nil {
					t.Fatal(err)
				}
			}
			all, err := e.Search(ctx, memory.SearchRequest{Namespace: ns, Query: "Nils lives", Include: []kgmem.Kind{kgmem.KindFact}, IncludeHistory: true})
			if err != nil {
				t.Fatal(err)
			}
			if !slices.ContainsFunc(all.Facts, func(f memory.FactResult) bool {
				return f.Text == "Nils lives in Bergen." && f.Status == kgmem.FactInvalidated
			}) {
				t.Fatalf("facts with history = %v: the move did not invalidate Bergen, the case is not exercised", factTexts(all.Facts))
			}
			for _, tc := range tests {
				res, err := e.Search(ctx, memory.SearchRequest{Namespace: ns, Query: tc.query, Include: []kgmem.Kind{kgmem.KindFact}})
				if err != nil {
					t.Fatal(err)
				}
				got := factTexts(res.Facts)
				if len(got) == 0 || got[0] != tc.first {
					t.Errorf("%s: %q returned %v, want %q first", tc.name, tc.query, got, tc.first)
				}
				for _, n := range tc.never {
					if slices.Contains(got, n) {
						t.Errorf("%s: %q returned %q", tc.name, tc.query, n)
					}
				}
			}
		})
	}
}
