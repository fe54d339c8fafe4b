package client_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"reflect"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/api/wire"
	"github.com/kgmem/kgmem/client"
	"github.com/kgmem/kgmem/internal/openapidoc"
)

// methodName is the client method of an operation: its operationId with
// the first letter upper-cased, as docs/reference/vocabulary.md says, and
// Go's spelling of an initialism.
func methodName(operationID string) string {
	if operationID == "openapi" {
		return "OpenAPI"
	}
	return strings.ToUpper(operationID[:1]) + operationID[1:]
}

// TestEveryRoute fails when a route of api/openapi.json (the route table
// of api/routes.go, as go generate publishes it) has no client method of
// the same name (methodName), context-first.
func TestEveryRoute(t *testing.T) {
	ops, err := openapidoc.Operations("../api/openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	typ := reflect.TypeFor[*client.Client]()
	ctxType := reflect.TypeFor[context.Context]()
	for _, op := range ops {
		name := methodName(op.ID)
		m, ok := typ.MethodByName(name)
		if !ok || m.Type.NumIn() < 2 || m.Type.In(1) != ctxType {
			t.Errorf("%s %s: client method %s missing or not context-first", op.Method, op.Path, name)
		}
	}
}

// TestAgainstServer calls every route of a real server through the client.
func TestAgainstServer(t *testing.T) {
	ctx := context.Background()
	c := newServer(t)
	ns := kgmem.Namespace("client/alice")

	if h, err := c.Healthz(ctx); err != nil || h.Status != "ok" {
		t.Fatalf("Healthz: %+v %v", h, err)
	}
	if h, err := c.Readyz(ctx); err != nil || h.Status != "ready" {
		t.Fatalf("Readyz: %+v %v", h, err)
	}
	if doc, err := c.OpenAPI(ctx); err != nil || !json.Valid(doc) {
		t.Fatalf("OpenAPI: %d bytes, %v", len(doc), err)
	}
	if m, err := c.Metrics(ctx); err != nil || !strings.Contains(string(m), "go_goroutines") {
		t.Fatalf("Metrics: %d bytes, %v", len(m), err)
	}

	msgs := wire.MemoriesRequest{Namespace: ns, ThreadID: "t1", Messages: []wire.Message{
		{ID: "m1", Role: "user", Name: "Alice", Content: "I moved to Berlin in March.", Timestamp: "2024-03-02T10:00:00Z"},
		{ID: "m2", Role: "user", Name: "Alice", Content: "Bob now leads the ML team.", Timestamp: "2024-03-02T10:01:00Z"},
		{ID: "m3", Role: "user", Name: "Alice", Content: "We hiked in the Alps.", Timestamp: "2024-03-02T10:02:00Z"},
	}}
	res, created, err := c.AddMemories(ctx, msgs)
	if err != nil || !created || len(res.Episodes) != 3 {
		t.Fatalf("Ingest: created %v, %d episodes, %v", created, len(res.Episodes), err)
	}
	if _, created, err := c.AddMemories(ctx, msgs); err != nil || created {
		t.Fatalf("Ingest again: created %v (want false: a re-post), %v", created, err)
	}
	if _, _, err := c.AddMemories(ctx, wire.MemoriesRequest{Namespace: ns, Mode: wire.ModeAsync, Messages: msgs.Messages}); !errors.Is(err, kgmem.ErrInvalid) {
		t.Errorf("Ingest with mode async: %v, want ErrInvalid (IngestAsync is the method)", err)
	}

	job, err := c.AddMemoriesAsync(ctx, wire.MemoriesRequest{Namespace: ns, ThreadID: "t2", Messages: []wire.Message{{ID: "m4", Content: "Carol joined the NLP project."}}})
	if err != nil || job.ID == "" {
		t.Fatalf("IngestAsync: %+v %v", job, err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for job.Status != kgmem.JobSucceeded {
		if job.Status == kgmem.JobFailed || time.Now().After(deadline) {
			t.Fatalf("job %s: %s %s", job.ID, job.Status, job.Error)
		}
		if job, err = c.GetJob(ctx, ns, job.ID); err != nil {
			t.Fatal(err)
		}
	}
	if list, err := c.ListJobs(ctx, ns, 10); err != nil || len(list) != 1 || list[0].ID != job.ID {
		t.Fatalf("ListJobs: %+v %v", list, err)
	}

	added, err := c.AddFacts(ctx, wire.FactsRequest{Namespace: ns, Facts: []wire.Triple{
		{Subject: "Alice", Predicate: "lives in", Object: "Paris", ValidAt: "2020-01-01"},
		{Subject: "Alice", Predicate: "lives in", Object: "Berlin", ValidAt: "2024-03-01"},
		{Subject: "Bob", Predicate: "leads", Object: "ML team"},
	}})
	if err != nil || len(added.Facts) < 3 {
		t.Fatalf("AddFacts: %+v %v", added, err)
	}
	var facts []string
	for f, err := range c.Facts(ctx, client.FactQuery{Namespace: ns, Limit: 1}) {
		if err != nil {
			t.Fatal(err)
		}
		facts = append(facts, f.Fact.Text+" "+string(f.Status))
	}
	if len(facts) != 3 || !slices.Contains(facts, "Alice lives in Paris. invalidated") {
		t.Errorf("Facts, one per page: %q", facts)
	}
	current, err := c.ListFacts(ctx, client.FactQuery{Namespace: ns, CurrentOnly: true, Entity: "Alice"})
	if err != nil || len(current.Facts) != 1 || current.Facts[0].ObjectName != "Berlin" {
		t.Fatalf("ListFacts current of Alice: %+v %v", current, err)
	}
	asOf, err := c.ListFacts(ctx, client.FactQuery{Namespace: ns, AsOf: time.Date(2021, 1, 1, 0, 0, 0, 0, time.UTC), Entity: "Alice"})
	if err != nil || len(asOf.Facts) != 1 || asOf.Facts[0].ObjectName != "Paris" {
		t.Fatalf("ListFacts as of 2021: %+v %v", asOf, err)
	}
	berlin := current.Facts[0]
	if f, err := c.GetFact(ctx, ns, berlin.ID); err != nil || f.ID != berlin.ID {
		t.Fatalf("GetFact: %+v %v", f, err)
	}

	var names []string
	for e, err := range c.Entities(ctx, client.EntityQuery{Namespace: ns, Limit: 2}) {
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, e.Name)
	}
	if !slices.Contains(names, "Alice") || !slices.Contains(names, "ML team") {
		t.Errorf("Entities, two per page: %q", names)
	}
	alice, err := c.ListEntities(ctx, client.EntityQuery{Namespace: ns, Q: "alice"})
	if err != nil || len(alice.Entities) != 1 {
		t.Fatalf("ListEntities q=alice: %+v %v", alice, err)
	}
	if e, err := c.GetEntity(ctx, ns, alice.Entities[0].ID); err != nil || e.Name != "Alice" {
		t.Fatalf("GetEntity: %+v %v", e, err)
	}

	var said []string
	for ep, err := range c.Episodes(ctx, client.EpisodeQuery{Namespace: ns, Limit: 2}) {
		if err != nil {
			t.Fatal(err)
		}
		said = append(said, ep.Content)
	}
	if len(said) != 4 {
		t.Errorf("Episodes, two per page: %q", said)
	}
	if two, err := c.ListEpisodes(ctx, client.EpisodeQuery{Namespace: ns, IDs: []string{res.Episodes[2].ID, res.Episodes[0].ID}}); err != nil ||
		len(two.Episodes) != 2 || two.Episodes[0].ID != res.Episodes[2].ID {
		t.Fatalf("ListEpisodes by id: %+v %v", two, err)
	}

	no := false
	found, err := c.Search(ctx, wire.SearchRequest{Namespace: ns, Query: "Who leads the ML team?", Reinforce: &no})
	if err != nil || len(found.Facts) == 0 || found.Facts[0].Text != "Bob leads ML team." || found.Context == "" {
		t.Fatalf("Search: %+v %v", found.Facts, err)
	}

	refs := []wire.Ref{{Kind: kgmem.KindFact, ID: berlin.ID}}
	if p, err := c.Pin(ctx, ns, refs, true); err != nil || !p.Pinned || p.Records != 1 {
		t.Fatalf("Pin: %+v %v", p, err)
	}
	if st, err := c.Strength(ctx, ns, refs); err != nil || len(st) != 1 || !st[0].Pinned || st[0].Retention != 1 {
		t.Fatalf("Strength of a pinned fact: %+v %v", st, err)
	}
	if p, err := c.Pin(ctx, ns, refs, false); err != nil || p.Pinned {
		t.Fatalf("Unpin: %+v %v", p, err)
	}
	if fb, err := c.Feedback(ctx, ns, refs); err != nil || fb.Reinforced != 1 {
		t.Fatalf("Feedback: %+v %v", fb, err)
	}
	if r, err := c.Restore(ctx, ns, refs); err != nil || r.Restored != 1 {
		t.Fatalf("Restore: %+v %v", r, err)
	}
	if _, err := c.Sweep(ctx, ns); err != nil {
		t.Fatalf("Sweep: %v", err)
	}

	set, err := c.PutSettings(ctx, ns, wire.Settings{Cardinality: map[string]kgmem.Cardinality{"drives": "one_object"}})
	if err != nil || set.Cardinality["drives"] != "one_object" {
		t.Fatalf("PutSettings: %+v %v", set, err)
	}
	if got, err := c.GetSettings(ctx, ns); err != nil || got.Cardinality["drives"] != "one_object" || len(got.Decay) == 0 {
		t.Fatalf("GetSettings: %+v %v", got, err)
	}
	if list, err := c.ListNamespaces(ctx); err != nil || !slices.Contains(list.Namespaces, ns) {
		t.Fatalf("ListNamespaces: %+v %v", list, err)
	}

	if err := c.DeleteFact(ctx, ns, berlin.ID); err != nil {
		t.Fatalf("DeleteFact: %v", err)
	}
	var e *client.Error
	if _, err := c.GetFact(ctx, ns, berlin.ID); !errors.As(err, &e) || e.Status != http.StatusNotFound {
		t.Fatalf("GetFact after DeleteFact: %v, want a 404 *client.Error", err)
	}
	purged, err := c.PurgeNamespace(ctx, ns)
	if err != nil || purged.Namespace != ns || purged.Deleted.Episodes != 4 {
		t.Fatalf("PurgeNamespace: %+v %v", purged, err)
	}
}

// TestProblemErrors checks that the server's problem answers come back as
// *client.Error with the status, the field at fault and the detail.
func TestProblemErrors(t *testing.T) {
	ctx := context.Background()
	c := newServer(t)
	tests := []struct {
		name   string
		call   func() error
		status int
		field  string
	}{
		{"empty content", func() error {
			_, _, err := c.AddMemories(ctx, wire.MemoriesRequest{Namespace: "client/x", Messages: []wire.Message{{Content: ""}}})
			return err
		}, http.StatusBadRequest, "messages[0].content"},
		{"bad namespace", func() error {
			_, err := c.Search(ctx, wire.SearchRequest{Namespace: "../x", Query: "q"})
			return err
		}, http.StatusBadRequest, "namespace"},
		{"bad time", func() error {
			_, err := c.AddFacts(ctx, wire.FactsRequest{Namespace: "client/x", Facts: []wire.Triple{{Subject: "a", Predicate: "p", Object: "b", ValidAt: "yesterday-ish"}}})
			return err
		}, http.StatusBadRequest, "facts[0].valid_at"},
		{"unknown fact", func() error {
			_, err := c.GetFact(ctx, "client/x", "fact_missing")
			return err
		}, http.StatusNotFound, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.call()
			var e *client.Error
			if !errors.As(err, &e) {
				t.Fatalf("error %v (%T), want a *client.Error", err, err)
			}
			if e.Status != tc.status || e.Field != tc.field || e.Detail == "" {
				t.Errorf("got status %d field %q detail %q, want %d %q and a detail", e.Status, e.Field, e.Detail, tc.status, tc.field)
			}
		})
	}
}

// TestRetries pins the retry rule: 429 and 503 are retried within the
// budget, honouring Retry-After; other errors and a Retry-After past the
// longest wait are not.
func TestRetries(t *testing.T) {
	tests := []struct {
		name       string
		answers    []int  // statuses the server gives, in order; then 200
		retryAfter string // the Retry-After of the error answers
		opts       []client.Option
		wantCalls  int32
		wantStatus int // of the error returned; 0: success
	}{
		{"429 then success", []int{429}, "0", nil, 2, 0},
		{"503 twice then success", []int{503, 503}, "", []client.Option{client.WithRetries(3, time.Millisecond)}, 3, 0},
		{"budget spent", []int{503, 503, 503}, "0", []client.Option{client.WithRetries(2, time.Millisecond)}, 3, 503},
		{"no retries", []int{429}, "0", []client.Option{client.WithRetries(0, time.Millisecond)}, 1, 429},
		{"400 is not retried", []int{400}, "0", nil, 1, 400},
		{"500 is not retried", []int{500}, "0", nil, 1, 500},
		{"Retry-After past the longest wait", []int{429}, "3600", nil, 1, 429},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var calls atomic.Int32
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				n := int(calls.Add(1))
				if n <= len(tc.answers) {
					if tc.retryAfter != "" {
						w.Header().Set("Retry-After", tc.retryAfter)
					}
					w.Header().Set("Content-Type", "application/problem+json")
					w.WriteHeader(tc.answers[n-1])
					_, _ = fmt.Fprintf(w, `{"title":"busy","status":%d,"detail":"try later"}`, tc.answers[n-1])
					return
				}
				w.Header().Set("Content-Type", "application/json")
				_, _ = w.Write([]byte(`{"status":"ok"}`))
			}))
			defer srv.Close()
			c, err := client.New(srv.URL, tc.opts...)
			if err != nil {
				t.Fatal(err)
			}
			_, err = c.Healthz(context.Background())
			if got := calls.Load(); got != tc.wantCalls {
				t.Errorf("%d calls, want %d", got, tc.wantCalls)
			}
			var e *client.Error
			switch {
			case tc.wantStatus == 0 && err != nil:
				t.Errorf("error %v, want success", err)
			case tc.wantStatus != 0 && (!errors.As(err, &e) || e.Status != tc.wantStatus):
				t.Errorf("error %v, want a *client.Error with status %d", err, tc.wantStatus)
			}
		})
	}
}

