package locomo

import (
	"slices"
	"testing"
)

func TestParseDiaID(t *testing.T) {
	tests := []struct {
		in            string
		session, turn int
		ok            bool
	}{
		{"D1:3", 1, 3, true},
		{"D12:40", 12, 40, true},
		{" D2:5 ", 2, 5, true},
		{"D", 0, 0, false},
		{"D10:", 0, 0, false},
		{"D:11:26", 0, 0, false},
		{"D8:6; D9:17", 0, 0, false},
		{"D1:3 D1:4", 0, 0, false},
		{"d1:3", 0, 0, false},
		{"D0:1", 0, 0, false},
		{"D1:03", 0, 0, false},
		{"", 0, 0, false},
	}
	for _, tt := range tests {
		s, n, ok := ParseDiaID(tt.in)
		if s != tt.session || n != tt.turn || ok != tt.ok {
			t.Errorf("ParseDiaID(%q) = %d, %d, %t; want %d, %d, %t", tt.in, s, n, ok, tt.session, tt.turn, tt.ok)
		}
	}
}

func TestCleanEvidence(t *testing.T) {
	turns := map[string]bool{"D1:3": true, "D1:4": true, "D2:1": true}
	tests := []struct {
		name                    string
		in                      []string
		ids, malformed, unknown []string
	}{
		{"valid", []string{"D1:3", "D2:1"}, []string{"D1:3", "D2:1"}, nil, nil},
		{"duplicates kept once", []string{"D1:3", " D1:3", "D1:3"}, []string{"D1:3"}, nil, nil},
		{"two ids in one entry", []string{"D1:3 D1:4"}, nil, []string{"D1:3 D1:4"}, nil},
		{"semicolon list", []string{"D8:6; D9:17", "D2:1"}, []string{"D2:1"}, []string{"D8:6; D9:17"}, nil},
		{"truncated", []string{"D10:", "D", "D1:4"}, []string{"D1:4"}, []string{"D10:", "D"}, nil},
		{"extra colon", []string{"D:11:26"}, nil, []string{"D:11:26"}, nil},
		{"no such turn", []string{"D10:19", "D1:3"}, []string{"D1:3"}, nil, []string{"D10:19"}},
		{"empty", nil, nil, nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := CleanEvidence(tt.in, turns)
			if !slices.Equal(got.IDs, tt.ids) || !slices.Equal(got.Malformed, tt.malformed) || !slices.Equal(got.Unknown, tt.unknown) {
				t.Errorf("CleanEvidence(%q) = %+v; want ids %q malformed %q unknown %q", tt.in, got, tt.ids, tt.malformed, tt.unknown)
			}
		})
	}
	// Without a turn set every well-formed id is kept.
	if got := CleanEvidence([]string{"D10:19"}, nil); !slices.Equal(got.IDs, []string{"D10:19"}) {
		t.Errorf("CleanEvidence without turns = %+v, want D10:19 kept", got)
	}
}

// The shipped data has exactly the malformed entries the README's 759 assumes.
func TestCasesOnData(t *testing.T) {
	cases, st := Cases(loadData(t))
	if st.Conversations != 5 || st.Questions != 762 || st.Scored != 759 || len(cases) != 759 || st.NoEvidence != 3 {
		t.Errorf("stats = %+v (cases %d); want 5 conversations, 762 questions, 759 scored, 3 without evidence", st, len(cases))
	}
	if len(st.MalformedIDs) != 3 || len(st.UnknownIDs) != 1 {
		t.Errorf("malformed %q, unknown %q; want 3 and 1", st.MalformedIDs, st.UnknownIDs)
	}
	for _, c := range cases {
		if c.Category < 1 || c.Category > 4 || len(c.Evidence) == 0 || c.Text == "" {
			t.Fatalf("bad case %+v", c)
		}
	}
}
