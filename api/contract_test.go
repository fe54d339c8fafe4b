package api_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"testing"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/api"
	"github.com/kgmem/kgmem/client"
	"github.com/kgmem/kgmem/mcpserver"
	"github.com/kgmem/kgmem/triples"
)

// rawCall sends one request with full control of its headers and Host, and
// returns the status and the problem of a refusal.
func rawCall(t *testing.T, base, method, path, host string, hdr map[string]string, body string) (int, api.Problem) {
	t.Helper()
	req, err := http.NewRequest(method, base+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if body == "" {
		req.Body, req.ContentLength = http.NoBody, 0
	}
	if host != "" {
		req.Host = host
	}
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var p api.Problem
	if resp.StatusCode >= 400 && strings.HasPrefix(resp.Header.Get("Content-Type"), "application/problem+json") {
		_ = json.Unmarshal(raw, &p)
	}
	return resp.StatusCode, p
}

// TestKeylessServerRefusesBrowserAttacks: what a web page can make a user's
// browser send to an open loopback server changes and reveals nothing. A
// body must say it is JSON (a text/plain or form body needs no CORS
// preflight), the Host must be loopback or configured (DNS rebinding), and an
// unsafe request a browser marks as cross-origin is refused, on REST and
// /mcp alike.
func TestKeylessServerRefusesBrowserAttacks(t *testing.T) {
	tools, err := mcpserver.New(mcpserver.Options{Client: func(http.Header) (*client.Client, error) {
		return nil, fmt.Errorf("no tool is called here")
	}})
	if err != nil {
		t.Fatal(err)
	}
	s := newTestServer(t, backends(t)[0], api.Options{
		MCP:            mcpserver.Handler(tools),
		AllowedHosts:   []string{"kgmem.test"},
		AllowedOrigins: []string{"http://trusted.example:3000"},
	}, nil)
	u, err := url.Parse(s.url)
	if err != nil {
		t.Fatal(err)
	}
	port := u.Port()
	jsonCT := map[string]string{"Content-Type": "application/json"}
	with := func(kv ...string) map[string]string {
		m := map[string]string{"Content-Type": "application/json"}
		for i := 0; i+1 < len(kv); i += 2 {
			if kv[i+1] == "" {
				delete(m, kv[i])
				continue
			}
			m[kv[i]] = kv[i+1]
		}
		return m
	}
	mem := func(ns string) string {
		return `{"namespace":"` + ns + `","messages":[{"content":"the door code is 4711"}]}`
	}
	const initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
	mcpHdr := func(kv ...string) map[string]string {
		return with(append([]string{"Accept", "application/json, text/event-stream"}, kv...)...)
	}
	cases := []struct {
		name, method, path, host string
		hdr                      map[string]string
		body                     string
		status                   int
		field                    string
	}{
		// Content type: refused whatever the route, before its handler.
		{"memories without Content-Type", "POST", "/v1/memories", "", nil, mem("g"), 415, "Content-Type"},
		{"memories as text/plain", "POST", "/v1/memories", "", with("Content-Type", "text/plain"), mem("g"), 415, "Content-Type"},
		{"memories as a form", "POST", "/v1/memories", "", with("Content-Type", "application/x-www-form-urlencoded"), mem("g"), 415, "Content-Type"},
		{"memories as multipart", "POST", "/v1/memories", "", with("Content-Type", "multipart/form-data; boundary=x"), mem("g"), 415, "Content-Type"},
		{"facts as text/plain", "POST", "/v1/facts", "", with("Content-Type", "text/plain"), `{"namespace":"g","facts":[{"subject":"a","predicate":"p","object":"b"}]}`, 415, "Content-Type"},
		{"sweep with a text/plain body", "POST", "/v1/namespaces/g/sweep", "", with("Content-Type", "text/plain"), "x", 415, "Content-Type"},
		{"items as text/plain", "PUT", "/v1/items", "", with("Content-Type", "text/plain"), `{"namespace":"g","key":"k","value":{"a":1}}`, 415, "Content-Type"},
		{"search as text/plain", "POST", "/v1/search", "", with("Content-Type", "text/plain"), `{"namespace":"g","query":"door"}`, 415, "Content-Type"},
		{"mcp as text/plain", "POST", "/mcp", "", mcpHdr("Content-Type", "text/plain"), initialize, 415, "Content-Type"},
		{"memories as application/json; charset=utf-8", "POST", "/v1/memories", "", with("Content-Type", "application/json; charset=utf-8"), mem("ok"), 201, ""},
		{"memories as a +json type", "POST", "/v1/memories", "", with("Content-Type", "application/vnd.kgmem+json"), mem("ok"), 201, ""},
		{"sweep without a body", "POST", "/v1/namespaces/ok/sweep", "", nil, "", 200, ""},

		// Host: only loopback names and --allowed-hosts while keyless.
		{"read with a rebound Host", "GET", "/v1/episodes?namespace=ok", "attacker.example:" + port, nil, "", 403, "Host"},
		{"search with a rebound Host", "POST", "/v1/search", "attacker.example", jsonCT, `{"namespace":"ok","query":"door"}`, 403, "Host"},
		{"write with a rebound Host", "POST", "/v1/memories", "attacker.example", jsonCT, mem("g"), 403, "Host"},
		{"a private address as Host", "GET", "/v1/episodes?namespace=ok", "192.168.1.10:" + port, nil, "", 403, "Host"},
		{"a name that only starts like localhost", "GET", "/v1/episodes?namespace=ok", "localhost.attacker.example", nil, "", 403, "Host"},
		{"mcp with a rebound Host", "POST", "/mcp", "attacker.example:" + port, mcpHdr(), initialize, 403, "Host"},
		{"localhost", "GET", "/v1/episodes?namespace=ok", "localhost:" + port, nil, "", 200, ""},
		{"127.0.0.5", "GET", "/v1/episodes?namespace=ok", "127.0.0.5:" + port, nil, "", 200, ""},
		{"[::1]", "GET", "/v1/episodes?namespace=ok", "[::1]:" + port, nil, "", 200, ""},
		{"an allowed host", "GET", "/v1/episodes?namespace=ok", "kgmem.test:" + port, nil, "", 200, ""},
		{"an allowed host in capitals", "GET", "/v1/episodes?namespace=ok", "KGMEM.TEST", nil, "", 200, ""},
		{"mcp on an allowed host", "POST", "/mcp", "kgmem.test:" + port, mcpHdr(), initialize, 200, ""},

		// Origin: unsafe cross-origin browser requests are refused.
		{"mcp from another origin", "POST", "/mcp", "", mcpHdr("Origin", "http://evil.example"), initialize, 403, "Origin"},
		{"mcp from another loopback port", "POST", "/mcp", "", mcpHdr("Origin", "http://127.0.0.1:1"), initialize, 403, "Origin"},
		{"mcp marked cross-site", "POST", "/mcp", "", mcpHdr("Sec-Fetch-Site", "cross-site"), initialize, 403, "Origin"},
		{"mcp without Origin", "POST", "/mcp", "", mcpHdr(), initialize, 200, ""},
		{"mcp from its own origin", "POST", "/mcp", "", mcpHdr("Origin", s.url), initialize, 200, ""},
		{"mcp from an allowed origin", "POST", "/mcp", "", mcpHdr("Origin", "http://trusted.example:3000"), initialize, 200, ""},
		{"write from another origin", "POST", "/v1/memories", "", with("Origin", "http://evil.example"), mem("g"), 403, "Origin"},
		{"purge from another origin", "DELETE", "/v1/namespaces/ok", "", map[string]string{"Origin": "http://evil.example"}, "", 403, "Origin"},
		{"sweep marked same-site", "POST", "/v1/namespaces/ok/sweep", "", map[string]string{"Sec-Fetch-Site": "same-site"}, "", 403, "Origin"},
		{"write from its own origin", "POST", "/v1/memories", "", with("Origin", s.url, "Sec-Fetch-Site", "same-origin"), mem("ok"), 201, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			st, p := rawCall(t, s.url, tc.method, tc.path, tc.host, tc.hdr, tc.body)
			if st != tc.status || p.Field != tc.field {
				t.Fatalf("status %d field %q (%s), want %d %q", st, p.Field, p.Detail, tc.status, tc.field)
			}
		})
	}
	if eps, facts, ents := s.counts("g"); eps+facts+ents != 0 {
		t.Errorf("refused requests stored %d episodes, %d facts, %d entities", eps, facts, ents)
	}
	if eps, _, _ := s.counts("ok"); eps != 3 {
		t.Errorf("the admitted writes stored %d episodes, want 3", eps)
	}
}

