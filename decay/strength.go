package decay

import (
	"context"
	"fmt"
	"time"

	"github.com/kgmem/kgmem"
)

// CurveDays are the ages, in days since the last reinforcement, at which
// Strength samples a record's forgetting curve: dense early, where the power
// law falls fastest, then out to ten years.
var CurveDays = []float64{0, 0.25, 0.5, 1, 2, 3, 5, 7, 10, 14, 21, 30, 45, 60, 90, 120, 180, 270, 365, 545, 730, 1095, 1825, 3650}

// CurvePoint is the retention of a record at an age.
type CurvePoint struct {
	// Days since the last reinforcement.
	Days float64 `json:"days"`
	// Retention at that age, in [0, 1].
	Retention float64 `json:"retention"`
}

// Strength is how strongly one record is held now, and how it will fade
// without recall.
type Strength struct {
	Ref
	// Retention is R now, in [0, 1] (1 for pinned and evergreen records).
	Retention float64 `json:"retention"`
	// Weight is the factor search multiplies relevance by: floor + (1 − floor)·R.
	Weight float64 `json:"weight"`
	// StabilityDays is S: the age at which retention falls to 0.9.
	StabilityDays float64 `json:"stability_days"`
	// AgeDays is the time since the last reinforcement, in days.
	AgeDays float64 `json:"age_days"`
	// Pinned is true for pinned and evergreen records: they never decay.
	Pinned bool `json:"pinned"`
	// Due is true when the next sweep will soft-forget the record.
	Due bool `json:"due"`
	// ForgetAfterDays is the age at which retention falls below the
	// namespace's forget threshold (0 when it never does: pinned, decay off
	// or no threshold).
	ForgetAfterDays float64 `json:"forget_after_days,omitzero"`
	// State is the stored decay state (stability, last reinforcement,
	// reinforcements, pinned, forgotten_at).
	State kgmem.DecayState `json:"decay"`
	// Curve samples retention at CurveDays since the last reinforcement.
	Curve []CurvePoint `json:"curve"`
}

// Strengths reports the strength of each of refs in ns at now, in the order
// of refs (duplicates once). Invalid refs fail with kgmem.ErrInvalid and a
// missing record with kgmem.ErrNotFound. It writes nothing.
func Strengths(ctx context.Context, store kgmem.GraphStore, ns kgmem.Namespace, model Model, now time.Time, refs ...Ref) ([]Strength, error) {
	records, err := lookup(ctx, store, ns, refs)
	if err != nil {
		return nil, fmt.Errorf("strength: %w", err)
	}
	out := make([]Strength, 0, len(records))
	done := make(map[Ref]bool, len(records))
	for _, ref := range refs {
		if done[ref] {
			continue
		}
		done[ref] = true
		out = append(out, model.strength(records[ref], now))
	}
	return out, nil
}

// strength measures one record at now.
func (m Model) strength(r record, now time.Time) Strength {
	s := m.Backfill(r.state, r.created)
	st := Strength{
		Ref:           r.Ref,
		Retention:     m.Retention(s, r.importance, now),
		StabilityDays: m.stability(s, r.importance),
		AgeDays:       max(0, elapsedDays(s, now)),
		Pinned:        m.Pinned(s, r.importance),
		Due:           m.Due(s, r.importance, now),
		State:         r.state,
		Curve:         make([]CurvePoint, len(CurveDays)),
	}
	st.Weight = m.Weight(st.Retention)
	if m.p.Enabled && !st.Pinned && m.p.ForgetThreshold > 0 {
		st.ForgetAfterDays = m.ForgetAfter(st.StabilityDays).Hours() / 24
	}
	for i, d := range CurveDays {
		at := s.LastReinforcedAt.Add(time.Duration(d * float64(24*time.Hour)))
		if s.LastReinforcedAt.IsZero() {
			at = now
		}
		st.Curve[i] = CurvePoint{Days: d, Retention: m.Retention(s, r.importance, at)}
	}
	return st
}
