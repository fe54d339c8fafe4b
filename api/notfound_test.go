package api_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/kgmem/kgmem/api"
)

// TestNotFoundInOurWords checks that a 404 says what was not found, in the
// API's words, without the store's (its name, its query) on every backend.
func TestNotFoundInOurWords(t *testing.T) {
	refs := map[string]any{"namespace": "nf/a", "refs": []map[string]string{{"kind": "fact", "id": "fact_missing"}}}
	tests := []struct {
		name, method, path string
		body               any
		want               string
	}{
		{"get fact", "GET", "/v1/facts/fact_missing?namespace=nf%2Fa", nil, `no fact with id "fact_missing" in namespace "nf/a"`},
		{"delete fact", "DELETE", "/v1/facts/fact_missing?namespace=nf%2Fa", nil, `no fact with id "fact_missing" in namespace "nf/a"`},
		{"get entity", "GET", "/v1/entities/ent_missing?namespace=nf%2Fa", nil, `no entity with id "ent_missing" in namespace "nf/a"`},
		{"pin", "POST", "/v1/pins", refs, `a record in refs does not exist in namespace "nf/a"`},
		{"strength", "POST", "/v1/strength", refs, `a record in refs does not exist in namespace "nf/a"`},
	}
	for _, b := range backends(t) {
		t.Run(b.name, func(t *testing.T) {
			s := newTestServer(t, b, api.Options{}, nil)
			for _, tc := range tests {
				t.Run(tc.name, func(t *testing.T) {
					var p problem
					if st := s.json(tc.method, tc.path, tc.body, &p); st != http.StatusNotFound || p.Detail != tc.want {
						t.Errorf("%d %q, want 404 %q", st, p.Detail, tc.want)
					}
					for _, leak := range []string{"sqlite", "neo4j", "milvus", "MATCH", "SELECT"} {
						if strings.Contains(p.Detail, leak) {
							t.Errorf("detail %q names the backend (%s)", p.Detail, leak)
						}
					}
				})
			}
		})
	}
}
