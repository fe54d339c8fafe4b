package sqlite

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/kgmem/kgmem"
)

// TestListFactsPlans checks, on a file without planner statistics, that
// each narrowed ListFacts shape merges two index reads in id order: no scan,
// no temporary table, no sort. Integration lists these slices for every
// triple it weighs.
func TestListFactsPlans(t *testing.T) {
	s, err := Open(t.Context(), filepath.Join(t.TempDir(), "graph.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	tests := []struct {
		name   string
		filter kgmem.FactFilter
		index  string
	}{
		{"between two entities", kgmem.FactFilter{EntityID: "a", OtherID: "b", IncludeExpired: true}, "facts_pair"},
		{"between two entities, current, one predicate", kgmem.FactFilter{EntityID: "a", OtherID: "b", Predicate: "p"}, "facts_pair"},
		{"one predicate of an entity", kgmem.FactFilter{EntityID: "a", Predicate: "p"}, "facts_subject_predicate"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			query, args := pairQuery("ns", tt.filter, 10)
			text := queryPlan(t, s, query, args...)
			if !strings.Contains(text, "MERGE") || !strings.Contains(text, "f USING INDEX "+tt.index) {
				t.Errorf("plan does not merge reads of %s:\n%s", tt.index, text)
			}
			for _, bad := range []string{"SCAN", "TEMP B-TREE"} {
				if strings.Contains(text, bad) {
					t.Errorf("plan has %s:\n%s", bad, text)
				}
			}
		})
	}
}
