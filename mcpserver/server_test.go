package mcpserver_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/api"
	"github.com/kgmem/kgmem/auth"
	"github.com/kgmem/kgmem/client"
	"github.com/kgmem/kgmem/internal/apitest"
	"github.com/kgmem/kgmem/mcpserver"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

const adminKey = "kgm_admin_0123456789abcdef0123456789abcdef"

// fixture is a real kgmem API with keys, and MCP sessions over the SDK's
// in-memory transport whose tools call it with a given key.
type fixture struct {
	t   *testing.T
	srv *api.Server
	// keys: a write key and a read key, both scoped to acme/users.
	writeKey, readKey string
	url               string // an HTTP server of the API with /mcp
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	st, err := auth.OpenStore(ctx, filepath.Join(dir, "keys.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	a, err := auth.NewAuthenticator(adminKey, st)
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{t: t}
	for _, k := range []struct {
		right auth.Right
		dst   *string
	}{{auth.Write, &f.writeKey}, {auth.Read, &f.readKey}} {
		if _, *k.dst, err = st.Create(ctx, auth.CreateRequest{Name: string(k.right), Right: k.right, Prefixes: []kgmem.Namespace{"acme/users"}}); err != nil {
			t.Fatal(err)
		}
	}
	var srv *api.Server
	tools, err := mcpserver.New(mcpserver.Options{Client: func(h http.Header) (*client.Client, error) {
		return client.New("http://kgmem.in-process", client.WithHandler(srv.InProcess()), client.WithAPIKey(strings.TrimPrefix(h.Get("Authorization"), "Bearer ")))
	}})
	if err != nil {
		t.Fatal(err)
	}
	srv, closeAPI, err := apitest.New(dir, api.Options{Auth: a, MCP: mcpserver.Handler(tools)})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv.Handler())
	t.Cleanup(func() { hs.Close(); closeAPI() })
	f.srv, f.url = srv, hs.URL
	return f
}

// session connects an MCP client over the in-memory transport to a server
// whose tools call the API with key (and, when ns is set, work in ns).
func (f *fixture) session(key string, ns kgmem.Namespace) *mcp.ClientSession {
	f.t.Helper()
	s, err := mcpserver.New(mcpserver.Options{Namespace: ns, Client: func(http.Header) (*client.Client, error) {
		return client.New("http://kgmem.in-process", client.WithHandler(f.srv.InProcess()), client.WithAPIKey(key))
	}})
	if err != nil {
		f.t.Fatal(err)
	}
	st, ct := mcp.NewInMemoryTransports()
	ctx := context.Background()
	ss, err := s.Connect(ctx, st, nil)
	if err != nil {
		f.t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		f.t.Fatal(err)
	}
	f.t.Cleanup(func() { _ = cs.Close(); _ = ss.Wait() })
	return cs
}

// call calls a tool and decodes its structured output into out (when not nil).
func call(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any, out any) *mcp.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: protocol error %v (bad arguments must be tool errors)", name, err)
	}
	if out != nil && !res.IsError {
		raw, _ := json.Marshal(res.StructuredContent)
		if err := json.Unmarshal(raw, out); err != nil {
			t.Fatalf("%s: structured content %s: %v", name, raw, err)
		}
	}
	return res
}

