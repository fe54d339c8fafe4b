package decay

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/kgmem/kgmem"
)

// Importance bounds shared with kgmem.Fact.Importance.
const (
	MinImportance = 1
	MaxImportance = 10
)

// Params are the per-namespace parameters of the forgetting curve. They are
// stored as JSON in kgmem.NamespaceSettings.Decay; ParseParams reads them, merging
// over DefaultParams. The JSON names are the field names Validate reports, prefixed
// with "decay.".
type Params struct {
	// Enabled switches decay on. When false every retention is 1, the sweep
	// forgets nothing, and reinforcement is still recorded.
	Enabled bool `json:"enabled"`
	// BaseStabilityDays is the initial stability S₀, in days, of an item of
	// importance 1: the time until its retention falls to 0.9.
	BaseStabilityDays float64 `json:"base_stability_days"`
	// ImportanceGrowth multiplies the initial stability per importance step:
	// S₀(i) = BaseStabilityDays · ImportanceGrowth^(i−1). At least 1.
	ImportanceGrowth float64 `json:"importance_growth"`
	// CurveExponent is d in R(t) = (1 + F·t/S)^(−d); F is derived from it so
	// that R(S) = 0.9. FSRS-4.5 uses 0.5. In (0, 5].
	CurveExponent float64 `json:"curve_exponent"`
	// Growth scales how much one reinforcement multiplies stability:
	// S' = S · (1 + Growth · e^(SpacingBonus·(1−R))).
	Growth float64 `json:"growth"`
	// SpacingBonus makes reinforcing a nearly forgotten item (low R) grow
	// stability more than reinforcing a fresh one (the spacing effect). 0 turns
	// the effect off. In [0, 20].
	SpacingBonus float64 `json:"spacing_bonus"`
	// MassedWindowMinutes: a reinforcement less than this long after the last one
	// counts as the same one (massed recall does not compound). 0 counts all.
	MassedWindowMinutes float64 `json:"massed_window_minutes"`
	// MaxStabilityDays caps stability. At least BaseStabilityDays.
	MaxStabilityDays float64 `json:"max_stability_days"`
	// Floor is the least search weight of an item, in [0, 1]:
	// weight = Floor + (1−Floor)·R, so decay reorders results but never zeroes them.
	Floor float64 `json:"floor"`
	// ForgetThreshold: the sweep soft-forgets items whose retention is below it.
	// In [0, 1]; 0 forgets nothing.
	ForgetThreshold float64 `json:"forget_threshold"`
	// EvergreenImportance: items at least this important never decay, like
	// pinned ones. 0 turns it off; otherwise 1–10.
	EvergreenImportance int `json:"evergreen_importance"`
	// DefaultImportance stands in for a missing importance (entities, episodes,
	// facts with importance 0). 1–10.
	DefaultImportance int `json:"default_importance"`
}

// DefaultParams returns the parameters used when a namespace sets none: the
// FSRS-4.5 power-law curve, trivia (importance 1) fading to the forget threshold
// in about six months and importance 5 in about two and a half years without recall.
func DefaultParams() Params {
	return Params{
		Enabled:             true,
		BaseStabilityDays:   1,
		ImportanceGrowth:    1.5,
		CurveExponent:       0.5,
		Growth:              0.2,
		SpacingBonus:        2.5,
		MassedWindowMinutes: 60,
		MaxStabilityDays:    36500,
		Floor:               0.9,
		ForgetThreshold:     0.15,
		EvergreenImportance: 10,
		DefaultImportance:   5,
	}
}

