package sqlite

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestLatestTimeSeeksIndexes checks that LatestTime's query reads each
// answer from the end of an index (episodes_timestamp, facts_latest) rather
// than scanning the namespace's episodes or facts, which it did before
// schema version 8: a temporal search after every write read them all.
func TestLatestTimeSeeksIndexes(t *testing.T) {
	s, err := Open(t.Context(), filepath.Join(t.TempDir(), "graph.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	text := queryPlan(t, s, latestTimeQuery, "ns")
	for _, want := range []string{"episodes USING COVERING INDEX episodes_timestamp", "facts USING INDEX facts_latest"} {
		if !strings.Contains(text, want) {
			t.Errorf("plan lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "TEMP B-TREE") {
		t.Errorf("plan sorts instead of reading an index in order:\n%s", text)
	}
}

// queryPlan returns SQLite's EXPLAIN QUERY PLAN of query with args on s's
// readers, one step per line.
func queryPlan(t *testing.T, s *Store, query string, args ...any) string {
	t.Helper()
	rows, err := s.r.QueryContext(t.Context(), `EXPLAIN QUERY PLAN `+query, args...)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var plan []string
	for rows.Next() {
		var id, parent, unused int
		var detail string
		if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
			t.Fatal(err)
		}
		plan = append(plan, detail)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return strings.Join(plan, "\n")
}
