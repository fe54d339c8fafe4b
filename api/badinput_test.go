package api_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/kgmem/kgmem/api"
)

type problem struct {
	Type   string `json:"type"`
	Title  string `json:"title"`
	Status int    `json:"status"`
	Detail string `json:"detail"`
	Field  string `json:"field"`
}

func TestBadInputIsRejectedAndChangesNothing(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		s := newTestServer(t, b, api.Options{MaxBodyBytes: 64 << 10}, nil)
		const ns = "bad"
		// Some state that must survive every bad request untouched.
		s.json("POST", "/v1/memories", map[string]any{"namespace": ns, "thread_id": "t", "messages": conversation()}, nil)
		postFacts(t, s, ns, map[string]any{"subject": "Ann", "predicate": "likes", "object": "tea"})
		wantEps, wantFacts, wantEnts := s.counts(ns)

		okMsg := `{"id":"x","content":"hello"}`
		cases := []struct {
			name, method, path, contentType, body string
			status                                int
			field                                 string
		}{
			{"malformed JSON", "POST", "/v1/memories", "application/json", `{"namespace": "bad", "messages": [`, 400, "body"},
			{"syntax error", "POST", "/v1/memories", "application/json", `{"namespace": "bad",, }`, 400, "body"},
			{"empty body", "POST", "/v1/memories", "application/json", ``, 400, "body"},
			{"null body", "POST", "/v1/memories", "application/json", `null`, 400, "body"},
			{"a list for a body", "POST", "/v1/facts", "application/json", `[]`, 400, "body"},
			{"null settings", "PUT", "/v1/namespaces/bad/settings", "application/json", ` null`, 400, "body"},
			{"trailing data", "POST", "/v1/memories", "application/json", `{"namespace":"bad","messages":[` + okMsg + `]} {}`, 400, "body"},
			{"unknown field", "POST", "/v1/memories", "application/json", `{"namespace":"bad","messages":[` + okMsg + `],"extrac":true}`, 400, "extrac"},
			{"unknown message field", "POST", "/v1/memories", "application/json", `{"namespace":"bad","messages":[{"content":"x","txt":"y"}]}`, 400, "messages[0].txt"},
			{"wrong type", "POST", "/v1/memories", "application/json", `{"namespace":"bad","messages":"hello"}`, 400, "messages"},
			{"not JSON content type", "POST", "/v1/memories", "text/plain", `{"namespace":"bad","messages":[` + okMsg + `]}`, 415, ""},
			{"a media type that only starts like JSON", "POST", "/v1/memories", "application/jsonp", `{"namespace":"bad","messages":[` + okMsg + `]}`, 415, ""},
			{"a malformed content type", "POST", "/v1/memories", "application/json; charset", `{"namespace":"bad","messages":[` + okMsg + `]}`, 415, ""},
			{"missing messages", "POST", "/v1/memories", "application/json", `{"namespace":"bad"}`, 400, "messages"},
			{"no messages", "POST", "/v1/memories", "application/json", `{"namespace":"bad","messages":[]}`, 400, "messages"},
			{"empty content", "POST", "/v1/memories", "application/json", `{"namespace":"bad","messages":[{"id":"a","content":""}]}`, 400, "messages[0].content"},
			{"oversize content", "POST", "/v1/memories", "application/json", `{"namespace":"bad","messages":[{"id":"a","content":"` + strings.Repeat("a", 40<<10) + `"}]}`, 400, "messages[0].content"},
			{"bad timestamp", "POST", "/v1/memories", "application/json", `{"namespace":"bad","messages":[{"content":"x","timestamp":"yesterday"}]}`, 400, "messages[0].timestamp"},
			{"zero timestamp", "POST", "/v1/memories", "application/json", `{"namespace":"bad","messages":[{"content":"x","timestamp":"0001-01-01T00:00:00Z"}]}`, 422, "messages[0].timestamp"},
			{"zero valid_at", "POST", "/v1/facts", "application/json", `{"namespace":"bad","facts":[{"subject":"a","predicate":"p","object":"b","valid_at":"0001-01-01"}]}`, 422, "facts[0].valid_at"},
			{"predicate past 64 bytes", "POST", "/v1/facts", "application/json", `{"namespace":"bad","facts":[{"subject":"a","predicate":"` + strings.Repeat("p", 65) + `","object":"b"}]}`, 422, "facts[0].predicate"},
			{"reserved fact metadata", "POST", "/v1/facts", "application/json", `{"namespace":"bad","facts":[{"subject":"a","predicate":"p","object":"b","metadata":{"kgmem_stated_end":"open"}}]}`, 422, "facts[0].metadata.kgmem_stated_end"},
			{"bad as_of on facts", "GET", "/v1/facts?namespace=bad&as_of=soon", "", ``, 400, "as_of"},
			{"bad cardinality", "PUT", "/v1/namespaces/bad/settings", "application/json", `{"cardinality":{"drives":"sometimes"}}`, 400, "cardinality.drives"},
			{"null cardinality", "PUT", "/v1/namespaces/bad/settings", "application/json", `{"cardinality":{"drives":null}}`, 400, "cardinality.drives"},
			{"bad role", "POST", "/v1/memories", "application/json", `{"namespace":"bad","messages":[{"content":"x","role":"robot"}]}`, 400, "messages[0].role"},
			{"duplicate ids in one batch", "POST", "/v1/memories", "application/json", `{"namespace":"bad","messages":[{"id":"a","content":"x"},{"id":"a","content":"y"}]}`, 422, "messages[1].id"},
			{"second message bad", "POST", "/v1/memories", "application/json", `{"namespace":"bad","messages":[{"id":"new1","content":"fine"},{"id":"new2","content":""}]}`, 400, "messages[1].content"},
			{"missing namespace", "POST", "/v1/memories", "application/json", `{"messages":[` + okMsg + `]}`, 400, "namespace"},
			{"namespace with ..", "POST", "/v1/memories", "application/json", `{"namespace":"a/../b","messages":[` + okMsg + `]}`, 400, "namespace"},
			{"namespace with space", "POST", "/v1/memories", "application/json", `{"namespace":"a b","messages":[` + okMsg + `]}`, 400, "namespace"},
			{"namespace too deep", "POST", "/v1/memories", "application/json", `{"namespace":"a/b/c/d/e/f/g/h/i","messages":[` + okMsg + `]}`, 400, "namespace"},
			{"namespace segment too long", "POST", "/v1/memories", "application/json", `{"namespace":"` + strings.Repeat("n", 65) + `","messages":[` + okMsg + `]}`, 400, "namespace"},
			{"extract without LLM", "POST", "/v1/memories", "application/json", `{"namespace":"bad","messages":[{"id":"e1","content":"Bob leads ML"}],"extract":true}`, 409, ""},
			{"body over limit", "POST", "/v1/memories", "application/json", `{"namespace":"bad","messages":[{"content":"` + strings.Repeat("a", 70<<10) + `"}]}`, 413, ""},
			{"fact without subject", "POST", "/v1/facts", "application/json", `{"namespace":"bad","facts":[{"predicate":"likes","object":"tea"}]}`, 400, "facts[0].subject"},
			{"fact with punctuation-only predicate", "POST", "/v1/facts", "application/json", `{"namespace":"bad","facts":[{"subject":"a","predicate":"!!!","object":"b"}]}`, 422, "facts[0].predicate"},
			{"fact confidence out of range", "POST", "/v1/facts", "application/json", `{"namespace":"bad","facts":[{"subject":"a","predicate":"p","object":"b","confidence":3}]}`, 400, "facts[0].confidence"},
			{"fact importance out of range", "POST", "/v1/facts", "application/json", `{"namespace":"bad","facts":[{"subject":"a","predicate":"p","object":"b","importance":11}]}`, 400, "facts[0].importance"},
			{"fact bad valid_at", "POST", "/v1/facts", "application/json", `{"namespace":"bad","facts":[{"subject":"a","predicate":"p","object":"b","valid_at":"soon"}]}`, 400, "facts[0].valid_at"},
			{"fact ends before it starts", "POST", "/v1/facts", "application/json", `{"namespace":"bad","facts":[{"subject":"a","predicate":"p","object":"b","valid_at":"2024-01-02","invalid_at":"2024-01-01"}]}`, 422, "facts[0].invalid_at"},
			{"fact with unknown episode", "POST", "/v1/facts", "application/json", `{"namespace":"bad","facts":[{"subject":"a","predicate":"p","object":"b","episode_ids":["ep_nope"]}]}`, 404, "facts[0].episode_ids"},
			{"second fact bad", "POST", "/v1/facts", "application/json", `{"namespace":"bad","facts":[{"subject":"Zed","predicate":"likes","object":"jazz"},{"subject":"","predicate":"p","object":"b"}]}`, 400, "facts[1].subject"},
			{"no facts", "POST", "/v1/facts", "application/json", `{"namespace":"bad","facts":[]}`, 400, "facts"},
			{"empty query", "POST", "/v1/search", "application/json", `{"namespace":"bad","query":""}`, 400, "query"},
			{"white-space query", "POST", "/v1/search", "application/json", `{"namespace":"bad","query":"  "}`, 422, "query"},
			{"no-break-space query", "POST", "/v1/search", "application/json", `{"namespace":"bad","query":"\u00a0"}`, 422, "query"},
			{"query too long", "POST", "/v1/search", "application/json", `{"namespace":"bad","query":"` + strings.Repeat("q", 5000) + `"}`, 400, "query"},
			{"limit too high", "POST", "/v1/search", "application/json", `{"namespace":"bad","query":"tea","limit":1000}`, 400, "limit"},
			{"negative limit", "POST", "/v1/search", "application/json", `{"namespace":"bad","query":"tea","limit":-1}`, 400, "limit"},
			{"unknown include", "POST", "/v1/search", "application/json", `{"namespace":"bad","query":"tea","include":["everything"]}`, 400, "include[0]"},
			{"list facts without namespace", "GET", "/v1/facts", "", ``, 400, "namespace"},
			{"list facts bad limit", "GET", "/v1/facts?namespace=bad&limit=0", "", ``, 400, "limit"},
			{"list facts non-numeric limit", "GET", "/v1/facts?namespace=bad&limit=ten", "", ``, 400, "limit"},
			{"list facts bad current_only", "GET", "/v1/facts?namespace=bad&current_only=maybe", "", ``, 400, "current_only"},
			{"facts of unknown entity", "GET", "/v1/facts?namespace=bad&entity=Nobody", "", ``, 404, ""},
			{"unknown fact", "GET", "/v1/facts/fact_nope?namespace=bad", "", ``, 404, ""},
			{"fact without namespace", "GET", "/v1/facts/fact_nope", "", ``, 400, "namespace"},
			{"unknown entity", "GET", "/v1/entities/ent_nope?namespace=bad", "", ``, 404, ""},
			{"entities bad namespace", "GET", "/v1/entities?namespace=../x", "", ``, 400, "namespace"},
			{"delete unknown fact", "DELETE", "/v1/facts/fact_nope?namespace=bad", "", ``, 404, ""},
			{"purge invalid namespace", "DELETE", "/v1/namespaces/a%2F..%2Fb", "", ``, 400, "namespace"},
			{"unknown route", "GET", "/v1/nothing", "", ``, 404, ""},
			{"wrong method", "PUT", "/v1/search", "application/json", `{}`, 405, ""},
		}
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				var p problem
				status, hdr := s.do(tc.method, tc.path, tc.contentType, []byte(tc.body), &p)
				if status != tc.status {
					t.Fatalf("status %d, want %d (%+v)", status, tc.status, p)
				}
				if ct := hdr.Get("Content-Type"); ct != "application/problem+json" {
					t.Errorf("Content-Type %q, want application/problem+json", ct)
				}
				if p.Status != tc.status || p.Detail == "" || p.Title == "" {
					t.Errorf("problem %+v lacks status, title or detail", p)
				}
				if tc.field != "" && p.Field != tc.field {
					t.Errorf("field %q, want %q (detail %q)", p.Field, tc.field, p.Detail)
				}
			})
		}
		if eps, facts, ents := s.counts(ns); eps != wantEps || facts != wantFacts || ents != wantEnts {
			t.Errorf("bad requests changed the store: %d/%d/%d episodes/facts/entities, want %d/%d/%d", eps, facts, ents, wantEps, wantFacts, wantEnts)
		}
	})
}

