package mcpserver_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/api"
	"github.com/kgmem/kgmem/api/wire"
	"github.com/kgmem/kgmem/client"
	"github.com/kgmem/kgmem/decay"
	"github.com/kgmem/kgmem/embed"
	"github.com/kgmem/kgmem/graph/sqlite"
	"github.com/kgmem/kgmem/internal/nslock"
	"github.com/kgmem/kgmem/mcpserver"
	"github.com/kgmem/kgmem/memory"
	"github.com/kgmem/kgmem/vector/hnsw"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestToolSchemasArePortable checks what hosts and the MCP Inspector read
// of every tool: plain (never union) types in the input and output schemas,
// the API's limits declared, and the closed-world and read-only hints.
func TestToolSchemasArePortable(t *testing.T) {
	f := newFixture(t)
	list, err := f.session(adminKey, "").ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	readOnly := map[string]bool{"search_memory": true, "get_entity": true, "list_entities": true, "get_instructions": true, "list_instruction_versions": true}
	byName := map[string]*mcp.Tool{}
	for _, tool := range list.Tools {
		byName[tool.Name] = tool
		for what, schema := range map[string]any{"input": tool.InputSchema, "output": tool.OutputSchema} {
			var doc any
			if err := json.Unmarshal(mustJSON(t, schema), &doc); err != nil {
				t.Fatal(err)
			}
			for _, path := range unionTypes(doc, "") {
				t.Errorf("tool %s: %s schema has a union type at %s", tool.Name, what, path)
			}
		}
		a := tool.Annotations
		if a == nil || a.OpenWorldHint == nil || *a.OpenWorldHint {
			t.Errorf("tool %s: openWorldHint must be false (it touches only this memory): %+v", tool.Name, a)
			continue
		}
		if a.ReadOnlyHint != readOnly[tool.Name] {
			t.Errorf("tool %s: readOnlyHint %v, want %v", tool.Name, a.ReadOnlyHint, readOnly[tool.Name])
		}
	}
	tests := []struct {
		tool, path string
		want       string // a fragment of the property's schema
	}{
		{"search_memory", "limit", `"maximum":100,"minimum":1`},
		{"search_memory", "query", `"maxLength":4096,"minLength":1`},
		{"search_memory", "recipe", `"enum":["default","messages","facts","direct","keyword","semantic"]`},
		{"list_entities", "limit", `"maximum":1000,"minimum":1`},
		{"add_facts", "facts", `"maxItems":1000,"minItems":1`},
		{"add_memories", "messages", `"maxItems":1000`},
		{"add_memories", "extract", `"type":"boolean"`},
		{"confirm_memory", "refs", `"maxItems":1000,"minItems":1`},
		{"pin_memory", "refs", `"enum":["fact","entity","episode","item"]`},
		{"get_entity", "namespace", `"maxLength":519,"minLength":1`},
		{"update_instructions", "prompt", `"maxLength":32768,"minLength":1`},
		{"update_instructions", "name", `"pattern":"^[A-Za-z0-9_.-]*$"`},
		{"restore_instructions", "version", `"minimum":1`},
		{"list_instruction_versions", "limit", `"maximum":100,"minimum":1`},
	}
	for _, tc := range tests {
		var schema struct {
			Properties map[string]json.RawMessage `json:"properties"`
		}
		if err := json.Unmarshal(mustJSON(t, byName[tc.tool].InputSchema), &schema); err != nil {
			t.Fatal(err)
		}
		if got := string(schema.Properties[tc.path]); !strings.Contains(got, tc.want) {
			t.Errorf("%s.%s: schema %s lacks %s", tc.tool, tc.path, got, tc.want)
		}
	}
}

// unionTypes returns the paths in a JSON Schema document where "type" is
// an array.
func unionTypes(v any, path string) []string {
	var out []string
	switch x := v.(type) {
	case map[string]any:
		for k, sub := range x {
			if _, isArray := sub.([]any); k == "type" && isArray {
				out = append(out, path+"/type")
			}
			out = append(out, unionTypes(sub, path+"/"+k)...)
		}
	case []any:
		for _, sub := range x {
			out = append(out, unionTypes(sub, path+"/[]")...)
		}
	}
	return out
}

// TestListEntitiesTypeSynonyms checks that a type filter finds what writes
// stored under it: writes turn Location, city or Company into Place and
// Organization, and so must the filter.
func TestListEntitiesTypeSynonyms(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	ns := kgmem.Namespace("acme/users/tia")
	c, err := client.New("http://kgmem.in-process", client.WithHandler(f.srv.InProcess()), client.WithAPIKey(adminKey))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.AddFacts(ctx, wire.FactsRequest{Namespace: ns, Facts: []wire.Triple{
		{Subject: "Tia", SubjectType: "Person", Predicate: "lives in", Object: "Lisbon", ObjectType: "Location"},
		{Subject: "Tia", SubjectType: "Person", Predicate: "works at", Object: "Acme", ObjectType: "company"},
	}}); err != nil {
		t.Fatal(err)
	}
	cs := f.session(adminKey, ns)
	tests := []struct {
		typ  string
		want string // the one entity found; "" for none
	}{
		{"Location", "Lisbon"},
		{"location", "Lisbon"},
		{"City", "Lisbon"},
		{"Place", "Lisbon"},
		{"Company", "Acme"},
		{"Organization", "Acme"},
		{"person", "Tia"},
		{"Recipe", ""}, // no synonym: matched as given, and nothing is of it
	}
	for _, tc := range tests {
		t.Run(tc.typ, func(t *testing.T) {
			var out mcpserver.ListEntitiesOut
			if res := call(t, cs, "list_entities", map[string]any{"type": tc.typ}, &out); res.IsError {
				t.Fatal(textOf(res))
			}
			var names []string
			for _, e := range out.Entities {
				names = append(names, e.Name)
			}
			if want := []string{tc.want}; (tc.want == "" && len(names) != 0) || (tc.want != "" && strings.Join(names, ",") != want[0]) {
				t.Errorf("type %q found %q, want %q", tc.typ, names, tc.want)
			}
		})
	}
}

