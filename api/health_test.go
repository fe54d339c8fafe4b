package api_test

import (
	"net/http"
	"testing"

	"github.com/kgmem/kgmem/api"
)

func TestReadyzReportsVectorOutbox(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		s := newTestServer(t, b, api.Options{}, nil)
		var body map[string]any
		if code := s.json(http.MethodGet, "/readyz", nil, &body); code != http.StatusOK {
			t.Fatalf("readyz = %d %v", code, body)
		}
		if body["status"] != "ready" || body["vector_outbox"] != float64(0) {
			t.Errorf("readyz body %v, want ready with an empty vector outbox", body)
		}
		var health map[string]any
		if code := s.json(http.MethodGet, "/healthz", nil, &health); code != http.StatusOK || len(health) != 1 {
			t.Errorf("healthz = %d %v, want only the status", code, health)
		}
	})
}
