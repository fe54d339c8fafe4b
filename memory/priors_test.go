package memory

import (
	"math"
	"slices"
	"testing"
	"time"

	"github.com/kgmem/kgmem"
)

// TestPriors pins each prior alone: the factor it gives a fact or an
// episode, 1 for what it prefers and never above 1.
func TestPriors(t *testing.T) {
	now := day(2025, 6, 1)
	y2021 := timeWindow{day(2021, 1, 1), day(2022, 1, 1)}
	lived := func(from, to time.Time) kgmem.Fact { return kgmem.Fact{ValidAt: from, InvalidAt: to} }
	tests := []struct {
		name  string
		prior prior
		fact  *kgmem.Fact
		ep    *kgmem.Episode
		want  float64
	}{
		{"currency: open fact", currencyPrior{now, 0.5}, &kgmem.Fact{ValidAt: day(2024, 1, 1)}, nil, 1},
		{"currency: no dates", currencyPrior{now, 0.5}, &kgmem.Fact{}, nil, 1},
		{"currency: ended", currencyPrior{now, 0.5}, &kgmem.Fact{ValidAt: day(2023, 1, 1), InvalidAt: day(2024, 1, 1)}, nil, 0.5},
		{"currency: ends later", currencyPrior{now, 0.5}, &kgmem.Fact{InvalidAt: day(2026, 1, 1)}, nil, 1},
		{"currency: invalidated", currencyPrior{now, 0.5}, &kgmem.Fact{ExpiredAt: day(2025, 1, 1)}, nil, 0.5},
		{"currency: not yet started", currencyPrior{now, 0.5}, &kgmem.Fact{ValidAt: day(2026, 1, 1)}, nil, 0.5},
		{"currency: episodes untouched", currencyPrior{now, 0.5}, nil, &kgmem.Episode{Timestamp: day(2020, 1, 1)}, 1},
		{"time: fact within", timePrior{window: y2021, factor: 0.5}, ptr(lived(day(2020, 3, 1), day(2022, 6, 1))), nil, 1},
		{"time: fact open since before", timePrior{window: y2021, factor: 0.5}, ptr(lived(day(2019, 1, 1), time.Time{})), nil, 1},
		{"time: fact started after", timePrior{window: y2021, factor: 0.5}, ptr(lived(day(2022, 1, 1), time.Time{})), nil, 0.5},
		{"time: fact ended before", timePrior{window: y2021, factor: 0.5}, ptr(lived(day(2018, 1, 1), day(2021, 1, 1))), nil, 0.5},
		{"time: fact without dates", timePrior{window: y2021, factor: 0.5}, &kgmem.Fact{}, nil, math.Sqrt(0.5)},
		{"time: episode within", timePrior{window: y2021, factor: 0.5}, nil, &kgmem.Episode{Timestamp: day(2021, 7, 1)}, 1},
		{"time: episode outside", timePrior{window: y2021, factor: 0.5}, nil, &kgmem.Episode{Timestamp: day(2023, 7, 1)}, 0.5},
		{"time: episode reporting the week before", timePrior{window: timeWindow{day(2023, 7, 27), day(2023, 8, 3)}, factor: 0.5}, nil, &kgmem.Episode{Timestamp: day(2023, 8, 3)}, 1},
		{"time: episode reporting too late", timePrior{window: timeWindow{day(2023, 7, 27), day(2023, 8, 3)}, factor: 0.5}, nil, &kgmem.Episode{Timestamp: day(2023, 8, 11)}, 0.5},
		{"time: year reported within a month", timePrior{window: y2021, factor: 0.5}, nil, &kgmem.Episode{Timestamp: day(2022, 1, 20)}, 1},
		{"time: year reported later", timePrior{window: y2021, factor: 0.5}, nil, &kgmem.Episode{Timestamp: day(2022, 3, 1)}, 0.5},
		{"time: fact held on an event's eve", timePrior{window: timeWindow{To: day(2022, 3, 1)}, facts: timeWindow{day(2022, 3, 1).Add(-time.Second), day(2022, 3, 1)}, factor: 0.5}, ptr(lived(day(2019, 6, 1), day(2022, 3, 1))), nil, 1},
		{"time: fact long over by the event", timePrior{window: timeWindow{To: day(2022, 3, 1)}, facts: timeWindow{day(2022, 3, 1).Add(-time.Second), day(2022, 3, 1)}, factor: 0.5}, ptr(lived(day(2015, 1, 1), day(2019, 6, 1))), nil, 0.5},
		{"time: episode without time", timePrior{window: y2021, factor: 0.5}, nil, &kgmem.Episode{}, math.Sqrt(0.5)},
		{"when: dated fact", whenPrior{0.7}, &kgmem.Fact{ValidAt: day(2021, 1, 1)}, nil, 1},
		{"when: undated fact", whenPrior{0.7}, &kgmem.Fact{}, nil, 0.7},
		{"when: episode saying when", whenPrior{0.7}, nil, &kgmem.Episode{Content: "I went there yesterday."}, 1},
		{"when: episode without a time", whenPrior{0.7}, nil, &kgmem.Episode{Content: "I went there."}, 0.7},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var got float64
			if tc.fact != nil {
				got = tc.prior.fact(*tc.fact)
			} else {
				got = tc.prior.episode(*tc.ep)
			}
			if math.Abs(got-tc.want) > 1e-12 {
				t.Errorf("factor = %v, want %v", got, tc.want)
			}
			if got > 1 || got <= 0 {
				t.Errorf("factor %v outside (0, 1]", got)
			}
			if e := tc.prior.entity(kgmem.Entity{}); e != 1 {
				t.Errorf("entity factor %v, want 1", e)
			}
		})
	}
}