// TestSearchMemoryDoesNotReinforce checks that the read-only search_memory
// leaves what it returns as strong as it was, while confirm_memory (not
// read-only) reinforces it: the reinforcement queue is flushed before each
// reading, so a recall the search recorded would show.
func TestSearchMemoryDoesNotReinforce(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	g, err := sqlite.Open(ctx, filepath.Join(dir, "graph.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = g.Close() })
	emb := embed.NewHashing(256)
	v, err := hnsw.Open(ctx, filepath.Join(dir, "vectors.db"), emb.Dimension(), hnsw.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = v.Close() })
	models, locks, quiet := decay.StoreModels(g), new(nslock.Local), slog.New(slog.DiscardHandler)
	clock := &testClock{now: time.Now().UTC()}
	rf, err := decay.NewReinforcer(decay.ReinforcerConfig{Store: g, JournalPath: filepath.Join(dir, "recall.journal"), Models: models,
		Clock: clock, Interval: time.Hour, Logger: quiet, Lock: locks})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = rf.Close(ctx) })
	eng, err := memory.New(memory.Config{Graph: g, Vectors: v, Embedder: emb, Decay: models, Reinforcer: rf, WriteLocks: locks, Logger: quiet, Clock: clock})
	if err != nil {
		t.Fatal(err)
	}
	srv := api.New(eng, api.Options{MaxPageSize: 100}, quiet)
	c, err := client.New("http://kgmem.in-process", client.WithHandler(srv.InProcess()))
	if err != nil {
		t.Fatal(err)
	}
	s, err := mcpserver.New(mcpserver.Options{Namespace: "acme/users/una", Client: func(http.Header) (*client.Client, error) { return c, nil }})
	if err != nil {
		t.Fatal(err)
	}
	st, ct := mcp.NewInMemoryTransports()
	ss, err := s.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close(); _ = ss.Wait() })

	call(t, cs, "add_facts", map[string]any{"facts": []map[string]any{{"subject": "Una", "predicate": "plays", "object": "the oboe"}}}, nil)
	var found mcpserver.SearchMemoryOut
	if res := call(t, cs, "search_memory", map[string]any{"query": "What does Una play?"}, &found); res.IsError || len(found.Facts) != 1 {
		t.Fatalf("search_memory: %s", textOf(res))
	}
	ref := []wire.Ref{{Kind: kgmem.KindFact, ID: found.Facts[0].ID}}
	stability := func() float64 {
		t.Helper()
		if err := rf.Flush(ctx); err != nil {
			t.Fatal(err)
		}
		got, err := c.Strength(ctx, "acme/users/una", ref)
		if err != nil || len(got) != 1 {
			t.Fatalf("strength: %v %+v", err, got)
		}
		return got[0].StabilityDays
	}
	// A recall right after a write adds little; ten days later it would
	// lengthen the stability several times over.
	clock.advance(10 * 24 * time.Hour)
	before := stability()
	for range 3 {
		call(t, cs, "search_memory", map[string]any{"query": "What does Una play?"}, nil)
	}
	if after := stability(); after != before {
		t.Errorf("search_memory (read-only) moved the fact's stability from %v to %v days", before, after)
	}
	call(t, cs, "confirm_memory", map[string]any{"refs": []map[string]any{{"kind": "fact", "id": found.Facts[0].ID}}}, nil)
	if after := stability(); after <= before {
		t.Errorf("confirm_memory left the stability at %v days (was %v): the check above would miss a reinforcement", after, before)
	}
}

// testClock is a clock the test moves forward.
type testClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *testClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *testClock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// TestUnauthorizedMCPGuidesToAPIKey checks the 401 of /mcp without a key:
// its challenge tells the client to send an API key, so MCP clients do not
// start an OAuth login.
func TestUnauthorizedMCPGuidesToAPIKey(t *testing.T) {
	f := newFixture(t)
	resp, err := http.Post(f.url+"/mcp", "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	_ = resp.Body.Close()
	got := resp.Header.Get("WWW-Authenticate")
	if resp.StatusCode != http.StatusUnauthorized || !strings.HasPrefix(got, `Bearer realm="kgmem"`) || !strings.Contains(got, `error_description="`) ||
		!strings.Contains(got, "API key") {
		t.Errorf("POST /mcp without a key: %d, WWW-Authenticate %q; want a 401 whose Bearer challenge says to send an API key", resp.StatusCode, got)
	}
}
