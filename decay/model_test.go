package decay

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/kgmem/kgmem"
)

var epoch = time.Date(2026, 1, 1, 9, 0, 0, 0, time.UTC)

const day = 24 * time.Hour

// randomState draws a plausible decay state and importance.
func randomState(rng *rand.Rand) (kgmem.DecayState, int) {
	s := kgmem.DecayState{
		Stability:        math.Exp(rng.Float64()*12 - 3), // ~0.05 to ~8000 days
		LastReinforcedAt: epoch.Add(time.Duration(rng.Int64N(int64(400 * day)))),
		Reinforcements:   rng.IntN(50),
	}
	if rng.IntN(4) == 0 {
		s.Stability = 0 // not initialised: derived from importance
	}
	return s, rng.IntN(13) - 1 // -1..11: out-of-range importance too
}

func randomModel(t *testing.T, rng *rand.Rand) Model {
	t.Helper()
	p := DefaultParams()
	p.BaseStabilityDays = 0.1 + rng.Float64()*10
	p.ImportanceGrowth = 1 + rng.Float64()*2
	p.CurveExponent = 0.05 + rng.Float64()*4.9
	p.Growth = rng.Float64() * 2
	p.SpacingBonus = rng.Float64() * 20
	p.MaxStabilityDays = p.BaseStabilityDays * (1 + rng.Float64()*1e5)
	p.Floor = rng.Float64()
	p.ForgetThreshold = rng.Float64()
	p.EvergreenImportance = rng.IntN(11)
	p.DefaultImportance = 1 + rng.IntN(10)
	m, err := NewModel(p)
	if err != nil {
		t.Fatalf("random params %+v: %v", p, err)
	}
	return m
}

