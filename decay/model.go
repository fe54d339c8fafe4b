package decay

import (
	"math"
	"time"

	"github.com/kgmem/kgmem"
)

// recallTarget is the retention at t = S: stability is "days until 90 % recall",
// as in FSRS.
const recallTarget = 0.9

// Model is the forgetting curve of one namespace, built from validated Params.
// It is a small immutable value: safe to copy and to share between goroutines.
// Its methods are pure: time enters only through their now arguments.
type Model struct {
	p Params
	// factor is F in R(t) = (1 + F·t/S)^(−d), chosen so that R(S) = 0.9.
	factor float64
}

// NewModel validates p and builds its Model.
func NewModel(p Params) (Model, error) {
	if err := p.Validate(); err != nil {
		return Model{}, err
	}
	return Model{p: p, factor: math.Pow(recallTarget, -1/p.CurveExponent) - 1}, nil
}

// DefaultModel is the Model of DefaultParams.
func DefaultModel() Model {
	m, err := NewModel(DefaultParams())
	if err != nil {
		panic("decay: DefaultParams are invalid: " + err.Error()) // a programming error, caught by tests
	}
	return m
}

// Params returns the parameters the model was built from.
func (m Model) Params() Params { return m.p }

// importance maps a missing (< 1) importance to the default and clamps it to 10.
func (m Model) importance(i int) int {
	switch {
	case i < MinImportance:
		return m.p.DefaultImportance
	case i > MaxImportance:
		return MaxImportance
	}
	return i
}

// InitialStability is S₀ in days for an item of the given importance
// (0 meaning "none": the default importance applies).
func (m Model) InitialStability(importance int) float64 {
	s := m.p.BaseStabilityDays * math.Pow(m.p.ImportanceGrowth, float64(m.importance(importance)-1))
	return math.Min(s, m.p.MaxStabilityDays)
}

// stability is the state's stability, or S₀ when it is not initialised.
func (m Model) stability(s kgmem.DecayState, importance int) float64 {
	if s.Stability > 0 && !math.IsInf(s.Stability, 0) {
		return math.Min(s.Stability, m.p.MaxStabilityDays)
	}
	return m.InitialStability(importance)
}

// Initial is the decay state of an item created (first stated) at now.
func (m Model) Initial(importance int, now time.Time) kgmem.DecayState {
	return kgmem.DecayState{Stability: m.InitialStability(importance), LastReinforcedAt: now}
}

// Backfill anchors a state that never had LastReinforcedAt set (records written
// before decay was wired in) at the record's creation time. Other states are
// returned unchanged.
func (m Model) Backfill(s kgmem.DecayState, created time.Time) kgmem.DecayState {
	if s.LastReinforcedAt.IsZero() {
		s.LastReinforcedAt = created
	}
	return s
}

// Pinned reports whether the item never decays: pinned explicitly, or at least
// as important as the evergreen threshold.
func (m Model) Pinned(s kgmem.DecayState, importance int) bool {
	return s.Pinned || (m.p.EvergreenImportance > 0 && importance >= m.p.EvergreenImportance)
}

// curve is the bare power-law retention after elapsed days at stability S, in
// [0, 1]. Non-positive or NaN elapsed time (a clock that went backwards) gives 1.
func (m Model) curve(days, stability float64) float64 {
	if !(days > 0) {
		return 1
	}
	r := math.Pow(1+m.factor*days/stability, -m.p.CurveExponent)
	if math.IsNaN(r) {
		return 1
	}
	return math.Max(0, math.Min(1, r))
}

// elapsedDays is the time from the last reinforcement to now, in days.
func elapsedDays(s kgmem.DecayState, now time.Time) float64 {
	if s.LastReinforcedAt.IsZero() {
		return 0
	}
	return now.Sub(s.LastReinforcedAt).Hours() / 24
}

// Retention is R at now, in [0, 1]: the probability-like strength of the item's
// memory. It is 1 when decay is disabled, for pinned and evergreen items, for
// states never anchored in time, and when now is before LastReinforcedAt (a
// clock that jumped back). Forgotten items still report their curve value.
func (m Model) Retention(s kgmem.DecayState, importance int, now time.Time) float64 {
	if !m.p.Enabled || m.Pinned(s, importance) {
		return 1
	}
	return m.curve(elapsedDays(s, now), m.stability(s, importance))
}