func TestHostileSearchTextNeverFails(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		s := newTestServer(t, b, api.Options{}, nil)
		s.json("POST", "/v1/memories", map[string]any{"namespace": "h", "messages": conversation()}, nil)
		for _, q := range []string{`"unterminated`, `a AND OR NOT b`, `*`, `col:value`, `(((`, `') MATCH (n) DETACH DELETE n //`, `'; DROP TABLE episodes; --`, "🙂 emoji", `the of and`, `NEAR(a b)`, `^caret`, `-minus`} {
			var res searchResponse
			if st := s.json("POST", "/v1/search", map[string]any{"namespace": "h", "query": q}, &res); st != http.StatusOK {
				t.Errorf("query %q: status %d, want 200", q, st)
			}
		}
		if eps, _, _ := s.counts("h"); eps != 3 {
			t.Errorf("hostile queries changed the store: %d episodes", eps)
		}
	})
}

func TestNamespaceIsolation(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		s := newTestServer(t, b, api.Options{}, nil)
		var a ingestResponse
		s.json("POST", "/v1/memories", map[string]any{"namespace": "tenant-a", "thread_id": "t", "messages": conversation()}, &a)
		fa := postFacts(t, s, "tenant-a", map[string]any{"subject": "Caroline", "predicate": "researches", "object": "adoption agencies"})
		// B says something similar, so that a leak would rank well.
		s.json("POST", "/v1/memories", map[string]any{"namespace": "tenant-b", "thread_id": "t", "messages": []message{{"id": "m1", "name": "Zoe", "content": "Adoption agencies are hard to research."}}}, nil)
		postFacts(t, s, "tenant-b", map[string]any{"subject": "Zoe", "predicate": "researches", "object": "adoption agencies"})

		aIDs := map[string]bool{fa.Facts[0].Fact.ID: true, fa.Facts[0].Fact.SubjectID: true, fa.Facts[0].Fact.ObjectID: true}
		for _, ep := range a.Episodes {
			aIDs[ep.ID] = true
		}
		var res searchResponse
		s.json("POST", "/v1/search", map[string]any{"namespace": "tenant-b", "query": "Caroline adoption agencies LGBTQ support group", "limit": 50}, &res)
		for _, f := range res.Facts {
			if aIDs[f.ID] {
				t.Errorf("B's search returned A's fact %s", f.ID)
			}
		}
		for _, ep := range res.Episodes {
			if aIDs[ep.ID] || ep.Name == "Caroline" {
				t.Errorf("B's search returned A's episode %s", ep.ID)
			}
		}
		for _, ent := range res.Entities {
			if aIDs[ent.ID] || ent.Name == "Caroline" {
				t.Errorf("B's search returned A's entity %s", ent.ID)
			}
		}
		// Direct reads of A's ids through B's namespace are 404; listings never show them.
		f := fa.Facts[0].Fact
		for _, path := range []string{"/v1/facts/" + f.ID + "?namespace=tenant-b", "/v1/entities/" + f.SubjectID + "?namespace=tenant-b", "/v1/facts?namespace=tenant-b&entity=" + f.SubjectID, "/v1/facts?namespace=tenant-b&entity=Caroline"} {
			if st := s.json("GET", path, nil, nil); st != http.StatusNotFound {
				t.Errorf("GET %s: %d, want 404", path, st)
			}
		}
		var list factList
		s.json("GET", "/v1/facts?namespace=tenant-b", nil, &list)
		for _, lf := range list.Facts {
			if aIDs[lf.ID] {
				t.Errorf("B's fact list holds A's fact %s", lf.ID)
			}
		}
		var ents struct {
			Entities []entityView `json:"entities"`
		}
		s.json("GET", "/v1/entities?namespace=tenant-b&q=caroline", nil, &ents)
		if len(ents.Entities) != 0 {
			t.Errorf("B's entity list holds %+v", ents.Entities)
		}
		// B cannot delete A's fact, and purging B leaves A whole.
		if st := s.json("DELETE", "/v1/facts/"+f.ID+"?namespace=tenant-b", nil, nil); st != http.StatusNotFound {
			t.Errorf("B deleting A's fact: %d, want 404", st)
		}
		wantEps, wantFacts, wantEnts := s.counts("tenant-a")
		s.json("DELETE", "/v1/namespaces/tenant-b", nil, nil)
		if eps, facts, ents := s.counts("tenant-a"); eps != wantEps || facts != wantFacts || ents != wantEnts {
			t.Errorf("purging B changed A: %d/%d/%d", eps, facts, ents)
		}
		// A's own search still works after B's purge.
		s.json("POST", "/v1/search", map[string]any{"namespace": "tenant-a", "query": "adoption agencies"}, &res)
		if len(res.Episodes) == 0 || !aIDs[res.Episodes[0].ID] {
			t.Errorf("A's search after B's purge: %+v", res.Episodes)
		}
	})
}