func textOf(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// TestTools runs every tool through the SDK's in-memory transport with the
// admin key: what an agent does in one conversation.
func TestTools(t *testing.T) {
	f := newFixture(t)
	cs := f.session(adminKey, "")
	ctx := context.Background()
	ns := "acme/users/alice"

	list, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range list.Tools {
		names = append(names, tool.Name)
		if tool.Description == "" || !strings.Contains(string(mustJSON(t, tool.InputSchema)), `"namespace"`) {
			t.Errorf("tool %s: no description, or no namespace argument", tool.Name)
		}
	}
	slices.Sort(names)
	want := []string{"add_facts", "add_memories", "confirm_memory", "delete_fact", "get_entity", "get_instructions", "list_entities",
		"list_instruction_versions", "pin_memory", "restore_instructions", "search_memory", "unpin_memory", "update_instructions"}
	if !slices.Equal(names, want) {
		t.Fatalf("tools %q, want %q", names, want)
	}

	var changes mcpserver.ChangesOut
	call(t, cs, "add_facts", map[string]any{"namespace": ns, "facts": []map[string]any{
		{"subject": "Alice", "predicate": "lives in", "object": "Paris", "valid_at": "2020-01-01"},
		{"subject": "Alice", "predicate": "lives in", "object": "Berlin", "valid_at": "2024-03-01"},
		{"subject": "Bob", "predicate": "leads", "object": "ML team"},
	}}, &changes)
	var ops []string
	for _, c := range changes.Changes {
		ops = append(ops, c.Op)
	}
	if !slices.Contains(ops, "invalidated") || len(ops) != 4 {
		t.Errorf("add_facts ops %q: want 3 added and Paris invalidated", ops)
	}

	var mem mcpserver.AddMemoriesOut
	res := call(t, cs, "add_memories", map[string]any{"namespace": ns, "text": "I started learning the cello.", "speaker": "Alice"}, &mem)
	if res.IsError || mem.Stored != 1 {
		t.Errorf("add_memories: %s %+v", textOf(res), mem)
	}

	var found mcpserver.SearchMemoryOut
	res = call(t, cs, "search_memory", map[string]any{"namespace": ns, "query": "Who leads the ML team?"}, &found)
	if res.IsError || len(found.Facts) == 0 || found.Facts[0].Fact != "Bob leads ML team." || found.Facts[0].Status != "current" {
		t.Fatalf("search_memory: %s %+v", textOf(res), found.Facts)
	}
	if textOf(res) != found.Context || !strings.Contains(found.Context, "Bob leads ML team.") {
		t.Errorf("search_memory: the first content must be the prompt-ready context:\n%s", textOf(res))
	}

	var ent mcpserver.GetEntityOut
	res = call(t, cs, "get_entity", map[string]any{"namespace": ns, "entity": "alice"}, &ent)
	if res.IsError || ent.Entity.Name != "Alice" || len(ent.Current) != 1 || ent.Current[0].Object != "Berlin" ||
		len(ent.History) != 1 || ent.History[0].Status != "invalidated" || !strings.HasPrefix(ent.History[0].InvalidAt, "2024-03-01") {
		t.Fatalf("get_entity: %s %+v", textOf(res), ent)
	}
	if !strings.Contains(textOf(res), "Alice lives in Paris. [invalidated, 2020-01-01 – 2024-03-01") {
		t.Errorf("get_entity text lacks Paris's history:\n%s", textOf(res))
	}

	var ents mcpserver.ListEntitiesOut
	call(t, cs, "list_entities", map[string]any{"namespace": ns, "limit": 2}, &ents)
	if len(ents.Entities) != 2 || ents.Next == "" {
		t.Errorf("list_entities limit 2: %+v", ents)
	}

	ref := []map[string]any{{"kind": "fact", "id": ent.Current[0].ID}}
	var pin mcpserver.PinOut
	if res := call(t, cs, "pin_memory", map[string]any{"namespace": ns, "refs": ref}, &pin); res.IsError || !pin.Pinned || pin.Records != 1 {
		t.Errorf("pin_memory: %s %+v", textOf(res), pin)
	}
	if res := call(t, cs, "unpin_memory", map[string]any{"namespace": ns, "refs": ref}, &pin); res.IsError || pin.Pinned {
		t.Errorf("unpin_memory: %s %+v", textOf(res), pin)
	}
	var conf mcpserver.ConfirmOut
	if res := call(t, cs, "confirm_memory", map[string]any{"namespace": ns, "refs": ref}, &conf); res.IsError || conf.Reinforced != 1 {
		t.Errorf("confirm_memory: %s %+v", textOf(res), conf)
	}
	var gone mcpserver.DeleteFactOut
	if res := call(t, cs, "delete_fact", map[string]any{"namespace": ns, "fact_id": ent.Current[0].ID}, &gone); res.IsError || gone.Deleted != ent.Current[0].ID {
		t.Errorf("delete_fact: %s %+v", textOf(res), gone)
	}
	call(t, cs, "get_entity", map[string]any{"namespace": ns, "entity": "Alice"}, &ent)
	if len(ent.Current) != 0 {
		t.Errorf("after delete_fact, Alice's current facts: %+v", ent.Current)
	}
}

// TestBadArguments checks that bad arguments come back as tool errors
// carrying the API's own message and field path, never protocol errors.
func TestBadArguments(t *testing.T) {
	f := newFixture(t)
	cs := f.session(adminKey, "")
	ns := "acme/users/alice"
	tests := []struct {
		name string
		tool string
		args map[string]any
		want string // in the error text
	}{
		{"empty query", "search_memory", map[string]any{"namespace": ns, "query": ""}, "query"},
		{"limit out of range", "search_memory", map[string]any{"namespace": ns, "query": "x", "limit": 100000}, "limit"},
		{"bad namespace", "search_memory", map[string]any{"namespace": "../etc", "query": "x"}, "namespace"},
		{"missing namespace", "search_memory", map[string]any{"query": "x"}, "namespace"},
		{"wrong type", "search_memory", map[string]any{"namespace": ns, "query": 42}, "query"},
		{"unknown argument", "search_memory", map[string]any{"namespace": ns, "query": "x", "color": "red"}, "color"},
		{"empty message", "add_memories", map[string]any{"namespace": ns, "messages": []map[string]any{{"content": ""}}}, "messages/items/properties/content"},
		{"nothing to remember", "add_memories", map[string]any{"namespace": ns}, "messages"},
		{"bad date", "add_facts", map[string]any{"namespace": ns, "facts": []map[string]any{{"subject": "a", "predicate": "p", "object": "b", "valid_at": "soon"}}}, "facts[0].valid_at"},
		{"long predicate", "add_facts", map[string]any{"namespace": ns, "facts": []map[string]any{{"subject": "a", "predicate": strings.Repeat("relates ", 12), "object": "b"}}}, "facts[0].predicate"},
		{"unknown fact", "delete_fact", map[string]any{"namespace": ns, "fact_id": "fact_missing"}, "404"},
		{"unknown entity", "get_entity", map[string]any{"namespace": ns, "entity": "Nobody"}, "no entity named"},
		{"bad ref kind", "pin_memory", map[string]any{"namespace": ns, "refs": []map[string]any{{"kind": "fish", "id": "x"}}}, "refs/items/properties/kind"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := call(t, cs, tc.tool, tc.args, nil)
			if !res.IsError || !strings.Contains(textOf(res), tc.want) {
				t.Errorf("isError %v, text %q: want an error naming %q", res.IsError, textOf(res), tc.want)
			}
			if testing.Verbose() {
				t.Logf("%s", textOf(res))
			}
		})
	}
}

