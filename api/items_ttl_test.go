package api_test

import (
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/kgmem/kgmem/api"
)

// TestItemTTLOverHTTP drives an item's TTL through the routes on every
// backend: the expiry a put answers, expired items hidden from get, item
// search and the namespace listing unless include_expired, refresh_ttl on
// get, the batch's get and put, and the namespace sweep deleting them.
func TestItemTTLOverHTTP(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		s := newAuthServer(t, b, api.Options{}, nil)
		type item struct {
			Key       string     `json:"key"`
			TTL       float64    `json:"ttl"`
			ExpiresAt *time.Time `json:"expires_at"`
		}
		var live, gone, forever item
		s.must(http.StatusCreated, s.admin, "PUT", "/v1/items", map[string]any{"namespace": "ttl/live", "key": "k", "value": map[string]any{"t": "tea"}, "ttl": 60}, &live)
		s.must(http.StatusCreated, s.admin, "PUT", "/v1/items", map[string]any{"namespace": "ttl/gone", "key": "k", "value": map[string]any{"t": "tea"}, "ttl": 0}, &gone)
		s.must(http.StatusCreated, s.admin, "PUT", "/v1/items", map[string]any{"namespace": "ttl/live", "key": "forever", "value": map[string]any{"t": "tea"}, "ttl": nil}, &forever)
		if live.TTL != 60 || live.ExpiresAt == nil || time.Until(*live.ExpiresAt) < 50*time.Minute {
			t.Errorf("put with ttl 60 answered ttl %v, expires_at %v", live.TTL, live.ExpiresAt)
		}
		if gone.ExpiresAt == nil || forever.ExpiresAt != nil {
			t.Errorf("expires_at: %v with ttl 0, %v with ttl null; want an instant and none", gone.ExpiresAt, forever.ExpiresAt)
		}

		if st, _, raw := s.call(s.admin, "GET", "/v1/items?namespace=ttl/gone&key=k", nil); st != http.StatusNotFound {
			t.Errorf("get of an expired item: %d %s, want 404", st, raw)
		}
		var got item
		s.must(http.StatusOK, s.admin, "GET", "/v1/items?namespace=ttl/gone&key=k&include_expired=true&refresh_ttl=true", nil, &got)
		if got.ExpiresAt == nil || !got.ExpiresAt.Equal(*gone.ExpiresAt) {
			t.Errorf("get of an expired item, included: expires_at %v, want %v (never refreshed)", got.ExpiresAt, gone.ExpiresAt)
		}
		s.must(http.StatusOK, s.admin, "GET", "/v1/items?namespace=ttl/live&key=k&refresh_ttl=false", nil, &got)
		if !got.ExpiresAt.Equal(*live.ExpiresAt) {
			t.Errorf("get with refresh_ttl=false moved the expiry: %v → %v", live.ExpiresAt, got.ExpiresAt)
		}
		s.must(http.StatusOK, s.admin, "GET", "/v1/items?namespace=ttl/live&key=k", nil, &got)
		if got.ExpiresAt.Before(*live.ExpiresAt) {
			t.Errorf("a get (refresh_ttl by default) moved the expiry back: %v → %v", live.ExpiresAt, got.ExpiresAt)
		}

		var list struct {
			Namespaces []string `json:"namespaces"`
		}
		s.must(http.StatusOK, s.admin, "GET", "/v1/items/namespaces?prefix=ttl", nil, &list)
		if len(list.Namespaces) != 1 || list.Namespaces[0] != "ttl/live" {
			t.Errorf("namespaces: %v, want ttl/live (ttl/gone holds only an expired item)", list.Namespaces)
		}
		s.must(http.StatusOK, s.admin, "GET", "/v1/items/namespaces?prefix=ttl&include_expired=true", nil, &list)
		if len(list.Namespaces) != 2 {
			t.Errorf("namespaces including expired: %v, want ttl/gone and ttl/live", list.Namespaces)
		}
		var found struct {
			Items []item `json:"items"`
		}
		s.must(http.StatusOK, s.admin, "POST", "/v1/items/search", map[string]any{"namespace_prefix": "ttl", "query": "tea", "refresh_ttl": false}, &found)
		if len(found.Items) != 2 {
			t.Errorf("search: %+v, want the two live items", found.Items)
		}
		s.must(http.StatusOK, s.admin, "POST", "/v1/items/search", map[string]any{"namespace_prefix": "ttl", "include_expired": true}, &found)
		if len(found.Items) != 3 {
			t.Errorf("search including expired: %+v, want all three items", found.Items)
		}

		var batch struct {
			Results []struct {
				Status int   `json:"status"`
				Item   *item `json:"item"`
			} `json:"results"`
		}
		s.must(http.StatusOK, s.admin, "POST", "/v1/items/batch", map[string]any{"ops": []any{
			map[string]any{"op": "put", "namespace": "ttl/batch", "key": "k", "value": map[string]any{}, "ttl": 0},
			map[string]any{"op": "get", "namespace": "ttl/batch", "key": "k"},
			map[string]any{"op": "get", "namespace": "ttl/batch", "key": "k", "include_expired": true, "refresh_ttl": false},
		}}, &batch)
		if r := batch.Results; len(r) != 3 || r[0].Status != 201 || r[1].Status != 404 || r[2].Status != 200 || r[2].Item.ExpiresAt == nil {
			t.Errorf("batch put with ttl 0, get, get including expired: %+v", r)
		}

		var stats struct {
			ExpiredItems int `json:"expired_items"`
		}
		s.must(http.StatusOK, s.admin, "POST", "/v1/namespaces/ttl%2Fgone/sweep", nil, &stats)
		if stats.ExpiredItems != 1 {
			t.Errorf("the namespace sweep deleted %d expired items, want 1", stats.ExpiredItems)
		}
		if st, _, raw := s.call(s.admin, "GET", "/v1/items?namespace=ttl/gone&key=k&include_expired=true", nil); st != http.StatusNotFound {
			t.Errorf("get of a swept item: %d %s, want 404", st, raw)
		}
	})
}