func TestFSRSAnchor(t *testing.T) {
	m := DefaultModel()
	if math.Abs(m.factor-19.0/81) > 1e-12 {
		t.Errorf("default F = %v, want 19/81 (FSRS-4.5)", m.factor)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 200 {
		m := randomModel(t, rng)
		for _, stab := range []float64{0.5, 3, 40, 700} {
			stab = math.Min(stab, m.p.MaxStabilityDays)
			s := kgmem.DecayState{Stability: stab, LastReinforcedAt: epoch}
			now := epoch.Add(time.Duration(stab * float64(day)))
			if r := m.Retention(s, 1, now); !m.Pinned(s, 1) && math.Abs(r-0.9) > 1e-6 {
				t.Fatalf("R(S) = %v at S = %v days, exponent %v; want 0.9", r, stab, m.p.CurveExponent)
			}
		}
	}
}

// TestRetentionProperties checks, on random models and states, that R stays in
// [0, 1], never increases with time, and is 1 for a clock that went backwards.
func TestRetentionProperties(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	for range 3000 {
		m := randomModel(t, rng)
		s, imp := randomState(rng)
		prev := 1.0
		for _, d := range []float64{0, 0.001, 0.5, 1, 3, 30, 90, 365, 3650, 36500, 100000, math.Inf(1)} {
			now := s.LastReinforcedAt.Add(time.Duration(d * float64(day)))
			if math.IsInf(d, 1) {
				now = s.LastReinforcedAt.AddDate(5000, 0, 0) // beyond time.Duration: Sub saturates
			}
			r := m.Retention(s, imp, now)
			if math.IsNaN(r) || r < 0 || r > 1 {
				t.Fatalf("R = %v at %v days (state %+v, importance %d, params %+v)", r, d, s, imp, m.p)
			}
			if r > prev {
				t.Fatalf("R rose from %v to %v at %v days (state %+v)", prev, r, d, s)
			}
			prev = r
			w := m.Weight(r)
			if w < m.p.Floor-1e-12 || w > 1+1e-12 {
				t.Fatalf("Weight(%v) = %v outside [floor %v, 1]", r, w, m.p.Floor)
			}
		}
		back := s.LastReinforcedAt.Add(-time.Duration(rng.Int64N(int64(1000 * day))))
		if r := m.Retention(s, imp, back); r != 1 {
			t.Fatalf("clock before last reinforcement: R = %v, want 1", r)
		}
	}
}

// TestReinforceProperties: reinforcement never lowers stability, restarts the
// clock (R just after is 1 and above R just before), counts, and never moves
// LastReinforcedAt backwards.
func TestReinforceProperties(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	for range 3000 {
		m := randomModel(t, rng)
		s, imp := randomState(rng)
		if s.Stability == 0 {
			s.Stability = m.InitialStability(imp)
		}
		s.Stability = math.Min(s.Stability, m.p.MaxStabilityDays)
		m.p.MassedWindowMinutes = 0
		now := s.LastReinforcedAt.Add(time.Duration(rng.Int64N(int64(2000 * day))))
		before := m.Retention(s, imp, now)
		got := m.Reinforce(s, imp, now)
		if got.Stability < s.Stability || got.Stability > m.p.MaxStabilityDays || math.IsNaN(got.Stability) {
			t.Fatalf("stability %v -> %v (max %v)", s.Stability, got.Stability, m.p.MaxStabilityDays)
		}
		if after := m.Retention(got, imp, now); after != 1 || after < before {
			t.Fatalf("R after reinforcement = %v, before %v", after, before)
		}
		later := now.Add(time.Duration(rng.Int64N(int64(500 * day))))
		if m.Retention(got, imp, later) < m.Retention(s, imp, later) {
			t.Fatalf("reinforced item fades below the unreinforced one at %v", later)
		}
		if got.Reinforcements != s.Reinforcements+1 || !got.LastReinforcedAt.Equal(now) {
			t.Fatalf("reinforce bookkeeping: %+v from %+v at %v", got, s, now)
		}
		back := m.Reinforce(got, imp, now.Add(-30*day))
		if back.LastReinforcedAt.Before(got.LastReinforcedAt) {
			t.Fatalf("clock jump back moved LastReinforcedAt from %v to %v", got.LastReinforcedAt, back.LastReinforcedAt)
		}
	}
}

// TestSpacingEffect: reinforcing a nearly forgotten item grows stability more
// than reinforcing the same item while it is fresh.
func TestSpacingEffect(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 17))
	for range 1000 {
		m := randomModel(t, rng)
		if m.p.SpacingBonus < 0.01 || m.p.Growth < 0.01 {
			continue
		}
		imp := 1 + rng.IntN(10)
		s0 := kgmem.DecayState{Stability: m.InitialStability(imp), LastReinforcedAt: epoch}
		if s0.Stability*1.01 >= m.p.MaxStabilityDays {
			continue // capped either way
		}
		fresh := m.Reinforce(s0, imp, epoch.Add(2*time.Hour))
		lateDays := s0.Stability * (20 + rng.Float64()*100)
		if lateDays > 100000 {
			continue // beyond time.Duration
		}
		late := m.Reinforce(s0, imp, epoch.Add(time.Duration(lateDays*float64(day))))
		if late.Stability <= fresh.Stability {
			t.Fatalf("late reinforcement grew S to %v, fresh one to %v (params %+v)", late.Stability, fresh.Stability, m.p)
		}
	}
}

func TestMassedRecallCountsOnce(t *testing.T) {
	m := DefaultModel()
	s := m.Initial(5, epoch)
	s = m.Reinforce(s, 5, epoch.Add(2*day))
	again := m.Reinforce(s, 5, epoch.Add(2*day+10*time.Minute))
	if again != s {
		t.Errorf("reinforcement 10 minutes later changed the state: %+v -> %+v", s, again)
	}
	s.ForgottenAt = epoch.Add(2 * day)
	if got := m.Reinforce(s, 5, epoch.Add(2*day+time.Minute)); got.Forgotten() {
		t.Errorf("massed reinforcement left the item forgotten")
	}
	hourLater := m.Reinforce(s, 5, epoch.Add(3*day))
	if hourLater.Reinforcements != s.Reinforcements+1 || hourLater.Stability <= s.Stability {
		t.Errorf("reinforcement a day later did not count: %+v -> %+v", s, hourLater)
	}
}