// TestKeysBoundTools checks that a key's right and namespace prefix bound
// what its tools reach, over the in-memory transport and over HTTP.
func TestKeysBoundTools(t *testing.T) {
	f := newFixture(t)
	write, read := f.session(f.writeKey, ""), f.session(f.readKey, "")
	facts := []map[string]any{{"subject": "Eve", "predicate": "works at", "object": "Acme"}}
	tests := []struct {
		name string
		cs   *mcp.ClientSession
		tool string
		args map[string]any
		ok   bool
	}{
		{"write key inside its prefix", write, "add_facts", map[string]any{"namespace": "acme/users/eve", "facts": facts}, true},
		{"write key outside its prefix", write, "add_facts", map[string]any{"namespace": "acme/admins", "facts": facts}, false},
		{"write key searching outside", write, "search_memory", map[string]any{"namespace": "acme/admins", "query": "Eve"}, false},
		{"read key searching inside", read, "search_memory", map[string]any{"namespace": "acme/users/eve", "query": "Eve"}, true},
		{"read key writing", read, "add_facts", map[string]any{"namespace": "acme/users/eve", "facts": facts}, false},
		{"read key pinning", read, "pin_memory", map[string]any{"namespace": "acme/users/eve", "refs": []map[string]any{{"kind": "fact", "id": "x"}}}, false},
		{"write key updating instructions", write, "update_instructions", map[string]any{"namespace": "acme/users/eve", "prompt": "Be brief."}, true},
		{"write key updating outside", write, "update_instructions", map[string]any{"namespace": "acme/admins", "prompt": "Be brief."}, false},
		{"read key reading instructions", read, "get_instructions", map[string]any{"namespace": "acme/users/eve"}, true},
		{"read key listing versions", read, "list_instruction_versions", map[string]any{"namespace": "acme/users/eve"}, true},
		{"read key reading outside", read, "get_instructions", map[string]any{"namespace": "acme/admins"}, false},
		{"read key updating instructions", read, "update_instructions", map[string]any{"namespace": "acme/users/eve", "prompt": "Be rude."}, false},
		{"read key restoring instructions", read, "restore_instructions", map[string]any{"namespace": "acme/users/eve", "version": 1}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := call(t, tc.cs, tc.tool, tc.args, nil)
			if res.IsError == tc.ok || (!tc.ok && !strings.Contains(textOf(res), "403")) {
				t.Errorf("isError %v, text %q; want allowed=%v (refusals are 403s)", res.IsError, textOf(res), tc.ok)
			}
		})
	}

	// Over streamable HTTP at /mcp: no key is a 401, a key works within its scope.
	ctx := context.Background()
	connect := func(key string) (*mcp.ClientSession, error) {
		hc := &http.Client{Transport: bearer{key}}
		return mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx,
			&mcp.StreamableClientTransport{Endpoint: f.url + "/mcp", HTTPClient: hc, DisableStandaloneSSE: true, MaxRetries: -1}, nil)
	}
	if cs, err := connect(""); err == nil {
		_ = cs.Close()
		t.Fatal("connected to /mcp without a key")
	}
	cs, err := connect(f.writeKey)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if res := call(t, cs, "add_facts", map[string]any{"namespace": "acme/users/eve", "facts": facts}, nil); res.IsError {
		t.Errorf("over HTTP inside the prefix: %s", textOf(res))
	}
	if res := call(t, cs, "search_memory", map[string]any{"namespace": "acme/admins", "query": "Eve"}, nil); !res.IsError || !strings.Contains(textOf(res), "403") {
		t.Errorf("over HTTP outside the prefix: isError %v %s", res.IsError, textOf(res))
	}
}