// TestKeyedServerAnswersAnyHost: with API keys on, the key is the guard; a
// server behind a proxy or on a public name answers to its own Host.
func TestKeyedServerAnswersAnyHost(t *testing.T) {
	s := newAuthServer(t, backends(t)[0], api.Options{}, nil)
	auth := map[string]string{"Authorization": "Bearer " + s.admin}
	for _, tc := range []struct {
		name, host string
		hdr        map[string]string
		status     int
	}{
		{"a public name with the key", "kgmem.example.com", auth, 200},
		{"a public name without a key", "kgmem.example.com", nil, 401},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if st, p := rawCall(t, s.url, "GET", "/v1/episodes?namespace=a", tc.host, tc.hdr, ""); st != tc.status {
				t.Fatalf("status %d (%s), want %d", st, p.Detail, tc.status)
			}
		})
	}
}

// TestStrictJSON: one rule for every body and query parameter, the strict
// one. Member names match exactly, each is given once, text is valid UTF-8
// without lone surrogates, and a query parameter is given at most once; each
// refusal is a 400 naming the member or parameter, and stores nothing.
func TestStrictJSON(t *testing.T) {
	s := newTestServer(t, backends(t)[0], api.Options{}, nil)
	msg := func(content string) string {
		return `{"namespace":"strict","messages":[{"content":"` + content + `"}]}`
	}
	cases := []struct {
		name, method, path, body string
		status                   int
		field                    string
	}{
		{"a known field in other case", "POST", "/v1/memories", `{"Namespace":"strict","messages":[{"content":"x"}]}`, 400, "Namespace"},
		{"a nested field in other case", "POST", "/v1/memories", `{"namespace":"strict","messages":[{"Content":"x"}]}`, 400, "messages[0].Content"},
		{"a search field in capitals", "POST", "/v1/search", `{"namespace":"strict","QUERY":"x"}`, 400, "QUERY"},
		{"a settings field in other case", "PUT", "/v1/namespaces/strict/settings", `{"Writes":{}}`, 400, "Writes"},
		{"a decay parameter in other case", "PUT", "/v1/namespaces/strict/settings", `{"decay":{"Floor":0.5}}`, 400, "decay.Floor"},
		{"a decay parameter twice", "PUT", "/v1/namespaces/strict/settings", `{"decay":{"floor":0.5,"floor":0.9}}`, 400, "decay.floor"},
		{"namespace twice", "POST", "/v1/memories", `{"namespace":"other","namespace":"strict","messages":[{"content":"x"}]}`, 400, "namespace"},
		{"content twice", "POST", "/v1/memories", `{"namespace":"strict","messages":[{"content":"a","content":"b"}]}`, 400, "messages[0].content"},
		{"a metadata key twice", "POST", "/v1/memories", `{"namespace":"strict","messages":[{"content":"a","metadata":{"k":1,"k":2}}]}`, 400, "messages[0].metadata.k"},
		{"an item value key twice", "PUT", "/v1/items", `{"namespace":"strict","key":"k","value":{"a":1,"a":2}}`, 400, "value.a"},
		{"invalid UTF-8", "POST", "/v1/memories", msg("caf\xe9"), 400, "messages[0].content"},
		{"invalid UTF-8 in a name", "POST", "/v1/memories", `{"namespace":"strict","messages":[{"content":"x","metadata":{"\xff":1}}]}`, 400, "messages[0].metadata"},
		{"a lone high surrogate", "POST", "/v1/memories", msg(`\ud800`), 400, "messages[0].content"},
		{"a lone low surrogate", "POST", "/v1/memories", msg(`x\udc00y`), 400, "messages[0].content"},
		{"a high surrogate before a letter", "POST", "/v1/memories", msg(`\ud83d\u0041`), 400, "messages[0].content"},
		{"a lone surrogate in a fact", "POST", "/v1/facts", `{"namespace":"strict","facts":[{"subject":"\ud800","predicate":"p","object":"b"}]}`, 400, "facts[0].subject"},
		{"namespace twice in the query", "GET", "/v1/episodes?namespace=other&namespace=strict", "", 400, "namespace"},
		{"namespace twice on facts", "GET", "/v1/facts?namespace=strict&namespace=strict", "", 400, "namespace"},
		{"namespace twice on a delete", "DELETE", "/v1/items?namespace=strict&namespace=other&key=k", "", 400, "namespace"},
		{"key twice", "GET", "/v1/items?namespace=strict&key=a&key=b", "", 400, "key"},
		{"a surrogate pair is text", "POST", "/v1/memories", msg(`smile \ud83d\ude00`), 201, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var p api.Problem
			ct := ""
			if tc.body != "" {
				ct = "application/json"
			}
			st, _ := s.do(tc.method, tc.path, ct, []byte(tc.body), &p)
			if st != tc.status || p.Field != tc.field {
				t.Fatalf("status %d field %q (%s), want %d %q", st, p.Field, p.Detail, tc.status, tc.field)
			}
		})
	}
	if eps, facts, ents := s.counts("other"); eps+facts+ents != 0 {
		t.Errorf("refused requests stored %d episodes, %d facts, %d entities in other", eps, facts, ents)
	}
	if eps, facts, _ := s.counts("strict"); eps != 1 || facts != 0 {
		t.Errorf("strict holds %d episodes and %d facts, want only the one admitted message", eps, facts)
	}
}

