package memory_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/api"
	"github.com/kgmem/kgmem/embed"
	"github.com/kgmem/kgmem/graph/neo4j"
	"github.com/kgmem/kgmem/graph/sqlite"
	"github.com/kgmem/kgmem/internal/testenv"
	"github.com/kgmem/kgmem/memory"
	"github.com/kgmem/kgmem/vector/hnsw"
	"github.com/kgmem/kgmem/vector/milvus"
)

// TestScenarios runs the public scenario suite: every *.json file under
// testdata/scenarios holds a JSON array of cases, each run through the REST
// API (an httptest server over the engine) on every backend pair — the
// embedded SQLite + HNSW always, Neo4j + Milvus when scripts/test.sh started
// them (required in CI) — each case in its own namespace.
//
// # Case format
//
//	{
//	  "name":     "a late employer takes its place",     unique within its file
//	  "rule":     "ordering",                             what it covers (free text, for reports)
//	  "group":    "",                                     "" runs always; any other group runs only when
//	                                                      KGMEM_SCENARIO_GROUPS (comma-separated) names it
//	  "settings": {...},                                  optional PUT /v1/namespaces/{ns}/settings body
//	  "messages": [...],                                  optional POST /v1/memories "messages" (thread "t"), first
//	  "steps": [                                          POST /v1/facts requests, in order
//	    {"facts": [{"subject": "Kim", "predicate": "works at", "object": "Acme",
//	                "fact": "Kim works at Acme.", "valid_at": "2019-01-01"}],
//	     "status": 422, "field": "facts[0].predicate",    optional: the expected problem (nothing stored)
//	     "ops": ["added"]}                                optional: the ops of the response, in order
//	  ],
//	  "permute": true,                                    run every fact of every step as its own request, in the
//	                                                      given order, reversed and in 4 seeded shuffles; every
//	                                                      expectation must hold after each order
//	  "expect": {
//	    "facts":    [{"fact": "Kim works at Acme.", "status": "invalidated",
//	                  "valid_at": "2019-01-01", "invalid_at": "2021-03-01"}],
//	                                                      the complete GET /v1/facts listing (any order); a time
//	                                                      given as "" must be unset, an absent one is not checked
//	    "current":  ["Kim works at Initech."],            exactly the texts of GET /v1/facts?current_only=true
//	    "as_of":    [{"at": "2020-06-01", "facts": ["Kim works at Acme."]}],
//	                                                      exactly the texts of GET /v1/facts?as_of=at
//	    "entities": ["Kim", "Acme"],                      exactly the entity display names (GET /v1/entities)
//	    "search":   [{"query": "Where does Kim work?", "first": "Kim works at Initech.",
//	                  "status": "current", "absent": ["..."], "as_of": "", "include_history": false}]
//	                                                      POST /v1/search over facts: the first fact's text and
//	                                                      status; texts that must not be returned
//	  }
//	}
//
// Fact texts identify facts, so give every posted fact a distinct "fact"
// text. Times are RFC 3339 or dates. The server runs on the wall clock:
// use past dates for history and dates after 2100 for facts not yet true.
// Another file of the same format (for instance search cases) is picked up
// by adding it to the directory.
func TestScenarios(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "scenarios", "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no scenario files: %v", err)
	}
	type named struct {
		file string
		c    scenario
	}
	var cases []named
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var cs []scenario
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&cs); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		for _, c := range cs {
			cases = append(cases, named{filepath.Base(f), c})
		}
	}
	groups := strings.Split(os.Getenv("KGMEM_SCENARIO_GROUPS"), ",")
	for _, b := range scenarioBackends(t) {
		t.Run(b.name, func(t *testing.T) {
			srv := b.open(t)
			for i, nc := range cases {
				if nc.c.Group != "" && !slices.Contains(groups, nc.c.Group) {
					continue
				}
				t.Run(strings.TrimSuffix(nc.file, ".json")+"/"+nc.c.Name, func(t *testing.T) {
					srv.run(t, fmt.Sprintf("scen/%s/c%d", kgmem.NewID("r")[2:14], i), nc.c)
				})
			}
		})
	}
}

