package api_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/api"
	"github.com/kgmem/kgmem/auth"
)

// problemOf decodes a problem+json answer.
func problemOf(t *testing.T, raw []byte) api.Problem {
	t.Helper()
	var p api.Problem
	if err := json.Unmarshal(raw, &p); err != nil {
		t.Fatalf("not a problem: %q: %v", raw, err)
	}
	return p
}

func TestAuthentication(t *testing.T) {
	b := backends(t)[0] // authentication does not depend on the backend
	s := newAuthServer(t, b, api.Options{}, nil)
	reader := s.key("reader", auth.Read, "acme")
	writer := s.key("writer", auth.Write, "acme")
	revoked := s.key("old", auth.Write, "acme")
	revokedID, err := auth.ParseKey(revoked)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.store.Revoke(t.Context(), revokedID); err != nil {
		t.Fatal(err)
	}
	// The writer's key with one secret character changed (not the last:
	// base32 leaves it only 'a' or 'q', so overwriting it with "aa" gave the
	// real key back once in 64 runs).
	at := len(writer) - 3
	forged := writer[:at] + map[bool]string{true: "b", false: "a"}[writer[at] == 'a'] + writer[at+1:]
	ingest := map[string]any{"namespace": "acme/u1", "thread_id": "t", "messages": []message{{"id": "m1", "content": "hello", "timestamp": "2024-01-01T00:00:00Z"}}}
	tests := []struct {
		name        string
		key, method string
		path        string
		body        any
		status      int
		field       string
	}{
		{"no key", "", "POST", "/v1/memories", ingest, 401, ""},
		{"garbage key", "nonsense", "POST", "/v1/memories", ingest, 401, ""},
		{"forged secret", forged, "POST", "/v1/memories", ingest, 401, ""},
		{"revoked key", revoked, "POST", "/v1/memories", ingest, 401, ""},
		{"reader writes", reader, "POST", "/v1/memories", ingest, 403, "namespace"},
		{"writer writes", writer, "POST", "/v1/memories", ingest, 201, ""},
		{"reader reads", reader, "GET", "/v1/facts?namespace=acme%2Fu1", nil, 200, ""},
		{"reader searches", reader, "POST", "/v1/search", map[string]any{"namespace": "acme/u1", "query": "hello"}, 200, ""},
		{"outside prefix", writer, "GET", "/v1/facts?namespace=acmex", nil, 403, "namespace"},
		{"namespace twice", writer, "GET", "/v1/facts?namespace=acme&namespace=other", nil, 400, "namespace"},
		{"malformed body", writer, "POST", "/v1/memories", []byte(`{"namespace": "acme"`), 400, "body"},
		{"bad namespace", writer, "POST", "/v1/search", map[string]any{"namespace": "../etc", "query": "x"}, 400, "namespace"},
		{"writer purges", writer, "DELETE", "/v1/namespaces/acme%2Fu1", nil, 403, "namespace"},
		{"writer reads metrics", writer, "GET", "/metrics", nil, 403, ""},
		{"admin reads metrics", s.admin, "GET", "/metrics", nil, 200, ""},
		{"health is public", "", "GET", "/healthz", nil, 200, ""},
		{"openapi is public", "", "GET", "/openapi.json", nil, 200, ""},
		{"unknown route", writer, "GET", "/v1/nothing", nil, 404, ""},
		{"unknown route, no key", "", "GET", "/v1/nothing", nil, 401, ""},
		{"admin purges", s.admin, "DELETE", "/v1/namespaces/acme%2Fu1", nil, 200, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st, h, raw := s.call(tt.key, tt.method, tt.path, tt.body)
			if st != tt.status {
				t.Fatalf("status %d, want %d: %s", st, tt.status, raw)
			}
			if st < 400 {
				return
			}
			if ct := h.Get("Content-Type"); ct != "application/problem+json" {
				t.Errorf("Content-Type %q", ct)
			}
			p := problemOf(t, raw)
			if p.Status != st || p.Detail == "" || p.Field != tt.field {
				t.Errorf("problem %+v, want status %d and field %q", p, st, tt.field)
			}
			if st == 401 && h.Get("WWW-Authenticate") != `Bearer realm="kgmem"` {
				t.Errorf("401 without the Bearer challenge: %q", h.Get("WWW-Authenticate"))
			}
			if tt.key != "" && strings.Contains(string(raw), tt.key) {
				t.Errorf("the answer echoes the key")
			}
		})
	}
}

