package api_test

import (
	"net/http"
	"testing"

	"github.com/kgmem/kgmem/api"
	"github.com/kgmem/kgmem/auth"
)

// TestItemSearchIsBoundedByTheKey: a search by namespace prefix spans the
// namespaces below the prefix, so a key must cover the whole prefix — a key
// of one user cannot search every user's items through their parent.
func TestItemSearchIsBoundedByTheKey(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		s := newAuthServer(t, b, api.Options{}, nil)
		for _, user := range []string{"memories/alice", "memories/bob"} {
			s.must(http.StatusCreated, s.admin, "PUT", "/v1/items", map[string]any{"namespace": user, "key": "k", "value": map[string]any{"content": user + " likes tea"}}, nil)
		}
		alice := s.key("alice", auth.Read, "memories/alice")
		all := s.key("all", auth.Read, "memories")
		cases := []struct {
			key, prefix string
			want        int
		}{
			{alice, "memories", http.StatusForbidden},
			{alice, "memories/alice", http.StatusOK},
			{alice, "memories/bob", http.StatusForbidden},
			{all, "memories", http.StatusOK},
		}
		for _, tc := range cases {
			st, _, raw := s.call(tc.key, "POST", "/v1/items/search", map[string]any{"namespace_prefix": tc.prefix, "query": "tea"})
			if st != tc.want {
				t.Errorf("search %s: %d, want %d: %s", tc.prefix, st, tc.want, raw)
			}
		}
		var list struct {
			Namespaces []string `json:"namespaces"`
		}
		s.must(http.StatusOK, alice, "GET", "/v1/items/namespaces?prefix=memories", nil, &list)
		if len(list.Namespaces) != 1 || list.Namespaces[0] != "memories/alice" {
			t.Errorf("alice's key lists %v, want memories/alice only", list.Namespaces)
		}
		if st, _, raw := s.call(alice, "PUT", "/v1/items", map[string]any{"namespace": "memories/alice", "key": "k2", "value": map[string]any{}}); st != http.StatusForbidden {
			t.Errorf("a read key put an item: %d %s", st, raw)
		}
	})
}
