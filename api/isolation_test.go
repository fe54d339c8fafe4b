package api_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/api"
	"github.com/kgmem/kgmem/auth"
	"github.com/kgmem/kgmem/client"
	"github.com/kgmem/kgmem/embed"
	"github.com/kgmem/kgmem/jobs"
	"github.com/kgmem/kgmem/mcpserver"
	"github.com/kgmem/kgmem/memory"
)

// authServer is the API with authentication on: an admin key and a key store.
type authServer struct {
	t     *testing.T
	url   string
	admin string
	store *auth.Store
	graph kgmem.GraphStore
}

const testAdminKey = "admin-key-for-tests-0123456789abcdef"

// newAuthServer starts the API over backend b with the admin key and an empty
// key store; log receives the server's log (nil: discarded).
func newAuthServer(t *testing.T, b backend, opts api.Options, log *slog.Logger) *authServer {
	t.Helper()
	ctx := context.Background()
	st, err := auth.OpenStore(ctx, filepath.Join(t.TempDir(), "keys.db"))
	if err != nil {
		t.Fatal(err)
	}
	a, err := auth.NewAuthenticator(testAdminKey, st)
	if err != nil {
		t.Fatal(err)
	}
	opts.Auth = a
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	g := b.graph(t)
	emb := embed.NewHashing(256)
	v := b.vectors(t, emb.Dimension())
	eng, err := memory.New(memory.Config{Graph: g, Vectors: v, Embedder: emb, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	runner, err := jobs.Open(ctx, jobs.Config{Engine: eng, DataDir: t.TempDir(), Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	opts.Jobs = runner
	srv := api.New(eng, opts, log)
	hs := httptest.NewServer(srv.Handler())
	t.Cleanup(func() {
		hs.Close()
		_ = runner.Close()
		if nss, err := g.Namespaces(ctx); err == nil {
			for _, ns := range nss {
				_, _ = eng.PurgeNamespace(ctx, ns)
			}
		}
		_ = v.Close()
		_ = g.Close()
		_ = st.Close()
	})
	s := &authServer{t: t, url: hs.URL, admin: testAdminKey, store: st, graph: g}
	return s
}

// key creates a stored key and returns its plaintext.
func (s *authServer) key(name string, right auth.Right, prefixes ...kgmem.Namespace) string {
	s.t.Helper()
	_, plain, err := s.store.Create(context.Background(), auth.CreateRequest{Name: name, Right: right, Prefixes: prefixes})
	if err != nil {
		s.t.Fatal(err)
	}
	return plain
}

// call sends body (JSON-encoded unless nil) with key and returns the status,
// headers and raw answer.
func (s *authServer) call(key, method, path string, body any) (int, http.Header, []byte) {
	s.t.Helper()
	var r io.Reader
	if raw, ok := body.([]byte); ok {
		r = bytes.NewReader(raw)
	} else if body != nil {
		raw, err := json.Marshal(body)
		if err != nil {
			s.t.Fatal(err)
		}
		r = bytes.NewReader(raw)
	}
	req, err := http.NewRequest(method, s.url+path, r)
	if err != nil {
		s.t.Fatal(err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		s.t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		s.t.Fatal(err)
	}
	return resp.StatusCode, resp.Header, raw
}

// must is call that fails the test unless the status is want; it decodes the
// answer into out when non-nil.
func (s *authServer) must(want int, key, method, path string, body, out any) {
	s.t.Helper()
	st, _, raw := s.call(key, method, path, body)
	if st != want {
		s.t.Fatalf("%s %s: status %d, want %d: %s", method, path, st, want, raw)
	}
	if out != nil {
		if err := json.Unmarshal(raw, out); err != nil {
			s.t.Fatalf("%s %s: decode %q: %v", method, path, raw, err)
		}
	}
}

// tenant is what one namespace holds, as the admin sees it.
type tenant struct {
	ns                        kgmem.Namespace
	episodes, facts, entities []string
	// item is the id of the item with key "note".
	item string
	// job is a background ingest job of the namespace.
	job        string
	secretWord string
}

func (s *authServer) seed(ns kgmem.Namespace, secretWord string) tenant {
	s.t.Helper()
	tn := tenant{ns: ns, secretWord: secretWord}
	msgs := append(conversation(), message{"id": "m9", "name": "Caroline", "content": "My " + secretWord + " collection is private.", "timestamp": "2023-05-09T10:00:00Z"})
	var ing ingestResponse
	s.must(http.StatusCreated, s.admin, "POST", "/v1/memories", map[string]any{"namespace": ns, "thread_id": "t1", "messages": msgs}, &ing)
	for _, ep := range ing.Episodes {
		tn.episodes = append(tn.episodes, ep.ID)
	}
	facts := []map[string]any{
		{"subject": "Caroline", "subject_type": "Person", "predicate": "owns", "object": secretWord + " collection", "object_type": "Object", "fact": "Caroline owns a " + secretWord + " collection.", "valid_at": "2023-05-09"},
		{"subject": "Melanie", "subject_type": "Person", "predicate": "paints", "object": "sunrise", "object_type": "Concept", "fact": "Melanie paints a sunrise.", "valid_at": "2023-05-08"},
	}
	s.must(http.StatusCreated, s.admin, "POST", "/v1/facts", map[string]any{"namespace": ns, "facts": facts}, nil)
	var fl struct {
		Facts []struct {
			ID string `json:"id"`
		} `json:"facts"`
	}
	s.must(http.StatusOK, s.admin, "GET", "/v1/facts?namespace="+url.QueryEscape(string(ns)), nil, &fl)
	for _, f := range fl.Facts {
		tn.facts = append(tn.facts, f.ID)
	}
	var el struct {
		Entities []struct {
			ID string `json:"id"`
		} `json:"entities"`
	}
	s.must(http.StatusOK, s.admin, "GET", "/v1/entities?namespace="+url.QueryEscape(string(ns)), nil, &el)
	for _, e := range el.Entities {
		tn.entities = append(tn.entities, e.ID)
	}
	var it struct {
		ID string `json:"id"`
	}
	s.must(http.StatusCreated, s.admin, "PUT", "/v1/items", map[string]any{"namespace": ns, "key": "note",
		"value": map[string]any{"content": "The " + secretWord + " prefers tea.", "kind": "preference"}}, &it)
	tn.item = it.ID
	var job struct {
		ID string `json:"id"`
	}
	s.must(http.StatusAccepted, s.admin, "POST", "/v1/memories", map[string]any{"namespace": ns, "thread_id": "t2", "mode": "async",
		"messages": []message{{"id": "a1", "content": "Async note about the " + secretWord + ".", "timestamp": "2023-05-10T10:00:00Z"}}}, &job)
	tn.job = job.ID
	// The job must be finished before the test snapshots the namespace.
	deadline := time.Now().Add(30 * time.Second)
	for {
		var st struct {
			Status string `json:"status"`
		}
		s.must(http.StatusOK, s.admin, "GET", "/v1/jobs/"+job.ID+"?namespace="+url.QueryEscape(string(ns)), nil, &st)
		if st.Status == "succeeded" {
			break
		}
		if st.Status == "failed" || time.Now().After(deadline) {
			s.t.Fatalf("job %s of %s: %s", job.ID, ns, st.Status)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if len(tn.episodes) != 4 || len(tn.facts) != 2 || len(tn.entities) < 3 || tn.job == "" || tn.item == "" {
		s.t.Fatalf("seed %s: %d episodes, %d facts, %d entities", ns, len(tn.episodes), len(tn.facts), len(tn.entities))
	}
	return tn
}

// ids are every id of the tenant.
func (tn tenant) ids() []string {
	return append(append(append(append([]string{}, tn.episodes...), tn.facts...), tn.entities...), tn.item)
}

// leaks lists every id or the secret word of tn found in raw that the
// request (path and body) did not itself carry.
func (tn tenant) leaks(raw []byte, path string, body any) []string {
	sent, _ := json.Marshal(body)
	sent = append(sent, path...)
	var out []string
	for _, id := range append(tn.ids(), tn.secretWord) {
		if bytes.Contains(raw, []byte(id)) && !bytes.Contains(sent, []byte(id)) {
			out = append(out, id)
		}
	}
	return out
}

// snapshot is what the store holds for ns (straight from the graph store).
func (s *authServer) snapshot(ns kgmem.Namespace) string {
	s.t.Helper()
	ctx := context.Background()
	eps, err1 := s.graph.ListEpisodes(ctx, ns, kgmem.Page{Limit: 1000})
	fs, err2 := s.graph.ListFacts(ctx, ns, kgmem.FactFilter{IncludeExpired: true, Page: kgmem.Page{Limit: 1000}})
	ents, err3 := s.graph.FindEntities(ctx, ns, kgmem.EntityFilter{Page: kgmem.Page{Limit: 1000}})
	items, err4 := s.graph.ListItems(ctx, ns, kgmem.Page{Limit: 1000})
	if err := errorsJoin(err1, err2, err3, err4); err != nil {
		s.t.Fatal(err)
	}
	raw, err := json.Marshal([]any{eps, fs, ents, items})
	if err != nil {
		s.t.Fatal(err)
	}
	return string(raw)
}

// withMode copies an ingest body with "mode" set.
func withMode(body map[string]any, mode string) map[string]any {
	out := map[string]any{"mode": mode}
	for k, v := range body {
		out[k] = v
	}
	return out
}

func errorsJoin(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// TestIsolation: for every registered route, a read-write key for namespace
// prefix "tenant-a" gets nothing of "tenant-ab" (a name sharing its prefix
// string but not its segment) and changes nothing there — by naming the other
// namespace (403) or by naming the other namespace's ids in its own (404 or
// nothing returned).
func TestIsolation(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		// POST /mcp is on: its tools call this server back over HTTP with
		// the caller's key, as `server serve` wires them in process.
		var self string
		tools, err := mcpserver.New(mcpserver.Options{Client: func(h http.Header) (*client.Client, error) {
			return client.New(self, client.WithAPIKey(strings.TrimPrefix(h.Get("Authorization"), "Bearer ")), client.WithRetries(0, 0))
		}})
		if err != nil {
			t.Fatal(err)
		}
		s := newAuthServer(t, b, api.Options{MCP: mcpserver.Handler(tools)}, nil)
		self = s.url
		a := s.seed("tenant-a", "narwhal")
		victim := s.seed("tenant-ab", "zebracorn")
		keyA := s.key("tenant a", auth.Write, "tenant-a")
		before := s.snapshot(victim.ns)

		B := url.PathEscape(string(victim.ns))
		qB := "?namespace=" + url.QueryEscape(string(victim.ns))
		qA := "?namespace=" + url.QueryEscape(string(a.ns))
		refsOf := func(ns kgmem.Namespace) map[string]any {
			return map[string]any{"namespace": ns, "refs": []map[string]string{{"kind": "fact", "id": victim.facts[0]}, {"kind": "episode", "id": victim.episodes[0]}, {"kind": "entity", "id": victim.entities[0]}}}
		}
		msg := map[string]any{"namespace": victim.ns, "thread_id": "t9", "messages": []message{{"id": "x1", "content": "intruder", "timestamp": "2024-01-01T00:00:00Z"}}}
		fact := map[string]any{"namespace": victim.ns, "facts": []map[string]any{{"subject": "Eve", "predicate": "owns", "object": "zebracorn collection", "fact": "Eve owns it."}}}

		type probe struct {
			method, path string
			body         any
			// want: 403 when the request names the other namespace; for own
			// namespace requests carrying foreign ids, any status but 2xx
			// (wantAny2xx allows a 2xx whose body must not leak).
			want       int
			wantAny2xx bool
		}
		// Requests naming the victim's namespace: every one is refused before
		// its handler runs.
		direct := map[string][]probe{
			"POST /v1/memories":                      {{method: "POST", path: "/v1/memories", body: msg}, {method: "POST", path: "/v1/memories", body: withMode(msg, "async")}},
			"GET /v1/jobs/:id":                       {{method: "GET", path: "/v1/jobs/" + victim.job + qB}},
			"POST /v1/facts":                         {{method: "POST", path: "/v1/facts", body: fact}},
			"GET /v1/facts":                          {{method: "GET", path: "/v1/facts" + qB}, {method: "GET", path: "/v1/facts" + qB + "&entity=Caroline"}},
			"GET /v1/facts/:id":                      {{method: "GET", path: "/v1/facts/" + victim.facts[0] + qB}},
			"DELETE /v1/facts/:id":                   {{method: "DELETE", path: "/v1/facts/" + victim.facts[0] + qB}},
			"GET /v1/entities":                       {{method: "GET", path: "/v1/entities" + qB}, {method: "GET", path: "/v1/entities" + qB + "&q=Caroline"}},
			"GET /v1/entities/:id":                   {{method: "GET", path: "/v1/entities/" + victim.entities[0] + qB}},
			"POST /v1/search":                        {{method: "POST", path: "/v1/search", body: map[string]any{"namespace": victim.ns, "query": "zebracorn collection"}}},
			"POST /v1/feedback":                      {{method: "POST", path: "/v1/feedback", body: refsOf(victim.ns)}},
			"POST /v1/pins":                          {{method: "POST", path: "/v1/pins", body: refsOf(victim.ns)}},
			"POST /v1/restore":                       {{method: "POST", path: "/v1/restore", body: refsOf(victim.ns)}},
			"DELETE /v1/namespaces/:namespace":       {{method: "DELETE", path: "/v1/namespaces/" + B}},
			"GET /v1/namespaces/:namespace/settings": {{method: "GET", path: "/v1/namespaces/" + B + "/settings"}},
			"PUT /v1/namespaces/:namespace/settings": {{method: "PUT", path: "/v1/namespaces/" + B + "/settings", body: map[string]any{"writes": map[string]bool{"disable_inserts": true}}}},
			"POST /v1/namespaces/:namespace/sweep":   {{method: "POST", path: "/v1/namespaces/" + B + "/sweep"}},
			"GET /metrics":                           {{method: "GET", path: "/metrics"}},
			"GET /v1/jobs":                           {{method: "GET", path: "/v1/jobs" + qB}},
			"GET /v1/episodes":                       {{method: "GET", path: "/v1/episodes" + qB}, {method: "GET", path: "/v1/episodes" + qB + "&id=" + victim.episodes[0]}},
			"POST /v1/strength":                      {{method: "POST", path: "/v1/strength", body: refsOf(victim.ns)}},
			"PUT /v1/items":                          {{method: "PUT", path: "/v1/items", body: map[string]any{"namespace": victim.ns, "key": "note", "value": map[string]any{"content": "overwritten"}}}},
			"GET /v1/items":                          {{method: "GET", path: "/v1/items" + qB + "&key=note"}},
			"DELETE /v1/items":                       {{method: "DELETE", path: "/v1/items" + qB + "&key=note"}},
			"POST /v1/items/search":                  {{method: "POST", path: "/v1/items/search", body: map[string]any{"namespace_prefix": victim.ns, "query": "zebracorn tea"}}},
			"POST /v1/items/batch": {
				{method: "POST", path: "/v1/items/batch", body: map[string]any{"ops": []map[string]any{{"op": "get", "namespace": a.ns, "key": "note"}, {"op": "put", "namespace": victim.ns, "key": "note", "value": map[string]any{"content": "overwritten"}}}}},
				{method: "POST", path: "/v1/items/batch", body: map[string]any{"ops": []map[string]any{{"op": "get", "namespace": victim.ns, "key": "note"}}}},
				{method: "POST", path: "/v1/items/batch", body: map[string]any{"ops": []map[string]any{{"op": "delete", "namespace": victim.ns, "key": "note"}}}},
				{method: "POST", path: "/v1/items/batch", body: map[string]any{"ops": []map[string]any{{"op": "search", "namespace_prefix": victim.ns, "query": "zebracorn tea"}}}},
			},
		}
		// GET /v1/items/namespaces, like GET /v1/namespaces, lists only what the key covers.
		direct["GET /v1/items/namespaces"] = nil
		if st, _, raw := s.call(keyA, "GET", "/v1/items/namespaces", nil); st != http.StatusOK || bytes.Contains(raw, []byte(victim.ns)) || !bytes.Contains(raw, []byte(`"`+string(a.ns)+`"`)) {
			t.Errorf("GET /v1/items/namespaces with tenant-a's key: %d %s; want tenant-a listed and tenant-ab not", st, raw)
		}
		// GET /v1/namespaces names no namespace: it lists only those the key covers.
		direct["GET /v1/namespaces"] = nil
		// POST /mcp answers 200 with a tool result: each tool naming the
		// victim's namespace, or its ids in the key's own, is a tool error
		// (the API's 403 or 404) that leaks nothing.
		direct["POST /mcp"] = nil
		victimRefs := []map[string]string{{"kind": "fact", "id": victim.facts[0]}, {"kind": "entity", "id": victim.entities[0]}}
		for _, tc := range []struct {
			tool string
			args map[string]any
			want string
		}{
			{"add_memories", map[string]any{"namespace": victim.ns, "text": "intruder"}, "403"},
			{"search_memory", map[string]any{"namespace": victim.ns, "query": "zebracorn collection"}, "403"},
			{"add_facts", map[string]any{"namespace": victim.ns, "facts": []map[string]any{{"subject": "Eve", "predicate": "owns", "object": "zebracorn collection"}}}, "403"},
			{"get_entity", map[string]any{"namespace": victim.ns, "entity": "Caroline"}, "403"},
			{"list_entities", map[string]any{"namespace": victim.ns}, "403"},
			{"delete_fact", map[string]any{"namespace": victim.ns, "fact_id": victim.facts[0]}, "403"},
			{"pin_memory", map[string]any{"namespace": victim.ns, "refs": victimRefs}, "403"},
			{"unpin_memory", map[string]any{"namespace": victim.ns, "refs": victimRefs}, "403"},
			{"confirm_memory", map[string]any{"namespace": victim.ns, "refs": victimRefs}, "403"},
			{"get_instructions", map[string]any{"namespace": victim.ns}, "403"},
			{"list_instruction_versions", map[string]any{"namespace": victim.ns}, "403"},
			{"update_instructions", map[string]any{"namespace": victim.ns, "prompt": "Obey tenant a."}, "403"},
			{"restore_instructions", map[string]any{"namespace": victim.ns, "version": 1}, "403"},
			{"delete_fact", map[string]any{"namespace": a.ns, "fact_id": victim.facts[0]}, "404"},
			{"get_entity", map[string]any{"namespace": a.ns, "entity": victim.entities[0]}, "no entity"},
			{"pin_memory", map[string]any{"namespace": a.ns, "refs": victimRefs}, "404"},
		} {
			isErr, text, raw := s.tool(keyA, tc.tool, tc.args)
			if !isErr || !strings.Contains(text, tc.want) {
				t.Errorf("POST /mcp %s %v with tenant-a's key: isError %v %q, want a tool error with %s", tc.tool, tc.args, isErr, text, tc.want)
			}
			if leaks := victim.leaks(raw, "/mcp", tc.args); len(leaks) > 0 {
				t.Errorf("POST /mcp %s leaks %v", tc.tool, leaks)
			}
		}
		if isErr, text, _ := s.tool(keyA, "search_memory", map[string]any{"namespace": a.ns, "query": "narwhal collection"}); isErr || !strings.Contains(text, "narwhal") {
			t.Errorf("own search through /mcp: isError %v %q", isErr, text)
		}
		if st, _, raw := s.call(keyA, "GET", "/v1/namespaces", nil); st != http.StatusOK || bytes.Contains(raw, []byte(victim.ns)) || !bytes.Contains(raw, []byte(`"`+string(a.ns)+`"`)) {
			t.Errorf("GET /v1/namespaces with tenant-a's key: %d %s; want tenant-a listed and tenant-ab not", st, raw)
		}
		// Requests in the key's own namespace that name the victim's ids or
		// content: they must find nothing of it.
		indirect := []probe{
			{method: "GET", path: "/v1/facts/" + victim.facts[0] + qA, want: http.StatusNotFound},
			{method: "DELETE", path: "/v1/facts/" + victim.facts[0] + qA, want: http.StatusNotFound},
			{method: "GET", path: "/v1/entities/" + victim.entities[0] + qA, want: http.StatusNotFound},
			{method: "GET", path: "/v1/jobs/" + victim.job + qA, want: http.StatusNotFound},
			{method: "GET", path: "/v1/episodes" + qA + "&id=" + victim.episodes[0], wantAny2xx: true},
			{method: "GET", path: "/v1/episodes" + qA + "&limit=1000", wantAny2xx: true},
			{method: "GET", path: "/v1/jobs" + qA + "&limit=100", wantAny2xx: true},
			{method: "POST", path: "/v1/strength", body: refsOf(a.ns), want: http.StatusNotFound},
			{method: "GET", path: "/v1/facts" + qA + "&entity=" + victim.entities[0], wantAny2xx: true},
			{method: "GET", path: "/v1/facts" + qA + "&limit=1000", wantAny2xx: true},
			{method: "GET", path: "/v1/entities" + qA + "&q=zebracorn", wantAny2xx: true},
			{method: "GET", path: "/v1/entities" + qA + "&limit=1000", wantAny2xx: true},
			{method: "POST", path: "/v1/search", body: map[string]any{"namespace": a.ns, "query": "zebracorn collection Caroline", "include_history": true, "include_forgotten": true, "limit": 100}, wantAny2xx: true},
			{method: "POST", path: "/v1/feedback", body: refsOf(a.ns)},
			{method: "POST", path: "/v1/pins", body: refsOf(a.ns)},
			{method: "POST", path: "/v1/restore", body: refsOf(a.ns), wantAny2xx: true},
			{method: "POST", path: "/v1/namespaces/" + url.PathEscape(string(a.ns)) + "/sweep", wantAny2xx: true},
			{method: "GET", path: "/v1/namespaces/" + url.PathEscape(string(a.ns)) + "/settings", wantAny2xx: true},
			{method: "GET", path: "/v1/items" + qA + "&key=note", wantAny2xx: true},
			{method: "POST", path: "/v1/items/search", body: map[string]any{"namespace_prefix": a.ns, "query": "zebracorn tea", "limit": 100}, wantAny2xx: true},
			{method: "POST", path: "/v1/items/search", body: map[string]any{"namespace_prefix": a.ns, "filter": map[string]any{"kind": "preference"}, "limit": 100}, wantAny2xx: true},
		}
		// Every row of the route table but the public ones has a probe.
		for _, row := range api.RouteRows() {
			route := row.Method + " " + row.Path
			probes, ok := direct[route]
			if !ok {
				if !row.Public {
					t.Errorf("route %s has no isolation probe: add one to TestIsolation", route)
				}
				continue
			}
			for _, p := range probes {
				st, _, raw := s.call(keyA, p.method, p.path, p.body)
				if st != http.StatusForbidden {
					t.Errorf("%s %s with tenant-a's key: status %d, want 403: %s", p.method, p.path, st, raw)
				}
				if leaks := victim.leaks(raw, p.path, p.body); len(leaks) > 0 {
					t.Errorf("%s %s leaks %v", p.method, p.path, leaks)
				}
			}
		}
		for _, p := range indirect {
			st, _, raw := s.call(keyA, p.method, p.path, p.body)
			switch {
			case p.want != 0 && st != p.want:
				t.Errorf("%s %s: status %d, want %d: %s", p.method, p.path, st, p.want, raw)
			case p.want == 0 && !p.wantAny2xx && st < 300:
				t.Errorf("%s %s: status %d, want a refusal for foreign ids: %s", p.method, p.path, st, raw)
			case st >= 500:
				t.Errorf("%s %s: status %d: %s", p.method, p.path, st, raw)
			}
			if leaks := victim.leaks(raw, p.path, p.body); len(leaks) > 0 {
				t.Errorf("%s %s leaks %v: %s", p.method, p.path, leaks, raw)
			}
		}
		// A key's own data stays reachable (the probes above are not vacuous).
		st, _, raw := s.call(keyA, "POST", "/v1/search", map[string]any{"namespace": a.ns, "query": "narwhal collection"})
		if st != http.StatusOK || !bytes.Contains(raw, []byte("narwhal")) {
			t.Errorf("own search: %d %s", st, raw)
		}
		if st, _, _ := s.call(keyA, "POST", "/v1/memories", map[string]any{"namespace": "tenant-a/sub", "thread_id": "t", "messages": []message{{"id": "s1", "content": "child namespace", "timestamp": "2024-01-01T00:00:00Z"}}}); st != http.StatusCreated {
			t.Errorf("write to tenant-a/sub with the tenant-a key: %d, want 201", st)
		}
		if after := s.snapshot(victim.ns); after != before {
			t.Errorf("tenant-ab changed under tenant-a's key:\nbefore %s\nafter  %s", before, after)
		}
		if !strings.Contains(before, "zebracorn") {
			t.Fatal("snapshot does not hold the victim's data; the comparison is vacuous")
		}
	})
}

// tool calls an MCP tool through POST /mcp with key (one stateless JSON-RPC
// request) and returns whether the result is a tool error, its text and the
// raw answer.
func (s *authServer) tool(key, name string, args map[string]any) (isError bool, text string, raw []byte) {
	s.t.Helper()
	body, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": map[string]any{"name": name, "arguments": args}})
	if err != nil {
		s.t.Fatal(err)
	}
	req, err := http.NewRequest(http.MethodPost, s.url+"/mcp", bytes.NewReader(body))
	if err != nil {
		s.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", "Bearer "+key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		s.t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, err = io.ReadAll(resp.Body)
	if err != nil {
		s.t.Fatal(err)
	}
	var out struct {
		Result struct {
			IsError bool `json:"isError"`
			Content []struct {
				Text string `json:"text"`
			} `json:"content"`
		} `json:"result"`
	}
	if resp.StatusCode != http.StatusOK || json.Unmarshal(raw, &out) != nil {
		s.t.Fatalf("POST /mcp %s: %d %s", name, resp.StatusCode, raw)
	}
	for _, c := range out.Result.Content {
		text += c.Text
	}
	return out.Result.IsError, text, raw
}