func TestOpenAPIDocumentsEveryRoute(t *testing.T) {
	s := newTestServer(t, backends(t)[0], api.Options{}, nil)
	var doc struct {
		OpenAPI string                                `json:"openapi"`
		Paths   map[string]map[string]json.RawMessage `json:"paths"`
	}
	if st := s.json("GET", "/openapi.json", nil, &doc); st != 200 || !strings.HasPrefix(doc.OpenAPI, "3.") {
		t.Fatalf("openapi.json: %d %q", st, doc.OpenAPI)
	}
	srv := api.New(s.engine, api.Options{}, nil)
	documented := 0
	for _, r := range srv.Routes() {
		if r.Path == "" || strings.HasSuffix(r.Path, "/*") || r.Method == "echo_route_not_found" {
			continue
		}
		path := api.OpenAPIPath(r.Path)
		ops, ok := doc.Paths[path]
		if !ok {
			t.Errorf("route %s %s: path %s missing from openapi.json", r.Method, r.Path, path)
			continue
		}
		if _, ok := ops[strings.ToLower(r.Method)]; !ok {
			t.Errorf("route %s %s: method missing from openapi.json", r.Method, r.Path)
			continue
		}
		documented++
	}
	if documented < 12 {
		t.Errorf("only %d routes documented", documented)
	}
	// And nothing is documented that is not served.
	for path, ops := range doc.Paths {
		for method := range ops {
			if method == "parameters" {
				continue
			}
			found := false
			for _, r := range srv.Routes() {
				if api.OpenAPIPath(r.Path) == path && strings.EqualFold(r.Method, method) {
					found = true
				}
			}
			if !found {
				t.Errorf("openapi.json documents %s %s, which is not served", method, path)
			}
		}
	}
}

// TestJSONMediaTypeParameters checks that application/json with parameters
// (any case, any charset spelling) is JSON.
func TestJSONMediaTypeParameters(t *testing.T) {
	s := newTestServer(t, backends(t)[0], api.Options{}, nil)
	body := []byte(`{"namespace":"ct/a","messages":[{"role":"user","content":"hello"}]}`)
	for _, ct := range []string{"application/json; charset=utf-8", "Application/JSON", "application/json;charset=UTF-8"} {
		if st, _ := s.do("POST", "/v1/memories", ct, body, nil); st != 201 && st != 200 {
			t.Errorf("Content-Type %q: %d, want it taken as JSON", ct, st)
		}
	}
}
