package memory_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/decay"
	"github.com/kgmem/kgmem/memory"
)

const month = 30 * 24 * time.Hour

// twoFacts posts two facts equally relevant to "favourite drink" and returns their ids.
func twoFacts(t *testing.T, h *harness, ns kgmem.Namespace) (recalled, once string) {
	t.Helper()
	out, err := h.engine.AddFacts(context.Background(), memory.AddFactsRequest{Namespace: ns, Facts: []kgmem.Triple{
		{Subject: "Ann", Predicate: "favourite_drink", Object: "green tea", Text: "Ann's favourite drink is green tea."},
		{Subject: "Ben", Predicate: "favourite_drink", Object: "black tea", Text: "Ben's favourite drink is black tea."},
	}})
	if err != nil {
		t.Fatal(err)
	}
	return out.Facts[0].Fact.ID, out.Facts[1].Fact.ID
}

func factScores(t *testing.T, h *harness, req memory.SearchRequest) map[string]memory.Score {
	t.Helper()
	req.Include = []kgmem.Kind{kgmem.KindFact}
	res, err := h.engine.Search(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]memory.Score{}
	for _, f := range res.Facts {
		out[f.ID] = f.Score
	}
	return out
}

func TestRecalledFactOutranksOneMentionedOnce(t *testing.T) {
	h := newHarness(t, nil)
	ctx := context.Background()
	recalled, once := twoFacts(t, h, "d")
	// The client confirms using one of them every two weeks for four months.
	for i := 0; i < 8; i++ {
		h.clock.Advance(14 * 24 * time.Hour)
		if err := h.engine.Feedback(ctx, memory.FeedbackRequest{Namespace: "d", Refs: []decay.Ref{{Kind: kgmem.KindFact, ID: recalled}}}); err != nil {
			t.Fatal(err)
		}
		if err := h.reinforcer.Flush(ctx); err != nil {
			t.Fatal(err)
		}
	}
	h.clock.Advance(2 * month)
	scores := factScores(t, h, memory.SearchRequest{Namespace: "d", Query: "favourite drink tea"})
	r, o := scores[recalled], scores[once]
	if r.Retention <= o.Retention || r.Final <= o.Final {
		t.Fatalf("recalled %+v vs mentioned once %+v: want the recalled fact ahead", r, o)
	}
	if o.DecayWeight < 0.9 || o.Final <= 0 {
		t.Errorf("the fading fact's weight %v fell below the floor", o.DecayWeight)
	}
	// The breakdown adds up.
	if got := r.Relevance * r.DecayWeight; got != r.Final {
		t.Errorf("final %v != relevance %v × weight %v", r.Final, r.Relevance, r.DecayWeight)
	}
}

func TestPinnedFactKeepsItsWeightAndSweepForgetsTheRest(t *testing.T) {
	h := newHarness(t, nil)
	ctx := context.Background()
	pinned, fading := twoFacts(t, h, "p")
	if err := h.engine.SetPinned(ctx, memory.PinRequest{Namespace: "p", Refs: []decay.Ref{{Kind: kgmem.KindFact, ID: pinned}}, Pinned: true}); err != nil {
		t.Fatal(err)
	}
	h.clock.Advance(5 * 12 * month)
	scores := factScores(t, h, memory.SearchRequest{Namespace: "p", Query: "favourite drink tea", Reinforce: false})
	if s := scores[pinned]; s.Retention != 1 || s.DecayWeight != 1 {
		t.Errorf("pinned fact after five years: %+v, want retention and weight 1", s)
	}
	if s := scores[fading]; s.Retention >= 0.2 {
		t.Errorf("unpinned fact after five years: retention %v, want it faded", s.Retention)
	}

	stats, err := h.engine.Sweep(ctx, "p")
	if err != nil {
		t.Fatal(err)
	}
	if stats.Facts.Forgotten != 1 {
		t.Fatalf("sweep forgot %d facts, want 1 (the unpinned one): %+v", stats.Facts.Forgotten, stats)
	}
	scores = factScores(t, h, memory.SearchRequest{Namespace: "p", Query: "favourite drink tea"})
	if _, ok := scores[fading]; ok {
		t.Error("forgotten fact still in default search")
	}
	if _, ok := scores[pinned]; !ok {
		t.Error("pinned fact missing from search")
	}
	scores = factScores(t, h, memory.SearchRequest{Namespace: "p", Query: "favourite drink tea", IncludeForgotten: true})
	if _, ok := scores[fading]; !ok {
		t.Error("include_forgotten does not show the forgotten fact")
	}
	if err := h.engine.Restore(ctx, "p", []decay.Ref{{Kind: kgmem.KindFact, ID: fading}}); err != nil {
		t.Fatal(err)
	}
	scores = factScores(t, h, memory.SearchRequest{Namespace: "p", Query: "favourite drink tea"})
	if _, ok := scores[fading]; !ok {
		t.Error("restored fact missing from default search")
	}
	// Decay never deleted anything.
	if _, err := h.engine.Fact(ctx, "p", fading); err != nil {
		t.Errorf("fact deleted by decay: %v", err)
	}
}