func TestOpenUntilFirstKey(t *testing.T) {
	// No admin key and an empty store: the API is open (cmd/server binds it to
	// loopback only) until the first key is created, and closed from then on,
	// even after that key is revoked.
	st, err := auth.OpenStore(t.Context(), filepath.Join(t.TempDir(), "keys.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	a, err := auth.NewAuthenticator("", st)
	if err != nil {
		t.Fatal(err)
	}
	open := newTestServer(t, backends(t)[0], api.Options{Auth: a}, nil)
	if code := open.json("GET", "/v1/facts?namespace=x", nil, nil); code != 200 {
		t.Fatalf("open server: %d, want 200", code)
	}
	k, _, err := st.Create(t.Context(), auth.CreateRequest{Name: "first", Right: auth.Read, Prefixes: []kgmem.Namespace{"x"}})
	if err != nil {
		t.Fatal(err)
	}
	if code := open.json("GET", "/v1/facts?namespace=x", nil, nil); code != 401 {
		t.Fatalf("after the first key: %d, want 401", code)
	}
	if err := st.Revoke(t.Context(), k.ID); err != nil {
		t.Fatal(err)
	}
	if code := open.json("GET", "/v1/facts?namespace=x", nil, nil); code != 401 {
		t.Fatalf("after revoking every key: %d, want 401", code)
	}
}

func TestRateLimit(t *testing.T) {
	s := newAuthServer(t, backends(t)[0], api.Options{RateLimit: 0.5, RateBurst: 3}, nil)
	key := s.key("bot", auth.Read, "acme")
	other := s.key("other", auth.Read, "acme")
	path := "/v1/facts?namespace=acme"
	for i := range 3 {
		if st, _, raw := s.call(key, "GET", path, nil); st != 200 {
			t.Fatalf("request %d within the burst: %d %s", i+1, st, raw)
		}
	}
	st, h, raw := s.call(key, "GET", path, nil)
	if st != http.StatusTooManyRequests {
		t.Fatalf("request over the burst: %d, want 429: %s", st, raw)
	}
	if secs, err := strconv.Atoi(h.Get("Retry-After")); err != nil || secs < 1 || secs > 2 {
		t.Errorf("Retry-After %q, want 1..2 s at 0.5 requests/s", h.Get("Retry-After"))
	}
	if p := problemOf(t, raw); p.Status != 429 || !strings.Contains(p.Detail, "requests per second") {
		t.Errorf("problem %+v", p)
	}
	// Limits are per key; the admin is not limited.
	if st, _, _ := s.call(other, "GET", path, nil); st != 200 {
		t.Errorf("another key: %d, want 200", st)
	}
	for range 5 {
		if st, _, _ := s.call(s.admin, "GET", path, nil); st != 200 {
			t.Fatalf("admin: %d, want 200", st)
		}
	}
}

// TestLogsHoldNoSecrets: at the default level the log names route, status and
// key id, never the key, the Authorization header, message content or query text.
func TestLogsHoldNoSecrets(t *testing.T) {
	var logBuf bytes.Buffer
	log := slogText(&logBuf)
	s := newAuthServer(t, backends(t)[0], api.Options{}, log)
	key := s.key("bot", auth.Write, "acme")
	secretContent := "my-private-diagnosis-XYZZY"
	secretQuery := "what-about-PLUGH"
	s.must(201, key, "POST", "/v1/memories", map[string]any{"namespace": "acme", "thread_id": "t", "messages": []message{{"id": "m1", "content": secretContent, "timestamp": "2024-01-01T00:00:00Z"}}}, nil)
	s.must(200, key, "POST", "/v1/search", map[string]any{"namespace": "acme", "query": secretQuery}, nil)
	s.must(400, key, "POST", "/v1/search", map[string]any{"namespace": "acme", "query": secretQuery, "limit": -1}, nil)
	s.call(key+"x", "POST", "/v1/search", map[string]any{"namespace": "acme", "query": secretQuery})
	s.call(s.admin, "GET", "/v1/entities?namespace=acme&q="+secretQuery, nil)
	logged := logBuf.String()
	if !strings.Contains(logged, "route=/v1/search") || !strings.Contains(logged, "key_id=") {
		t.Fatalf("the log lacks the request lines: %s", logged)
	}
	for _, secret := range []string{key, key[:20], s.admin, "Bearer", secretContent, secretQuery} {
		if strings.Contains(logged, secret) {
			t.Errorf("the log holds %q:\n%s", secret, logged)
		}
	}
}

// TestUndeclaredMethodIs405WithoutKey checks that a method a known path does
// not have answers 405 with or without a key (the paths are public in
// /openapi.json), while an unknown path still asks for a key.
func TestUndeclaredMethodIs405WithoutKey(t *testing.T) {
	s := newAuthServer(t, backends(t)[0], api.Options{}, nil)
	for _, tc := range []struct {
		method, path string
		status       int
	}{
		{"TRACE", "/healthz", 405},
		{"PATCH", "/v1/search", 405},
		{"DELETE", "/v1/memories", 405},
		{"GET", "/v1/nothing", 401},
	} {
		if st, _, raw := s.call("", tc.method, tc.path, nil); st != tc.status {
			t.Errorf("%s %s without a key: %d, want %d: %s", tc.method, tc.path, st, tc.status, raw)
		}
	}
}