func TestPinnedAndEvergreenNeverDecay(t *testing.T) {
	m := DefaultModel()
	long := epoch.Add(50 * 365 * day)
	pinned := m.Pin(m.Initial(1, epoch), epoch)
	tests := []struct {
		name       string
		s          kgmem.DecayState
		importance int
	}{
		{"pinned trivia", pinned, 1},
		{"evergreen", m.Initial(10, epoch), 10},
		{"above evergreen range", m.Initial(12, epoch), 12},
	}
	for _, tt := range tests {
		if r := m.Retention(tt.s, tt.importance, long); r != 1 {
			t.Errorf("%s: R after 50 years = %v, want 1", tt.name, r)
		}
		if w := m.WeightAt(tt.s, tt.importance, long); w != 1 {
			t.Errorf("%s: weight = %v, want 1", tt.name, w)
		}
		if m.Due(tt.s, tt.importance, long) {
			t.Errorf("%s: due for forgetting", tt.name)
		}
		if f := m.Forget(tt.s, long); tt.s.Pinned && f.Forgotten() {
			t.Errorf("%s: Forget forgot a pinned item", tt.name)
		}
	}
	unpinned := m.Unpin(pinned, epoch.Add(100*day))
	if r := m.Retention(unpinned, 1, epoch.Add(100*day)); r != 1 {
		t.Errorf("right after unpinning R = %v, want 1 (clock restarts at unpin)", r)
	}
	if r := m.Retention(unpinned, 1, epoch.Add(200*day)); r >= 1 {
		t.Errorf("unpinned item does not decay: R = %v", r)
	}
}

func TestDisabledModel(t *testing.T) {
	p := DefaultParams()
	p.Enabled = false
	m, err := NewModel(p)
	if err != nil {
		t.Fatal(err)
	}
	s := m.Initial(1, epoch)
	if r := m.Retention(s, 1, epoch.Add(3650*day)); r != 1 {
		t.Errorf("disabled: R = %v, want 1", r)
	}
	if m.Due(s, 1, epoch.Add(3650*day)) {
		t.Error("disabled: item due for forgetting")
	}
}

func TestUninitialisedState(t *testing.T) {
	m := DefaultModel()
	var zero kgmem.DecayState
	if r := m.Retention(zero, 3, epoch); r != 1 {
		t.Errorf("never anchored: R = %v, want 1", r)
	}
	b := m.Backfill(zero, epoch)
	if !b.LastReinforcedAt.Equal(epoch) {
		t.Fatalf("Backfill did not anchor at creation: %+v", b)
	}
	want := m.Retention(m.Initial(3, epoch), 3, epoch.Add(40*day))
	if got := m.Retention(b, 3, epoch.Add(40*day)); got != want {
		t.Errorf("backfilled R = %v, want %v (same as an initialised item)", got, want)
	}
	if got := m.Backfill(m.Initial(3, epoch), epoch.Add(day)); !got.LastReinforcedAt.Equal(epoch) {
		t.Errorf("Backfill moved an anchored state")
	}
}

func TestImportanceRaisesInitialStability(t *testing.T) {
	m := DefaultModel()
	for i := MinImportance; i < MaxImportance; i++ {
		if m.InitialStability(i+1) <= m.InitialStability(i) {
			t.Errorf("S0(%d) = %v not above S0(%d) = %v", i+1, m.InitialStability(i+1), i, m.InitialStability(i))
		}
	}
	if m.InitialStability(0) != m.InitialStability(m.p.DefaultImportance) {
		t.Errorf("importance 0 does not use the default importance")
	}
}

func TestForgetAfterInvertsTheCurve(t *testing.T) {
	rng := rand.New(rand.NewPCG(19, 23))
	for range 500 {
		m := randomModel(t, rng)
		if m.p.ForgetThreshold < 0.01 || m.p.ForgetThreshold > 0.99 {
			continue
		}
		stab := m.InitialStability(1)
		d := m.ForgetAfter(stab)
		if d == math.MaxInt64 {
			continue
		}
		s := kgmem.DecayState{Stability: stab, LastReinforcedAt: epoch}
		if d > time.Minute {
			before := m.curve(elapsedDays(s, epoch.Add(d-time.Minute)), stab)
			if before < m.p.ForgetThreshold-1e-9 {
				t.Fatalf("R a minute before ForgetAfter = %v < threshold %v", before, m.p.ForgetThreshold)
			}
		}
		after := m.curve(elapsedDays(s, epoch.Add(d+time.Minute)), stab)
		if after >= m.p.ForgetThreshold+1e-9 {
			t.Fatalf("R a minute after ForgetAfter = %v >= threshold %v", after, m.p.ForgetThreshold)
		}
	}
}