// nested returns a JSON object nested depth levels deep: {"a":{"a":…1…}}.
func nested(depth int) string {
	return strings.Repeat(`{"a":`, depth-1) + `{"a":1}` + strings.Repeat(`}`, depth-1)
}

// TestRecordLimits: a fact's text and a record's metadata are bounded at
// write time by the limits the contract declares, each refused with a 422
// naming the field, and nothing is stored; at the limits, writes pass.
func TestRecordLimits(t *testing.T) {
	s := newTestServer(t, backends(t)[0], api.Options{MaxBodyBytes: 1 << 20}, nil)
	fact := func(ns, text, metadata string) string {
		m := ""
		if metadata != "" {
			m = `,"metadata":` + metadata
		}
		return `{"namespace":"` + ns + `","facts":[{"subject":"a","predicate":"likes","object":"b","fact":"` + text + `"` + m + `}]}`
	}
	msg := func(ns, metadata string) string {
		return `{"namespace":"` + ns + `","messages":[{"content":"x","metadata":` + metadata + `}]}`
	}
	item := func(ns, value string) string {
		return `{"namespace":"` + ns + `","key":"k","value":` + value + `}`
	}
	big := func(n int) string { return `{"blob":"` + strings.Repeat("x", n-len(`{"blob":""}`)) + `"}` }
	cases := []struct {
		name, method, path, body string
		status                   int
		field                    string
	}{
		{"fact text one past the limit", "POST", "/v1/facts", fact("lim", strings.Repeat("a", triples.MaxFactTextLen+1), ""), 422, "facts[0].fact"},
		{"fact text at openapi's old 4,096", "POST", "/v1/facts", fact("lim", strings.Repeat("a", 4096), ""), 422, "facts[0].fact"},
		{"fact text at the limit", "POST", "/v1/facts", fact("ok", strings.Repeat("a", triples.MaxFactTextLen), ""), 201, ""},
		{"fact text at the limit in 2-byte letters", "POST", "/v1/facts", fact("ok2", strings.Repeat("é", triples.MaxFactTextLen), ""), 201, ""},
		{"message metadata 1,000 deep", "POST", "/v1/memories", msg("lim", nested(1000)), 422, "messages[0].metadata"},
		{"message metadata one level too deep", "POST", "/v1/memories", msg("lim", nested(kgmem.MaxMetadataDepth+1)), 422, "messages[0].metadata"},
		{"message metadata of arrays too deep", "POST", "/v1/memories", msg("lim", `{"a":`+strings.Repeat("[", kgmem.MaxMetadataDepth)+strings.Repeat("]", kgmem.MaxMetadataDepth)+`}`), 422, "messages[0].metadata"},
		{"message metadata one byte too big", "POST", "/v1/memories", msg("lim", big(kgmem.MaxMetadataBytes+1)), 422, "messages[0].metadata"},
		{"message metadata at the limits", "POST", "/v1/memories", msg("ok", nested(kgmem.MaxMetadataDepth)), 201, ""},
		{"message metadata at the size limit", "POST", "/v1/memories", msg("ok3", big(kgmem.MaxMetadataBytes)), 201, ""},
		{"fact metadata too deep", "POST", "/v1/facts", fact("lim", "", nested(kgmem.MaxMetadataDepth+1)), 422, "facts[0].metadata"},
		{"fact metadata too big", "POST", "/v1/facts", fact("lim", "", big(kgmem.MaxMetadataBytes+1)), 422, "facts[0].metadata"},
		{"item value too deep", "PUT", "/v1/items", item("lim", nested(kgmem.MaxMetadataDepth+1)), 422, "value"},
		{"item value too big", "PUT", "/v1/items", item("lim", big(kgmem.MaxItemValueBytes+1)), 422, "value"},
		{"item value at the limits", "PUT", "/v1/items", item("ok", nested(kgmem.MaxMetadataDepth)), 201, ""},
		{"item value at the size limit", "PUT", "/v1/items", item("ok4", big(kgmem.MaxItemValueBytes)), 201, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var p api.Problem
			st, _ := s.do(tc.method, tc.path, "application/json", []byte(tc.body), &p)
			if st != tc.status || p.Field != tc.field {
				t.Fatalf("status %d field %q (%s), want %d %q", st, p.Field, p.Detail, tc.status, tc.field)
			}
		})
	}
	if eps, facts, ents := s.counts("lim"); eps+facts+ents != 0 {
		t.Errorf("refused requests stored %d episodes, %d facts, %d entities", eps, facts, ents)
	}
	var items map[string]any
	if st := s.json("GET", "/v1/items?namespace=lim&key=k", nil, &items); st != 404 {
		t.Errorf("a refused item is there: %d", st)
	}
}

