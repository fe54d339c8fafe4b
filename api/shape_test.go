package api_test

import (
	"testing"

	"github.com/kgmem/kgmem/api"
)

// TestWarningsAlwaysPresent checks that ingest and search answers carry
// "warnings" (an empty list when all went to plan), as the README shows.
func TestWarningsAlwaysPresent(t *testing.T) {
	s := newTestServer(t, backends(t)[0], api.Options{}, nil)
	msgs := map[string]any{"namespace": "shape/a", "thread_id": "t", "messages": []map[string]any{{"id": "m1", "content": "I like tea."}}}
	for _, tc := range []struct {
		name, path string
		body       any
	}{
		{"ingest", "/v1/memories", msgs},
		{"re-post", "/v1/memories", msgs},
		{"search", "/v1/search", map[string]any{"namespace": "shape/a", "query": "tea"}},
	} {
		var out map[string]any
		s.json("POST", tc.path, tc.body, &out)
		if w, ok := out["warnings"].([]any); !ok || len(w) != 0 {
			t.Errorf("%s: warnings %#v, want []", tc.name, out["warnings"])
		}
	}
}