// Validate checks every field and returns the first offending one as a
// *kgmem.FieldError (wrapping kgmem.ErrInvalid) named "decay.<json field>".
func (p Params) Validate() error {
	finite := func(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
	switch {
	case !finite(p.BaseStabilityDays) || p.BaseStabilityDays <= 0:
		return kgmem.Invalidf("decay.base_stability_days", "must be a positive number of days, got %v", p.BaseStabilityDays)
	case !finite(p.ImportanceGrowth) || p.ImportanceGrowth < 1:
		return kgmem.Invalidf("decay.importance_growth", "must be at least 1 (more important never fades faster), got %v", p.ImportanceGrowth)
	case !finite(p.CurveExponent) || p.CurveExponent <= 0 || p.CurveExponent > 5:
		return kgmem.Invalidf("decay.curve_exponent", "must be in (0, 5], got %v", p.CurveExponent)
	case !finite(p.Growth) || p.Growth < 0:
		return kgmem.Invalidf("decay.growth", "must not be negative, got %v", p.Growth)
	case !finite(p.SpacingBonus) || p.SpacingBonus < 0 || p.SpacingBonus > 20:
		return kgmem.Invalidf("decay.spacing_bonus", "must be in [0, 20], got %v", p.SpacingBonus)
	case !finite(p.MassedWindowMinutes) || p.MassedWindowMinutes < 0:
		return kgmem.Invalidf("decay.massed_window_minutes", "must not be negative, got %v", p.MassedWindowMinutes)
	case !finite(p.MaxStabilityDays) || p.MaxStabilityDays < p.BaseStabilityDays:
		return kgmem.Unprocessablef("decay.max_stability_days", "must be at least base_stability_days (%v), got %v", p.BaseStabilityDays, p.MaxStabilityDays)
	case !finite(p.Floor) || p.Floor < 0 || p.Floor > 1:
		return kgmem.Invalidf("decay.floor", "must be in [0, 1], got %v", p.Floor)
	case !finite(p.ForgetThreshold) || p.ForgetThreshold < 0 || p.ForgetThreshold > 1:
		return kgmem.Invalidf("decay.forget_threshold", "must be in [0, 1], got %v", p.ForgetThreshold)
	case p.EvergreenImportance != 0 && (p.EvergreenImportance < MinImportance || p.EvergreenImportance > MaxImportance):
		return kgmem.Invalidf("decay.evergreen_importance", "must be 0 (off) or in [%d, %d], got %d", MinImportance, MaxImportance, p.EvergreenImportance)
	case p.DefaultImportance < MinImportance || p.DefaultImportance > MaxImportance:
		return kgmem.Invalidf("decay.default_importance", "must be in [%d, %d], got %d", MinImportance, MaxImportance, p.DefaultImportance)
	}
	return nil
}

// ParseParams reads parameters stored as JSON (kgmem.NamespaceSettings.Decay),
// merging them over DefaultParams: absent fields keep their defaults. Empty input
// and JSON null give the defaults. Unknown fields, wrong types, trailing data and
// out-of-range values are rejected with an error wrapping kgmem.ErrInvalid.
func ParseParams(raw json.RawMessage) (Params, error) {
	p := DefaultParams()
	trimmed := bytes.TrimSpace(raw)
	if len(trimmed) == 0 || bytes.Equal(trimmed, []byte("null")) {
		return p, nil
	}
	dec := json.NewDecoder(bytes.NewReader(trimmed))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&p); err != nil {
		return Params{}, decodeError(err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return Params{}, kgmem.Invalidf("decay", "unexpected data after the parameters object")
	}
	if err := p.Validate(); err != nil {
		return Params{}, err
	}
	return p, nil
}

// decodeError turns a JSON decoding error into a field error where the field is known.
func decodeError(err error) error {
	var typeErr *json.UnmarshalTypeError
	if errors.As(err, &typeErr) && typeErr.Field != "" {
		return kgmem.Invalidf("decay."+typeErr.Field, "must be a JSON %s, got %s", typeErr.Type, typeErr.Value)
	}
	// encoding/json reports unknown fields only as text: `json: unknown field "x"`.
	if name, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
		return kgmem.Invalidf("decay."+strings.Trim(name, `"`), "is not a decay parameter")
	}
	return fmt.Errorf("decay parameters: %w", kgmem.Invalidf("decay", "%v", err))
}