// TestContractDeclaresTheLimits: openapi.json states the limits the server
// enforces, from the Go constants.
func TestContractDeclaresTheLimits(t *testing.T) {
	raw, err := os.ReadFile("openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Components struct {
			Schemas map[string]struct {
				Properties map[string]json.RawMessage `json:"properties"`
			} `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	type bounds struct {
		MaxLength        int      `json:"maxLength"`
		XMaxDepth        int      `json:"x-max-depth"`
		XMaxEncodedBytes int      `json:"x-max-encoded-bytes"`
		Minimum          *float64 `json:"minimum"`
		Maximum          float64  `json:"maximum"`
	}
	for _, tc := range []struct {
		schema, property string
		want             bounds
	}{
		{"Triple", "fact", bounds{MaxLength: triples.MaxFactTextLen}},
		{"Triple", "metadata", bounds{XMaxDepth: kgmem.MaxMetadataDepth, XMaxEncodedBytes: kgmem.MaxMetadataBytes}},
		{"Message", "metadata", bounds{XMaxDepth: kgmem.MaxMetadataDepth, XMaxEncodedBytes: kgmem.MaxMetadataBytes}},
		{"ItemRequest", "value", bounds{XMaxDepth: kgmem.MaxMetadataDepth, XMaxEncodedBytes: kgmem.MaxItemValueBytes}},
		{"ItemRequest", "ttl", bounds{Minimum: new(float64(0)), Maximum: kgmem.MaxItemTTL}},
	} {
		prop, ok := doc.Components.Schemas[tc.schema].Properties[tc.property]
		if !ok {
			t.Errorf("%s.%s is not in openapi.json", tc.schema, tc.property)
			continue
		}
		var got bounds
		if err := json.Unmarshal(prop, &got); err != nil {
			t.Fatal(err)
		}
		if got.MaxLength != tc.want.MaxLength || got.XMaxDepth != tc.want.XMaxDepth || got.XMaxEncodedBytes != tc.want.XMaxEncodedBytes ||
			got.Maximum != tc.want.Maximum || (got.Minimum == nil) != (tc.want.Minimum == nil) || (got.Minimum != nil && *got.Minimum != *tc.want.Minimum) {
			t.Errorf("%s.%s declares %+v, the server enforces %+v", tc.schema, tc.property, got, tc.want)
		}
	}
	if !bytes.Contains(raw, []byte(`"415"`)) {
		t.Error("openapi.json declares no 415 response")
	}
}