// TestItemTTLBadInput: a TTL that is not a number of minutes >= 0, or a
// refresh_ttl or include_expired that is not a boolean, is refused naming
// the field, and changes nothing.
func TestItemTTLBadInput(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		s := newAuthServer(t, b, api.Options{}, nil)
		put := func(ttl any) map[string]any {
			return map[string]any{"namespace": "ttl/bad", "key": "k", "value": map[string]any{}, "ttl": ttl}
		}
		op := func(ttl any) map[string]any {
			return map[string]any{"ops": []any{map[string]any{"op": "put", "namespace": "ttl/bad", "key": "k", "value": map[string]any{}, "ttl": ttl}}}
		}
		for _, tc := range []struct {
			name, method, path string
			body               any
			field              string
		}{
			{"negative ttl", "PUT", "/v1/items", put(-1), "ttl"},
			{"ttl a string", "PUT", "/v1/items", put("5"), "ttl"},
			{"ttl a boolean", "PUT", "/v1/items", put(true), "ttl"},
			{"ttl past 100 years", "PUT", "/v1/items", put(1e9), "ttl"},
			{"batch negative ttl", "POST", "/v1/items/batch", op(-0.5), "ops[0].ttl"},
			{"batch ttl a string", "POST", "/v1/items/batch", op("soon"), "ops[0].ttl"},
			{"batch ttl on a get", "POST", "/v1/items/batch", map[string]any{"ops": []any{map[string]any{"op": "get", "namespace": "ttl/bad", "key": "k", "ttl": 1}}}, "ops[0].ttl"},
			{"batch refresh_ttl on a delete", "POST", "/v1/items/batch", map[string]any{"ops": []any{map[string]any{"op": "delete", "namespace": "ttl/bad", "key": "k", "refresh_ttl": true}}}, "ops[0].refresh_ttl"},
			{"search refresh_ttl a string", "POST", "/v1/items/search", map[string]any{"namespace_prefix": "ttl", "refresh_ttl": "yes"}, "refresh_ttl"},
			{"get refresh_ttl not a boolean", "GET", "/v1/items?namespace=ttl/bad&key=k&refresh_ttl=1", nil, "refresh_ttl"},
			{"get include_expired not a boolean", "GET", "/v1/items?namespace=ttl/bad&key=k&include_expired=yes", nil, "include_expired"},
			{"namespaces include_expired not a boolean", "GET", "/v1/items/namespaces?include_expired=2", nil, "include_expired"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				var p api.Problem
				st, _, raw := s.call(s.admin, tc.method, tc.path, tc.body)
				_ = json.Unmarshal(raw, &p)
				if st != http.StatusBadRequest || p.Field != tc.field {
					t.Errorf("status %d field %q, want 400 %q: %s", st, p.Field, tc.field, raw)
				}
			})
		}
		if st, _, raw := s.call(s.admin, "GET", "/v1/items?namespace=ttl/bad&key=k&include_expired=true", nil); st != http.StatusNotFound {
			t.Errorf("a refused put stored the item: %d %s", st, raw)
		}
	})
}