// scenario is one case; see TestScenarios.
type scenario struct {
	Name     string          `json:"name"`
	Rule     string          `json:"rule"`
	Group    string          `json:"group"`
	Settings json.RawMessage `json:"settings"`
	Messages json.RawMessage `json:"messages"`
	Steps    []scenarioStep  `json:"steps"`
	Permute  bool            `json:"permute"`
	Expect   scenarioExpect  `json:"expect"`
}

type scenarioStep struct {
	Facts  []json.RawMessage `json:"facts"`
	Status int               `json:"status"`
	Field  string            `json:"field"`
	Ops    []string          `json:"ops"`
}

type scenarioExpect struct {
	Facts    []expectFact   `json:"facts"`
	Current  []string       `json:"current"`
	AsOf     []expectAsOf   `json:"as_of"`
	Entities []string       `json:"entities"`
	Search   []expectSearch `json:"search"`
}

type expectFact struct {
	Fact      string  `json:"fact"`
	Status    string  `json:"status"`
	ValidAt   *string `json:"valid_at"`
	InvalidAt *string `json:"invalid_at"`
}

type expectAsOf struct {
	At    string   `json:"at"`
	Facts []string `json:"facts"`
}

type expectSearch struct {
	Query          string   `json:"query"`
	First          string   `json:"first"`
	Status         string   `json:"status"`
	Absent         []string `json:"absent"`
	AsOf           string   `json:"as_of"`
	IncludeHistory bool     `json:"include_history"`
}

// scenarioBackend opens a server over one backend pair.
type scenarioBackend struct {
	name string
	open func(t *testing.T) *scenarioServer
}

func scenarioBackends(t *testing.T) []scenarioBackend {
	emb := embed.NewHashing(256)
	serve := func(t *testing.T, g kgmem.GraphStore, v kgmem.VectorIndex) *scenarioServer {
		eng, err := memory.New(memory.Config{Graph: g, Vectors: v, Embedder: emb, Logger: slog.New(slog.DiscardHandler),
			// Scenarios assert ranking, not latency: a loaded CI machine must
			// not drop a retriever at the default two-second deadline.
			Search: memory.SearchOptions{Timeout: time.Minute, RetrieverTimeout: time.Minute}})
		if err != nil {
			t.Fatal(err)
		}
		srv := httptest.NewServer(api.New(eng, api.Options{}, slog.New(slog.DiscardHandler)).Handler())
		t.Cleanup(func() {
			srv.Close()
			ctx := context.Background()
			if nss, err := g.Namespaces(ctx); err == nil {
				for _, ns := range nss {
					_, _ = eng.PurgeNamespace(ctx, ns)
				}
			}
		})
		return &scenarioServer{url: srv.URL}
	}
	out := []scenarioBackend{{name: "sqlite+hnsw", open: func(t *testing.T) *scenarioServer {
		dir := t.TempDir()
		g, err := sqlite.Open(t.Context(), filepath.Join(dir, "graph.db"))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = g.Close() })
		v, err := hnsw.Open(t.Context(), filepath.Join(dir, "vectors.db"), emb.Dimension(), hnsw.Options{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = v.Close() })
		return serve(t, g, v)
	}}}
	uri, addr := testenv.Neo4jURIIfAvailable(t), testenv.MilvusAddrIfAvailable(t)
	if uri != "" && addr != "" {
		out = append(out, scenarioBackend{name: "neo4j+milvus", open: func(t *testing.T) *scenarioServer {
			suffix := strings.ReplaceAll(kgmem.NewID("t"), "_", "")
			g, err := neo4j.Open(t.Context(), neo4j.Config{URI: uri, Scope: "scen" + suffix})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = g.Close() })
			v, err := milvus.Open(t.Context(), milvus.Config{Address: addr, Collection: "scen_" + suffix, Dim: emb.Dimension(), ConsistencyLevel: milvus.Strong})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() {
				_ = v.Drop(context.Background())
				_ = v.Close()
			})
			return serve(t, g, v)
		}})
	}
	return out
}

// scenarioServer is the REST API of one backend pair.
type scenarioServer struct{ url string }

