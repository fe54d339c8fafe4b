package api_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"testing"

	"github.com/kgmem/kgmem/api"
	"github.com/kgmem/kgmem/auth"
)

type opResult struct {
	Status int             `json:"status"`
	Item   json.RawMessage `json:"item"`
	Items  []struct {
		Key string `json:"key"`
	} `json:"items"`
	Error *api.Problem `json:"error"`
}

// TestItemBatchRunsEachOperation: one request puts, gets, searches and
// deletes items in order, each operation answered with the status its own
// route would give; a missing key is that operation's 404 only.
func TestItemBatchRunsEachOperation(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		s := newAuthServer(t, b, api.Options{}, nil)
		ops := []map[string]any{
			{"op": "put", "namespace": "b/one", "key": "a", "value": map[string]any{"text": "green tea"}},
			{"op": "put", "namespace": "b/one", "key": "a", "value": map[string]any{"text": "black tea"}},
			{"op": "get", "namespace": "b/one", "key": "a"},
			{"op": "get", "namespace": "b/one", "key": "missing"},
			{"op": "search", "namespace_prefix": "b", "filter": map[string]any{"text": "black tea"}},
			{"op": "delete", "namespace": "b/one", "key": "a"},
			{"op": "delete", "namespace": "b/one", "key": "a"},
			{"op": "get", "namespace": "b/one", "key": "a"},
		}
		var out struct {
			Results []opResult `json:"results"`
		}
		s.must(http.StatusOK, s.admin, "POST", "/v1/items/batch", map[string]any{"ops": ops}, &out)
		want := []int{201, 200, 200, 404, 200, 204, 404, 404}
		if len(out.Results) != len(want) {
			t.Fatalf("%d results, want %d", len(out.Results), len(want))
		}
		for i, r := range out.Results {
			if r.Status != want[i] {
				t.Errorf("ops[%d] %v: status %d, want %d (%+v)", i, ops[i]["op"], r.Status, want[i], r.Error)
			}
			if (r.Status == 404) != (r.Error != nil && r.Error.Status == 404) {
				t.Errorf("ops[%d]: status %d with error %+v", i, r.Status, r.Error)
			}
		}
		var got struct {
			Value map[string]string `json:"value"`
		}
		if err := json.Unmarshal(out.Results[2].Item, &got); err != nil || got.Value["text"] != "black tea" {
			t.Errorf("get after two puts: %s (%v), want the second value", out.Results[2].Item, err)
		}
		if items := out.Results[4].Items; len(items) != 1 || items[0].Key != "a" {
			t.Errorf("search: %+v, want item a", items)
		}
	})
}

// TestItemBatchRefusesBadInputWhole: a malformed operation, or one the key
// may not run, refuses the batch before any operation runs, naming it.
func TestItemBatchRefusesBadInputWhole(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		s := newAuthServer(t, b, api.Options{}, nil)
		alice := s.key("alice", auth.Write, "memories/alice")
		reader := s.key("reader", auth.Read, "memories/alice")
		put := map[string]any{"op": "put", "namespace": "memories/alice", "key": "k", "value": map[string]any{"text": "x"}}
		many := make([]map[string]any, 1001)
		for i := range many {
			many[i] = map[string]any{"op": "get", "namespace": "memories/alice", "key": fmt.Sprint(i)}
		}
		for _, tc := range []struct {
			name   string
			key    string
			body   any
			status int
			field  string
		}{
			{"no ops", alice, map[string]any{}, 400, "ops"},
			{"1,001 ops", alice, map[string]any{"ops": many}, 400, "ops"},
			{"unknown op", alice, map[string]any{"ops": []any{put, map[string]any{"op": "upsert", "namespace": "memories/alice", "key": "k"}}}, 400, "ops[1].op"},
			{"empty key", alice, map[string]any{"ops": []any{put, map[string]any{"op": "get", "namespace": "memories/alice", "key": ""}}}, 400, "ops[1].key"},
			{"value on a get", alice, map[string]any{"ops": []any{put, map[string]any{"op": "get", "namespace": "memories/alice", "key": "k", "value": map[string]any{}}}}, 400, "ops[1].value"},
			{"put without value", alice, map[string]any{"ops": []any{put, map[string]any{"op": "put", "namespace": "memories/alice", "key": "k"}}}, 400, "ops[1].value"},
			{"bad filter", alice, map[string]any{"ops": []any{put, map[string]any{"op": "search", "namespace_prefix": "memories/alice", "filter": map[string]any{"n": map[string]any{"$near": 1}}}}}, 422, "ops[1].filter.n.$near"},
			{"search limit 101", alice, map[string]any{"ops": []any{put, map[string]any{"op": "search", "namespace_prefix": "memories/alice", "limit": 101}}}, 400, "ops[1].limit"},
			{"put outside the key", alice, map[string]any{"ops": []any{put, map[string]any{"op": "put", "namespace": "memories/bob", "key": "k", "value": map[string]any{}}}}, 403, "ops[1].namespace"},
			{"search above the key", alice, map[string]any{"ops": []any{put, map[string]any{"op": "search", "namespace_prefix": "memories"}}}, 403, "ops[1].namespace"},
			{"put with a read key", reader, map[string]any{"ops": []any{map[string]any{"op": "get", "namespace": "memories/alice", "key": "k"}, map[string]any{"op": "delete", "namespace": "memories/alice", "key": "k"}}}, 403, "ops[1].namespace"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				var p api.Problem
				st, _, raw := s.call(tc.key, "POST", "/v1/items/batch", tc.body)
				_ = json.Unmarshal(raw, &p)
				if st != tc.status || p.Field != tc.field {
					t.Errorf("status %d field %q, want %d %q: %s", st, p.Field, tc.status, tc.field, raw)
				}
			})
		}
		if st, _, raw := s.call(s.admin, "GET", "/v1/items?namespace=memories/alice&key=k", nil); st != http.StatusNotFound {
			t.Errorf("a refused batch stored its first put: %d %s", st, raw)
		}
		var out struct {
			Results []opResult `json:"results"`
		}
		s.must(http.StatusOK, reader, "POST", "/v1/items/batch", map[string]any{"ops": []any{map[string]any{"op": "get", "namespace": "memories/alice", "key": "k"}}}, &out)
		if len(out.Results) != 1 || out.Results[0].Status != 404 {
			t.Errorf("a read key's get: %+v, want one 404", out.Results)
		}
	})
}
