package decay

import (
	"encoding/json"
	"errors"
	"math"
	"testing"

	"github.com/kgmem/kgmem"
)

func TestDefaultParamsValid(t *testing.T) {
	if err := DefaultParams().Validate(); err != nil {
		t.Fatalf("DefaultParams().Validate() = %v", err)
	}
}

func TestValidateRejectsEachBadField(t *testing.T) {
	tests := []struct {
		field  string
		modify func(*Params)
	}{
		{"decay.base_stability_days", func(p *Params) { p.BaseStabilityDays = 0 }},
		{"decay.base_stability_days", func(p *Params) { p.BaseStabilityDays = -3 }},
		{"decay.base_stability_days", func(p *Params) { p.BaseStabilityDays = math.NaN() }},
		{"decay.importance_growth", func(p *Params) { p.ImportanceGrowth = 0.9 }},
		{"decay.importance_growth", func(p *Params) { p.ImportanceGrowth = math.Inf(1) }},
		{"decay.curve_exponent", func(p *Params) { p.CurveExponent = 0 }},
		{"decay.curve_exponent", func(p *Params) { p.CurveExponent = 6 }},
		{"decay.growth", func(p *Params) { p.Growth = -0.1 }},
		{"decay.spacing_bonus", func(p *Params) { p.SpacingBonus = -1 }},
		{"decay.spacing_bonus", func(p *Params) { p.SpacingBonus = 21 }},
		{"decay.massed_window_minutes", func(p *Params) { p.MassedWindowMinutes = -1 }},
		{"decay.max_stability_days", func(p *Params) { p.MaxStabilityDays = p.BaseStabilityDays / 2 }},
		{"decay.max_stability_days", func(p *Params) { p.MaxStabilityDays = math.NaN() }},
		{"decay.floor", func(p *Params) { p.Floor = -0.01 }},
		{"decay.floor", func(p *Params) { p.Floor = 1.01 }},
		{"decay.forget_threshold", func(p *Params) { p.ForgetThreshold = -0.5 }},
		{"decay.forget_threshold", func(p *Params) { p.ForgetThreshold = 1.5 }},
		{"decay.evergreen_importance", func(p *Params) { p.EvergreenImportance = -1 }},
		{"decay.evergreen_importance", func(p *Params) { p.EvergreenImportance = 11 }},
		{"decay.default_importance", func(p *Params) { p.DefaultImportance = 0 }},
		{"decay.default_importance", func(p *Params) { p.DefaultImportance = 11 }},
	}
	for _, tt := range tests {
		p := DefaultParams()
		tt.modify(&p)
		err := p.Validate()
		var fe *kgmem.FieldError
		if !errors.As(err, &fe) || !errors.Is(err, kgmem.ErrInvalid) {
			t.Errorf("%s: Validate() = %v, want a *kgmem.FieldError wrapping ErrInvalid", tt.field, err)
			continue
		}
		if fe.Field != tt.field {
			t.Errorf("Validate() names field %q, want %q (%v)", fe.Field, tt.field, err)
		}
		if _, err := NewModel(p); !errors.Is(err, kgmem.ErrInvalid) {
			t.Errorf("%s: NewModel accepted invalid params: %v", tt.field, err)
		}
	}
}

func TestValidateAcceptsBoundaries(t *testing.T) {
	tests := []struct {
		name   string
		modify func(*Params)
	}{
		{"floor 0", func(p *Params) { p.Floor = 0 }},
		{"floor 1", func(p *Params) { p.Floor = 1 }},
		{"threshold 0", func(p *Params) { p.ForgetThreshold = 0 }},
		{"threshold 1", func(p *Params) { p.ForgetThreshold = 1 }},
		{"evergreen off", func(p *Params) { p.EvergreenImportance = 0 }},
		{"no spacing", func(p *Params) { p.SpacingBonus = 0 }},
		{"no growth", func(p *Params) { p.Growth = 0 }},
		{"exponential-like exponent", func(p *Params) { p.CurveExponent = 5 }},
	}
	for _, tt := range tests {
		p := DefaultParams()
		tt.modify(&p)
		if err := p.Validate(); err != nil {
			t.Errorf("%s: Validate() = %v, want nil", tt.name, err)
		}
	}
}

func TestParseParams(t *testing.T) {
	def := DefaultParams()
	tests := []struct {
		name      string
		raw       string
		want      func(Params) Params // expected result from the defaults
		wantField string              // non-empty: expect a FieldError with this field
	}{
		{name: "empty", raw: "", want: func(p Params) Params { return p }},
		{name: "null", raw: " null ", want: func(p Params) Params { return p }},
		{name: "empty object", raw: "{}", want: func(p Params) Params { return p }},
		{name: "merge", raw: `{"floor": 0.2, "enabled": false, "evergreen_importance": 9}`, want: func(p Params) Params {
			p.Floor, p.Enabled, p.EvergreenImportance = 0.2, false, 9
			return p
		}},
		{name: "unknown field", raw: `{"flor": 0.2}`, wantField: "decay.flor"},
		{name: "wrong type", raw: `{"floor": "high"}`, wantField: "decay.floor"},
		{name: "out of range", raw: `{"forget_threshold": 2}`, wantField: "decay.forget_threshold"},
		{name: "zero stability", raw: `{"base_stability_days": 0}`, wantField: "decay.base_stability_days"},
		{name: "trailing data", raw: `{"floor": 0.2} {"floor": 0.3}`, wantField: "decay"},
		{name: "not an object", raw: `[1]`, wantField: "decay"},
		{name: "broken", raw: `{"floor": `, wantField: "decay"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseParams(json.RawMessage(tt.raw))
			if tt.wantField != "" {
				var fe *kgmem.FieldError
				if !errors.As(err, &fe) || !errors.Is(err, kgmem.ErrInvalid) {
					t.Fatalf("ParseParams(%s) = %+v, %v; want a FieldError wrapping ErrInvalid", tt.raw, got, err)
				}
				if fe.Field != tt.wantField {
					t.Errorf("field = %q, want %q (%v)", fe.Field, tt.wantField, err)
				}
				return
			}
			if err != nil {
				t.Fatalf("ParseParams(%s): %v", tt.raw, err)
			}
			if want := tt.want(def); got != want {
				t.Errorf("ParseParams(%s) = %+v, want %+v", tt.raw, got, want)
			}
		})
	}
}

func TestParamsJSONRoundTrip(t *testing.T) {
	p := DefaultParams()
	p.Floor, p.CurveExponent, p.DefaultImportance = 0.25, 0.7, 3
	raw, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	got, err := ParseParams(raw)
	if err != nil {
		t.Fatalf("ParseParams(%s): %v", raw, err)
	}
	if got != p {
		t.Errorf("round trip = %+v, want %+v", got, p)
	}
}

func TestModelFromSettings(t *testing.T) {
	m, err := ModelFromSettings(kgmem.NamespaceSettings{Decay: json.RawMessage(`{"floor": 0.1}`)})
	if err != nil {
		t.Fatal(err)
	}
	if got := m.Weight(0); got != 0.1 {
		t.Errorf("Weight(0) with floor 0.1 = %v", got)
	}
	if _, err := ModelFromSettings(kgmem.NamespaceSettings{Decay: json.RawMessage(`{"floor": 3}`)}); !errors.Is(err, kgmem.ErrInvalid) {
		t.Errorf("bad settings: err = %v, want ErrInvalid", err)
	}
}