// TestRecalledFactOutranksMentionedOnce: two equally relevant facts stated on
// the same day; one is recalled every couple of weeks, the other never again.
// Months later the recalled one weighs more, and the other still weighs more
// than the floor (findable, not zeroed).
func TestRecalledFactOutranksMentionedOnce(t *testing.T) {
	m := DefaultModel()
	const importance = 5
	once := m.Initial(importance, epoch)
	recalled := m.Initial(importance, epoch)
	for at := epoch.Add(14 * day); at.Before(epoch.Add(120 * day)); at = at.Add(14 * day) {
		recalled = m.Reinforce(recalled, importance, at)
	}
	for _, months := range []int{4, 6, 9, 12} {
		now := epoch.Add(time.Duration(months) * 30 * day)
		wr, wo := m.WeightAt(recalled, importance, now), m.WeightAt(once, importance, now)
		relevance := 0.8
		if relevance*wr <= relevance*wo {
			t.Errorf("after %d months: recalled weight %v <= mentioned-once weight %v", months, wr, wo)
		}
		if wo <= m.p.Floor {
			t.Errorf("after %d months the once-mentioned fact sank to the floor (%v)", months, wo)
		}
	}
	if recalled.Stability <= once.Stability*2 {
		t.Errorf("eight spaced recalls grew S only from %v to %v", once.Stability, recalled.Stability)
	}
}

// TestPowerLawTail documents why the power law was chosen: a year after one
// mention, an importance-5 fact keeps a usable retention, where an exponential
// of the same R(S) = 0.9 is practically zero.
func TestPowerLawTail(t *testing.T) {
	m := DefaultModel()
	s := m.Initial(5, epoch)
	year := epoch.Add(365 * day)
	power := m.Retention(s, 5, year)
	exponential := math.Exp(math.Log(0.9) * 365 / s.Stability)
	if power < 0.2 || exponential > 0.001 {
		t.Errorf("after a year: power law R = %v, exponential R = %v", power, exponential)
	}
	t.Logf("importance 5 (S0 = %.2f days) after a year: power law %.3f, exponential %.6f", s.Stability, power, exponential)
}

func TestWeightClamps(t *testing.T) {
	m := DefaultModel()
	tests := []struct{ r, want float64 }{
		{math.NaN(), 1}, {2, 1}, {1, 1}, {-1, m.p.Floor}, {0, m.p.Floor}, {0.5, m.p.Floor + (1-m.p.Floor)*0.5},
	}
	for _, tt := range tests {
		if got := m.Weight(tt.r); got != tt.want {
			t.Errorf("Weight(%v) = %v, want %v", tt.r, got, tt.want)
		}
	}
}

func TestForgetAndRestore(t *testing.T) {
	m := DefaultModel()
	s := m.Initial(1, epoch)
	f := m.Forget(s, epoch.Add(300*day))
	if !f.ForgottenAt.Equal(epoch.Add(300 * day)) {
		t.Fatalf("Forget: %+v", f)
	}
	if again := m.Forget(f, epoch.Add(400*day)); !again.ForgottenAt.Equal(f.ForgottenAt) {
		t.Errorf("Forget moved ForgottenAt of a forgotten item")
	}
	r := m.Restore(f, epoch.Add(310*day))
	if r.Forgotten() || !r.LastReinforcedAt.Equal(epoch.Add(310*day)) || r.Stability != s.Stability {
		t.Errorf("Restore: %+v", r)
	}
	if m.Due(r, 1, epoch.Add(311*day)) {
		t.Errorf("restored item is due again a day later")
	}
}