func ptr[T any](v T) *T { return &v }

// TestApplyPriors checks that priors multiply the final score and are
// recorded only when they weigh a result down.
func TestApplyPriors(t *testing.T) {
	s := Score{Final: 0.04}
	priors := []prior{currencyPrior{day(2025, 1, 1), 0.5}, whenPrior{0.7}}
	applyPriors(&s, priors, func(p prior) float64 { return p.fact(kgmem.Fact{ValidAt: day(2020, 1, 1), InvalidAt: day(2021, 1, 1)}) })
	if math.Abs(s.Final-0.02) > 1e-12 || len(s.Priors) != 1 || s.Priors[0] != (PriorScore{PriorCurrency, 0.5}) {
		t.Errorf("score %+v, want final 0.02 with the currency prior only", s)
	}
	if s.priorFactor() != 0.5 {
		t.Errorf("priorFactor = %v", s.priorFactor())
	}
}

// TestFuse pins weighted reciprocal rank fusion: ranks count within a kind,
// weights scale, sources list each retriever in fusion order.
func TestFuse(t *testing.T) {
	opts := SearchOptions{RRFK: 10, VectorWeight: 1, TextWeight: 2, ThreadWeight: 0.5}
	ep := func(id string) kgmem.Hit { return kgmem.Hit{Kind: kgmem.KindEpisode, ID: id} }
	fact := func(id string) kgmem.Hit { return kgmem.Hit{Kind: kgmem.KindFact, ID: id} }
	lists := map[string][]kgmem.Hit{
		RetrieverVector: {ep("a"), fact("f"), ep("b")},
		RetrieverBM25:   {ep("b"), ep("a")},
		RetrieverThread: {ep("c")},
		"unlisted":      {ep("z")},
	}
	got := fuse(opts, []string{RetrieverVector, RetrieverBM25, RetrieverThread}, lists, nil)
	want := map[string]float64{
		"a": 1.0/11 + 2.0/12,
		"b": 1.0/12 + 2.0/11,
		"c": 0.5 / 11,
		"f": 1.0 / 11,
	}
	order := []string{}
	for _, f := range got[kgmem.KindEpisode] {
		order = append(order, f.id)
		if math.Abs(f.score.Relevance-want[f.id]) > 1e-12 {
			t.Errorf("%s: relevance %v, want %v", f.id, f.score.Relevance, want[f.id])
		}
	}
	if len(order) != 3 || order[0] != "b" || order[1] != "a" || order[2] != "c" {
		t.Errorf("episode order %v, want [b a c]", order)
	}
	if fs := got[kgmem.KindFact]; len(fs) != 1 || math.Abs(fs[0].score.Relevance-want["f"]) > 1e-12 || fs[0].score.Sources[0].Rank != 1 {
		t.Errorf("facts %+v: a fact's rank counts among facts only", fs)
	}
	if s := got[kgmem.KindEpisode][1].score.Sources; len(s) != 2 || s[0].Retriever != RetrieverVector || s[1].Retriever != RetrieverBM25 || s[1].Rank != 2 {
		t.Errorf("sources of a: %+v", s)
	}
	// Adding a source to a candidate (the speaker bonus and the reranker
	// do, clipping first) leaves the others' as they were, even unclipped.
	before := map[string][]SourceScore{}
	for _, fs := range got {
		for _, f := range fs {
			before[f.id] = slices.Clone(f.score.Sources)
		}
	}
	for _, fs := range got {
		for _, f := range fs {
			f.score.Sources = append(f.score.Sources, SourceScore{Retriever: RetrieverSpeaker, Rank: 1})
		}
	}
	for _, fs := range got {
		for _, f := range fs {
			if s := f.score.Sources; !slices.Equal(s[:len(s)-1], before[f.id]) || s[len(s)-1].Retriever != RetrieverSpeaker {
				t.Errorf("sources of %s after every candidate got one more: %+v, want %+v and the speaker", f.id, s, before[f.id])
			}
		}
	}
}