// call sends a JSON request and decodes the answer into out; it returns the status.
func (s *scenarioServer) call(t *testing.T, method, path string, body, out any) int {
	t.Helper()
	var rd io.Reader
	if body != nil {
		raw, err := json.Marshal(body)
		if err != nil {
			t.Fatal(err)
		}
		rd = bytes.NewReader(raw)
	}
	req, err := http.NewRequestWithContext(t.Context(), method, s.url+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if out != nil {
		if err := json.Unmarshal(raw, out); err != nil {
			t.Fatalf("%s %s: %d %s: %v", method, path, resp.StatusCode, raw, err)
		}
	}
	if resp.StatusCode >= 500 {
		t.Fatalf("%s %s: %d %s", method, path, resp.StatusCode, raw)
	}
	return resp.StatusCode
}

// run runs one case: once, or in several orders when it permutes.
func (s *scenarioServer) run(t *testing.T, ns string, c scenario) {
	if !c.Permute {
		s.runOrder(t, ns, c, c.Steps)
		return
	}
	var all []json.RawMessage
	for _, st := range c.Steps {
		all = append(all, st.Facts...)
	}
	for i, order := range orders(len(all), c.Name) {
		steps := make([]scenarioStep, len(order))
		for j, k := range order {
			steps[j] = scenarioStep{Facts: []json.RawMessage{all[k]}}
		}
		t.Run(fmt.Sprintf("order%d", i), func(t *testing.T) {
			t.Logf("order %v", order)
			s.runOrder(t, fmt.Sprintf("%s/o%d", ns, i), c, steps)
		})
	}
}

// orders returns the given order, its reverse and up to 4 distinct seeded
// shuffles (seeded by the case name, so a failure reproduces).
func orders(n int, name string) [][]int {
	given := make([]int, n)
	for i := range given {
		given[i] = i
	}
	rev := slices.Clone(given)
	slices.Reverse(rev)
	out := [][]int{given}
	add := func(o []int) {
		for _, have := range out {
			if slices.Equal(have, o) {
				return
			}
		}
		out = append(out, o)
	}
	add(rev)
	var seed uint64
	for _, r := range name {
		seed = seed*31 + uint64(r)
	}
	rng := rand.New(rand.NewPCG(seed, 17))
	for range 4 {
		o := slices.Clone(given)
		rng.Shuffle(n, func(i, j int) { o[i], o[j] = o[j], o[i] })
		add(o)
	}
	return out
}

// factView is the part of a listed fact the expectations read.
type factView struct {
	Text      string `json:"fact"`
	Status    string `json:"status"`
	ValidAt   string `json:"valid_at"`
	InvalidAt string `json:"invalid_at"`
}

func (s *scenarioServer) runOrder(t *testing.T, ns string, c scenario, steps []scenarioStep) {
	t.Helper()
	q := url.QueryEscape(ns)
	if len(c.Settings) > 0 {
		if st := s.call(t, "PUT", "/v1/namespaces/"+q+"/settings", c.Settings, nil); st != 200 {
			t.Fatalf("PUT settings: %d", st)
		}
	}
	if len(c.Messages) > 0 {
		body := map[string]any{"namespace": ns, "thread_id": "t", "messages": c.Messages}
		if st := s.call(t, "POST", "/v1/memories", body, nil); st != 200 && st != 201 {
			t.Fatalf("POST /v1/memories: %d", st)
		}
	}
	for i, st := range steps {
		var res struct {
			Facts []struct {
				Op string `json:"op"`
			} `json:"facts"`
			Field  string `json:"field"`
			Detail string `json:"detail"`
		}
		code := s.call(t, "POST", "/v1/facts", map[string]any{"namespace": ns, "facts": st.Facts}, &res)
		want := st.Status
		if want == 0 { // success: 201 when the step created a fact, else 200
			want = 200
			if slices.ContainsFunc(res.Facts, func(f struct {
				Op string `json:"op"`
			}) bool {
				return f.Op == "added"
			}) {
				want = 201
			}
		}
		if code != want || st.Field != "" && res.Field != st.Field {
			t.Fatalf("step %d: status %d field %q (%s), want %d field %q", i, code, res.Field, res.Detail, want, st.Field)
		}
		if (code == 400 || code == 422) && res.Detail == "" {
			t.Errorf("step %d: 400 without a detail", i)
		}
		if st.Ops != nil {
			var ops []string
			for _, f := range res.Facts {
				ops = append(ops, f.Op)
			}
			if !slices.Equal(ops, st.Ops) {
				t.Errorf("step %d: ops %v, want %v", i, ops, st.Ops)
			}
		}
	}
	list := func(query string) []factView {
		var out struct {
			Facts []factView `json:"facts"`
		}
		if st := s.call(t, "GET", "/v1/facts?limit=1000&namespace="+q+query, nil, &out); st != 200 {
			t.Fatalf("GET /v1/facts%s: %d", query, st)
		}
		return out.Facts
	}
	texts := func(fs []factView) []string {
		out := []string{}
		for _, f := range fs {
			out = append(out, f.Text)
		}
		slices.Sort(out)
		return out
	}
	sameSet := func(what string, got, want []string) {
		t.Helper()
		want = slices.Clone(want)
		if want == nil {
			want = []string{}
		}
		slices.Sort(want)
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Errorf("%s = %q, want %q", what, got, want)
		}
	}
	e := c.Expect
	if e.Facts != nil {
		got := list("")
		if len(got) != len(e.Facts) {
			t.Errorf("%d facts listed, want %d: %+v", len(got), len(e.Facts), got)
		}
		for _, w := range e.Facts {
			i := slices.IndexFunc(got, func(f factView) bool { return f.Text == w.Fact })
			if i < 0 {
				t.Errorf("fact %q not listed: %+v", w.Fact, got)
				continue
			}
			f := got[i]
			if w.Status != "" && f.Status != w.Status {
				t.Errorf("%q: status %s, want %s", w.Fact, f.Status, w.Status)
			}
			checkTime(t, w.Fact+" valid_at", f.ValidAt, w.ValidAt)
			checkTime(t, w.Fact+" invalid_at", f.InvalidAt, w.InvalidAt)
		}
	}
	if e.Current != nil {
		sameSet("current_only", texts(list("&current_only=true")), e.Current)
	}
	for _, a := range e.AsOf {
		sameSet("as_of "+a.At, texts(list("&as_of="+url.QueryEscape(a.At))), a.Facts)
	}
	if e.Entities != nil {
		var out struct {
			Entities []struct {
				Name string `json:"name"`
			} `json:"entities"`
		}
		if st := s.call(t, "GET", "/v1/entities?limit=1000&namespace="+q, nil, &out); st != 200 {
			t.Fatalf("GET /v1/entities: %d", st)
		}
		var names []string
		for _, en := range out.Entities {
			names = append(names, en.Name)
		}
		sameSet("entities", names, e.Entities)
	}
	for _, sq := range e.Search {
		body := map[string]any{"namespace": ns, "query": sq.Query, "include": []string{"facts"}, "limit": 10,
			"include_history": sq.IncludeHistory, "reinforce": false}
		if sq.AsOf != "" {
			body["as_of"] = sq.AsOf
		}
		var res struct {
			Facts []factView `json:"facts"`
		}
		if st := s.call(t, "POST", "/v1/search", body, &res); st != 200 {
			t.Fatalf("search %q: %d", sq.Query, st)
		}
		if sq.First != "" {
			if len(res.Facts) == 0 || res.Facts[0].Text != sq.First {
				t.Errorf("search %q: first %q, want %q", sq.Query, texts(res.Facts), sq.First)
			} else if sq.Status != "" && res.Facts[0].Status != sq.Status {
				t.Errorf("search %q: first is %s, want %s", sq.Query, res.Facts[0].Status, sq.Status)
			}
		}
		for _, a := range sq.Absent {
			if slices.ContainsFunc(res.Facts, func(f factView) bool { return f.Text == a }) {
				t.Errorf("search %q returned %q", sq.Query, a)
			}
		}
	}
}

// checkTime compares a listed time with an expected one: nil is not
// checked, "" must be unset, anything else names the same instant.
func checkTime(t *testing.T, what, got string, want *string) {
	t.Helper()
	if want == nil {
		return
	}
	if *want == "" || got == "" {
		if *want != got {
			t.Errorf("%s = %q, want %q", what, got, *want)
		}
		return
	}
	g, err1 := parseAnyTime(got)
	w, err2 := parseAnyTime(*want)
	if err1 != nil || err2 != nil || !g.Equal(w) {
		t.Errorf("%s = %q, want %q", what, got, *want)
	}
}

// parseAnyTime reads RFC 3339 or a date.
func parseAnyTime(s string) (time.Time, error) {
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t, nil
	}
	return time.Parse(time.DateOnly, s)
}