// TestRetryWaitHonoursContext checks that a cancelled context ends the wait
// before a retry.
func TestRetryWaitHonoursContext(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Retry-After", "20")
		w.WriteHeader(http.StatusTooManyRequests)
	}))
	defer srv.Close()
	c, err := client.New(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = c.Healthz(ctx)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("error %v, want context.Canceled", err)
	}
}

// TestRequestHeaders checks the key, the content type and the path escaping
// of namespaces with slashes.
func TestRequestHeaders(t *testing.T) {
	var got *http.Request
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = r.Clone(context.Background())
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{}`))
	}))
	defer srv.Close()
	c, err := client.New(srv.URL+"/prefix/", client.WithAPIKey("kgm_secret"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.PutSettings(context.Background(), "acme/users", wire.Settings{}); err != nil {
		t.Fatal(err)
	}
	if got.Header.Get("Authorization") != "Bearer kgm_secret" || got.Header.Get("Content-Type") != "application/json" {
		t.Errorf("headers %v", got.Header)
	}
	if got.Method != http.MethodPut || got.URL.EscapedPath() != "/prefix/v1/namespaces/acme%2Fusers/settings" {
		t.Errorf("request %s %s", got.Method, got.URL.EscapedPath())
	}
}

// TestNewRejectsBadURLs checks the base URL rule.
func TestNewRejectsBadURLs(t *testing.T) {
	for _, raw := range []string{"", "127.0.0.1:8080", "ftp://host", "http://", "http://[::1"} {
		if _, err := client.New(raw); !errors.Is(err, client.ErrBaseURL) {
			t.Errorf("New(%q): %v, want ErrBaseURL", raw, err)
		}
	}
}

// TestErrorKinds checks that answers and transport failures match kgmem's
// error kinds with errors.Is.
func TestErrorKinds(t *testing.T) {
	ctx := context.Background()
	c := newServer(t)
	if _, err := c.GetFact(ctx, "client/x", "fact_missing"); !errors.Is(err, kgmem.ErrNotFound) {
		t.Errorf("a 404: %v, want kgmem.ErrNotFound", err)
	}
	if _, err := c.Search(ctx, wire.SearchRequest{Namespace: "client/x"}); !errors.Is(err, kgmem.ErrInvalid) {
		t.Errorf("a 400: %v, want kgmem.ErrInvalid", err)
	}
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close()
	gone, err := client.New(url, client.WithRetries(0, 0))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := gone.Healthz(ctx); !errors.Is(err, kgmem.ErrUnavailable) || !strings.Contains(err.Error(), "go run ./cmd/server") {
		t.Errorf("no server: %v, want kgmem.ErrUnavailable saying how to start one", err)
	}
}

// TestWithHandler checks the in-process transport against the server's handler.
func TestWithHandler(t *testing.T) {
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/healthz" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"status":"ok"}`))
	})
	c, err := client.New("http://kgmem.in-process", client.WithHandler(h))
	if err != nil {
		t.Fatal(err)
	}
	if got, err := c.Healthz(context.Background()); err != nil || got.Status != "ok" {
		t.Fatalf("Healthz in process: %+v %v", got, err)
	}
	if _, err := c.Readyz(context.Background()); !errors.Is(err, kgmem.ErrNotFound) {
		t.Fatalf("an unknown route in process: %v, want kgmem.ErrNotFound", err)
	}
}

// TestRetryHook checks that the hook sees every retry with its wait.
func TestRetryHook(t *testing.T) {
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if calls.Add(1) <= 2 {
			w.Header().Set("Retry-After", "0")
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		_, _ = w.Write([]byte(`{"status":"ok"}`))
	}))
	defer srv.Close()
	var seen []int
	c, err := client.New(srv.URL, client.WithRetryHook(func(err error, wait time.Duration) {
		var e *client.Error
		if errors.As(err, &e) {
			seen = append(seen, e.Status)
		}
	}))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Healthz(context.Background()); err != nil || !slices.Equal(seen, []int{503, 503}) {
		t.Errorf("error %v, hook saw %v; want success after two 503s", err, seen)
	}
}