func TestDecayRefsAreChecked(t *testing.T) {
	h := newHarness(t, nil)
	ctx := context.Background()
	recalled, _ := twoFacts(t, h, "r")
	for _, tc := range []struct {
		name string
		refs []decay.Ref
		want error
	}{
		{"unknown id", []decay.Ref{{Kind: kgmem.KindFact, ID: "fact_nope"}}, kgmem.ErrNotFound},
		{"id of another kind", []decay.Ref{{Kind: kgmem.KindEpisode, ID: recalled}}, kgmem.ErrNotFound},
		{"bad kind", []decay.Ref{{Kind: "memory", ID: recalled}}, kgmem.ErrInvalid},
		{"empty", nil, kgmem.ErrInvalid},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := h.engine.Feedback(ctx, memory.FeedbackRequest{Namespace: "r", Refs: tc.refs}); !errors.Is(err, tc.want) {
				t.Errorf("feedback: %v, want %v", err, tc.want)
			}
			if err := h.engine.SetPinned(ctx, memory.PinRequest{Namespace: "r", Refs: tc.refs, Pinned: true}); !errors.Is(err, tc.want) {
				t.Errorf("pin: %v, want %v", err, tc.want)
			}
			if err := h.engine.Feedback(ctx, memory.FeedbackRequest{Namespace: "other", Refs: []decay.Ref{{Kind: kgmem.KindFact, ID: recalled}}}); !errors.Is(err, kgmem.ErrNotFound) {
				t.Errorf("feedback from another namespace: %v, want not found", err)
			}
		})
	}
	if h.reinforcer.Pending() != 0 {
		t.Errorf("rejected feedback left %d recalls queued", h.reinforcer.Pending())
	}
}

func TestDecaySettingsAreValidated(t *testing.T) {
	h := newHarness(t, nil)
	ctx := context.Background()
	for _, tc := range []struct{ raw, field string }{
		{`{"floor": 1.5}`, "decay.floor"},
		{`{"base_stability_days": -3}`, "decay.base_stability_days"},
		{`{"forget_threshold": -0.1}`, "decay.forget_threshold"},
	} {
		err := h.engine.PutSettings(ctx, "s", kgmem.NamespaceSettings{Decay: []byte(tc.raw)})
		var fe *kgmem.FieldError
		if !errors.As(err, &fe) || fe.Field != tc.field {
			t.Errorf("%s: %v, want a field error on %s", tc.raw, err, tc.field)
		}
	}
	if st, _, err := h.engine.Settings(ctx, "s"); err != nil || len(st.Decay) != 0 {
		t.Errorf("rejected settings were stored: %+v %v", st, err)
	}
	if err := h.engine.PutSettings(ctx, "s", kgmem.NamespaceSettings{Decay: []byte(`{"floor": 0.8}`)}); err != nil {
		t.Fatal(err)
	}
	if _, p, err := h.engine.Settings(ctx, "s"); err != nil || p.Floor != 0.8 || p.CurveExponent != decay.DefaultParams().CurveExponent {
		t.Errorf("effective params %+v %v: want floor 0.8 merged over defaults", p, err)
	}
}