// TestFixedNamespace checks a server started for one namespace: its tools
// take no namespace argument and work there.
func TestFixedNamespace(t *testing.T) {
	f := newFixture(t)
	cs := f.session(f.writeKey, "acme/users/zoe")
	list, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range list.Tools {
		if strings.Contains(string(mustJSON(t, tool.InputSchema)), `"namespace"`) {
			t.Errorf("tool %s still takes a namespace", tool.Name)
		}
	}
	call(t, cs, "add_facts", map[string]any{"facts": []map[string]any{{"subject": "Zoe", "predicate": "plays", "object": "chess"}}}, nil)
	var found mcpserver.SearchMemoryOut
	if res := call(t, cs, "search_memory", map[string]any{"query": "What does Zoe play?"}, &found); res.IsError || len(found.Facts) == 0 {
		t.Fatalf("search in the fixed namespace: %s", textOf(res))
	}
	if _, err := mcpserver.New(mcpserver.Options{Namespace: "../bad", Client: func(http.Header) (*client.Client, error) { return nil, nil }}); err == nil {
		t.Error("New accepted an invalid namespace")
	}
}

// bearer adds an API key to every request.
type bearer struct{ key string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	if b.key != "" {
		r.Header.Set("Authorization", "Bearer "+b.key)
	}
	return http.DefaultTransport.RoundTrip(r)
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	raw, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return raw
}
