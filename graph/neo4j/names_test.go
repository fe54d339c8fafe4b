package neo4j

import (
	"regexp"
	"strings"
	"testing"
)

var (
	relTypePattern = regexp.MustCompile(`^[A-Z][A-Z0-9_]{0,63}$`)
	labelPattern   = regexp.MustCompile(`^[A-Z][A-Za-z0-9_]{0,63}$`)
)

func TestRelType(t *testing.T) {
	tests := []struct {
		predicate, want string
	}{
		{"leads", "LEADS"},
		{"lives_in", "LIVES_IN"},
		{"works at", "WORKS_AT"},
		{"  is-part-of  ", "IS_PART_OF"},
		{"située_à", "SITUEE_A"},
		{"has__many___underscores", "HAS_MANY_UNDERSCORES"},
		{"3d_prints", "R_3D_PRINTS"},
		{"好き", "RELATED_TO"},
		{"", "RELATED_TO"},
		{"🎉", "RELATED_TO"},
		{"mentions", "FACT_MENTIONS"},
		{"KNOWS]->(x) DETACH DELETE x //", "KNOWS_X_DETACH_DELETE_X"},
		{"`; MATCH (n) DELETE n", "MATCH_N_DELETE_N"},
		{"pred_$(evil)", "PRED_EVIL"},
		{strings.Repeat("ab_", 40), strings.TrimRight(strings.Repeat("AB_", 22)[:64], "_")},
	}
	for _, tc := range tests {
		t.Run(tc.predicate, func(t *testing.T) {
			got := RelType(tc.predicate)
			if got != tc.want {
				t.Errorf("RelType(%q) = %q, want %q", tc.predicate, got, tc.want)
			}
			if !relTypePattern.MatchString(got) {
				t.Errorf("RelType(%q) = %q does not match %s", tc.predicate, got, relTypePattern)
			}
		})
	}
}

func TestLabel(t *testing.T) {
	tests := []struct {
		typ, want string
	}{
		{"Person", "Person"},
		{"person", "Person"},
		{"music band", "MusicBand"},
		{"UserDefinedType", "UserDefinedType"},
		{"café_owner", "CafeOwner"},
		{"1st-class", "T1stClass"},
		{"", "Other"},
		{"東京", "Other"},
		{"Episode", "EpisodeType"},
		{"entity", "EntityType"},
		{"FactText", "FactTextType"},
		{"KgmemSettings", "KgmemSettingsType"},
		{"kgmem graph version", "KgmemGraphVersionType"},
		{"Type`backtick` $param {map: 1}", "TypeBacktickParamMap1"},
		{"x) DETACH DELETE n //", "XDETACHDELETEN"},
	}
	for _, tc := range tests {
		t.Run(tc.typ, func(t *testing.T) {
			got := Label(tc.typ)
			if got != tc.want {
				t.Errorf("Label(%q) = %q, want %q", tc.typ, got, tc.want)
			}
			if !labelPattern.MatchString(got) {
				t.Errorf("Label(%q) = %q does not match %s", tc.typ, got, labelPattern)
			}
		})
	}
}

// FuzzIdentifiers checks that no input ever yields an identifier outside the
// patterns that make splicing-free dynamic labels and types readable.
func FuzzIdentifiers(f *testing.F) {
	for _, s := range []string{"leads", "", "`", "a]->(b", "ß", "\x00", strings.Repeat("x", 200)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got := RelType(s); !relTypePattern.MatchString(got) || got == relMentions {
			t.Errorf("RelType(%q) = %q", s, got)
		}
		if got := Label(s); !labelPattern.MatchString(got) {
			t.Errorf("Label(%q) = %q", s, got)
		}
	})
}