// Weight maps a retention to a search weight: Floor + (1−Floor)·R. Decay thus
// reorders results but never zeroes them. Out-of-range retentions are clamped;
// NaN counts as 1.
func (m Model) Weight(retention float64) float64 {
	switch {
	case math.IsNaN(retention) || retention > 1:
		retention = 1
	case retention < 0:
		retention = 0
	}
	return m.p.Floor + (1-m.p.Floor)*retention
}

// WeightAt is Weight(Retention(s, importance, now)).
func (m Model) WeightAt(s kgmem.DecayState, importance int, now time.Time) float64 {
	return m.Weight(m.Retention(s, importance, now))
}

// Due reports whether the forgetting sweep should soft-forget the item at now:
// decay is enabled, the item is neither pinned nor already forgotten, and its
// retention is below the forget threshold.
func (m Model) Due(s kgmem.DecayState, importance int, now time.Time) bool {
	return m.p.Enabled && !s.Forgotten() && !m.Pinned(s, importance) &&
		m.Retention(s, importance, now) < m.p.ForgetThreshold
}

// Reinforce records that the item was restated or recalled at now. Stability
// grows by the factor 1 + Growth·e^(SpacingBonus·(1−R)), R being the retention
// just before (so a nearly forgotten item gains more: the spacing effect),
// capped at MaxStabilityDays; the clock restarts at now; the count goes up; a
// forgotten item is remembered again. A reinforcement within MassedWindowMinutes
// of the previous one only un-forgets: massed recall does not compound. A clock
// that went backwards never moves LastReinforcedAt back.
func (m Model) Reinforce(s kgmem.DecayState, importance int, now time.Time) kgmem.DecayState {
	s.ForgottenAt = time.Time{}
	days := elapsedDays(s, now)
	if !s.LastReinforcedAt.IsZero() && s.Stability > 0 && days*24*60 < m.p.MassedWindowMinutes {
		return s
	}
	stability := m.stability(s, importance)
	r := m.curve(days, stability)
	stability *= 1 + m.p.Growth*math.Exp(m.p.SpacingBonus*(1-r))
	s.Stability = math.Min(stability, m.p.MaxStabilityDays)
	if now.After(s.LastReinforcedAt) {
		s.LastReinforcedAt = now
	}
	s.Reinforcements++
	return s
}

// Pin makes the item never decay and remembers it again if it was forgotten.
func (m Model) Pin(s kgmem.DecayState, now time.Time) kgmem.DecayState {
	s.Pinned = true
	s.ForgottenAt = time.Time{}
	if now.After(s.LastReinforcedAt) {
		s.LastReinforcedAt = now
	}
	return s
}

// Unpin lets the item decay again, starting from now (not from before the pin).
func (m Model) Unpin(s kgmem.DecayState, now time.Time) kgmem.DecayState {
	s.Pinned = false
	if now.After(s.LastReinforcedAt) {
		s.LastReinforcedAt = now
	}
	return s
}

// Forget soft-forgets the item at now (kept, hidden from default search).
// Pinned items and already forgotten items are returned unchanged.
func (m Model) Forget(s kgmem.DecayState, now time.Time) kgmem.DecayState {
	if !s.Pinned && !s.Forgotten() {
		s.ForgottenAt = now
	}
	return s
}

// Restore remembers a forgotten item and restarts its clock at now, so the
// next sweep does not forget it again at once. Stability is kept.
func (m Model) Restore(s kgmem.DecayState, now time.Time) kgmem.DecayState {
	s.ForgottenAt = time.Time{}
	if now.After(s.LastReinforcedAt) {
		s.LastReinforcedAt = now
	}
	return s
}

// ForgetAfter is how long an unreinforced, unpinned item of the given
// stability (days) stays above the forget threshold; the inverse of the curve:
// t = S/F · (θ^(−1/d) − 1). It is math.MaxInt64 (as a Duration) when the
// threshold is 0 or the result overflows.
func (m Model) ForgetAfter(stabilityDays float64) time.Duration {
	if m.p.ForgetThreshold <= 0 {
		return time.Duration(math.MaxInt64)
	}
	days := stabilityDays / m.factor * (math.Pow(m.p.ForgetThreshold, -1/m.p.CurveExponent) - 1)
	d := days * 24 * float64(time.Hour)
	if math.IsNaN(d) || d >= math.MaxInt64 {
		return time.Duration(math.MaxInt64)
	}
	return time.Duration(d)
}
