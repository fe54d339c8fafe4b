package triples

import (
	"testing"

	"github.com/kgmem/kgmem"
)

func TestCleanEntityName(t *testing.T) {
	tests := []struct{ in, want string }{
		{"Bob", "Bob"},
		{"  Bob   Smith  ", "Bob Smith"},
		{"Bob Smith (he)", "Bob Smith"},
		{"Bob Smith (he/him) [PM]", "Bob Smith"},
		{`"the ML team"`, "the ML team"},
		{"Ｂｏｂ", "Bob"},
		{"C++", "C++"},
		{"(unknown)", "(unknown)"},
		{"Acme, Inc.", "Acme, Inc"},
		{"Ann {intern}", "Ann"},
		{"Ann\u00adMarie\u200b Lee", "AnnMarie Lee"},
		{"Zoë (she)", "Zoë"},
		{"Ann Lee\u200e", "Ann Lee"},
	}
	for _, tt := range tests {
		if got := CleanEntityName(tt.in); got != tt.want {
			t.Errorf("CleanEntityName(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestNormalizeEntityType(t *testing.T) {
	schema := &kgmem.Schema{EntityTypes: []kgmem.TypeDef{{Name: "Recipe"}, {Name: "Ingredient"}}}
	tests := []struct {
		in     string
		schema *kgmem.Schema
		want   string
	}{
		{"Person", nil, kgmem.TypePerson},
		{"person", nil, kgmem.TypePerson},
		{"PEOPLE", nil, kgmem.TypePerson},
		{"company", nil, kgmem.TypeOrganization},
		{"Companies", nil, kgmem.TypeOrganization},
		{"organisation", nil, kgmem.TypeOrganization},
		{"team", nil, kgmem.TypeTeam},
		{"city", nil, kgmem.TypePlace},
		{"food", nil, kgmem.TypeObject},
		{"hobby", nil, kgmem.TypePreference},
		{"", nil, kgmem.TypeOther},
		{"spaceship", nil, kgmem.TypeOther},
		{"recipe", schema, "Recipe"},
		{"Ingredient", schema, "Ingredient"},
		{"recipe", nil, kgmem.TypeOther},
		{"Team", schema, kgmem.TypeTeam},
	}
	for _, tt := range tests {
		if got := NormalizeEntityType(tt.in, tt.schema); got != tt.want {
			t.Errorf("NormalizeEntityType(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestJaroWinkler(t *testing.T) {
	tests := []struct {
		a, b   string
		lo, hi float64
	}{
		{"martha", "marhta", 0.96, 0.962},
		{"dwayne", "duane", 0.84, 0.841},
		{"bob", "bob", 1, 1},
		{"", "x", 0, 0},
		{"alice", "zzz", 0, 0.5},
	}
	for _, tt := range tests {
		if got := jaroWinkler(tt.a, tt.b); got < tt.lo || got > tt.hi {
			t.Errorf("jaroWinkler(%q, %q) = %v, want in [%v, %v]", tt.a, tt.b, got, tt.lo, tt.hi)
		}
	}
}
