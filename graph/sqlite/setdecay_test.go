package sqlite

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestSetDecayPlans: the batched decay update seeks each named record by
// its (namespace, id) key, on every record table, instead of scanning the
// table.
func TestSetDecayPlans(t *testing.T) {
	s, err := Open(t.Context(), filepath.Join(t.TempDir(), "graph.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, src := range ftsSources() {
		t.Run(src.records, func(t *testing.T) {
			text := queryPlan(t, s, setDecaysQuery(src.records), "ns", `[["id", 1, null, 0, false, null]]`)
			if strings.Contains(text, "SCAN r") || !strings.Contains(text, "SEARCH r USING") || !strings.Contains(text, "(namespace=? AND id=?)") {
				t.Errorf("plan does not seek %s by key:\n%s", src.records, text)
			}
		})
	}
}
