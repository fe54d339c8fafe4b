package decay

import (
	"context"
	"errors"
	"math"
	"testing"

	"github.com/kgmem/kgmem"
)

// TestStrengths checks each record's reported strength against the model:
// retention and weight now, stability, age, pinned and evergreen records,
// records due for the sweep, the forget horizon, and the curve, which starts
// at 1, falls, and passes through the retention now at the record's age.
func TestStrengths(t *testing.T) {
	forEachStore(t, func(t *testing.T, store kgmem.GraphStore) {
		ctx := context.Background()
		m := DefaultModel()
		const ns = kgmem.Namespace("acme/strength")
		now := epoch.Add(400 * day)
		f := newFixture(ns, epoch)
		trivia := f.fact("fact_trivia", 1, epoch, m.Initial(1, epoch))
		fresh := f.fact("fact_fresh", 5, now.Add(-day), m.Initial(5, now.Add(-day)))
		evergreen := f.fact("fact_evergreen", 10, epoch, m.Initial(10, epoch))
		pinned := f.fact("fact_pinned", 1, epoch, m.Pin(m.Initial(1, epoch), epoch))
		forgotten := f.fact("fact_forgotten", 1, epoch, m.Forget(m.Initial(1, epoch), epoch.Add(200*day)))
		legacy := f.fact("fact_legacy", 1, epoch, kgmem.DecayState{}) // written before decay: ages from creation
		ep := f.episode("m1", epoch, m.Initial(0, epoch))
		f.write(t, store)

		refs := []Ref{factRef(trivia), factRef(fresh), factRef(evergreen), factRef(pinned), factRef(forgotten), factRef(legacy), episodeRef(ep), factRef(trivia)}
		got, err := Strengths(ctx, store, ns, m, now, refs...)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(refs)-1 {
			t.Fatalf("%d strengths for %d distinct refs", len(got), len(refs)-1)
		}
		tests := []struct {
			ref        Ref
			importance int
			pinned     bool
			due        bool
			ageDays    float64
		}{
			{factRef(trivia), 1, false, true, 400},
			{factRef(fresh), 5, false, false, 1},
			{factRef(evergreen), 10, true, false, 400},
			{factRef(pinned), 1, true, false, 400},
			{factRef(forgotten), 1, false, false, 400}, // already forgotten: not due again
			{factRef(legacy), 1, false, true, 400},
			{episodeRef(ep), 0, false, false, 400},
		}
		for i, tc := range tests {
			st := got[i]
			if st.Ref != tc.ref {
				t.Fatalf("strength %d is of %v, want %v (the order of refs)", i, st.Ref, tc.ref)
			}
			state := m.Backfill(st.State, epoch)
			want := m.Retention(state, tc.importance, now)
			if math.Abs(st.Retention-want) > 1e-12 || math.Abs(st.Weight-m.Weight(want)) > 1e-12 {
				t.Errorf("%s: retention %v weight %v, want %v %v", tc.ref.ID, st.Retention, st.Weight, want, m.Weight(want))
			}
			if st.Pinned != tc.pinned || st.Due != tc.due || math.Abs(st.AgeDays-tc.ageDays) > 1e-9 {
				t.Errorf("%s: pinned %v due %v age %v, want %v %v %v", tc.ref.ID, st.Pinned, st.Due, st.AgeDays, tc.pinned, tc.due, tc.ageDays)
			}
			if st.StabilityDays != m.stability(state, tc.importance) {
				t.Errorf("%s: stability %v", tc.ref.ID, st.StabilityDays)
			}
			if tc.pinned {
				if st.Retention != 1 || st.ForgetAfterDays != 0 {
					t.Errorf("%s: pinned yet retention %v, forgotten after %v days", tc.ref.ID, st.Retention, st.ForgetAfterDays)
				}
			} else if math.Abs(st.ForgetAfterDays-m.ForgetAfter(st.StabilityDays).Hours()/24) > 1e-9 || st.ForgetAfterDays <= 0 {
				t.Errorf("%s: forgotten after %v days", tc.ref.ID, st.ForgetAfterDays)
			}
			if len(st.Curve) != len(CurveDays) || st.Curve[0].Retention != 1 {
				t.Fatalf("%s: curve %v", tc.ref.ID, st.Curve)
			}
			for j := 1; j < len(st.Curve); j++ {
				if st.Curve[j].Retention > st.Curve[j-1].Retention || (!tc.pinned && st.Curve[j].Retention == st.Curve[j-1].Retention) {
					t.Errorf("%s: curve does not fall at %v days: %v", tc.ref.ID, st.Curve[j].Days, st.Curve)
				}
			}
		}
		// The curve at the record's age is its retention now.
		fr := got[1]
		for _, p := range fr.Curve {
			if p.Days == 1 && math.Abs(p.Retention-fr.Retention) > 1e-9 {
				t.Errorf("fresh fact: curve at 1 day %v, retention now %v", p.Retention, fr.Retention)
			}
		}

		// Bad refs fail before anything is read; a missing record is not found.
		if _, err := Strengths(ctx, store, ns, m, now, Ref{Kind: "fish", ID: "x"}); !errors.Is(err, kgmem.ErrInvalid) {
			t.Errorf("unknown kind: %v", err)
		}
		if _, err := Strengths(ctx, store, ns, m, now, factRef("fact_missing")); !errors.Is(err, kgmem.ErrNotFound) {
			t.Errorf("missing fact: %v", err)
		}
		if _, err := Strengths(ctx, store, "acme/other", m, now, factRef(trivia)); !errors.Is(err, kgmem.ErrNotFound) {
			t.Errorf("another namespace's fact: %v", err)
		}
		// Reading strength writes nothing.
		if s := stateOf(t, store, ns, factRef(legacy)); !s.LastReinforcedAt.IsZero() {
			t.Errorf("legacy fact's state was written: %+v", s)
		}
	})
}
