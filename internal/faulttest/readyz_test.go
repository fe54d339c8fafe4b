package faulttest

import (
	"bytes"
	"context"
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
	"github.com/kgmem/kgmem/embed"
	"github.com/kgmem/kgmem/graph/neo4j"
	"github.com/kgmem/kgmem/internal/faultproxy"
	"github.com/kgmem/kgmem/internal/testenv"
	"github.com/kgmem/kgmem/memory"
	"github.com/kgmem/kgmem/vector/hnsw"
)

// TestNeo4jOutageAnswersPromptly stops Neo4j two ways behind a proxy, with
// the store's default 30 s retry budget and the API's 30 s request timeout:
// refusing connections (a stopped Neo4j) and accepting them without ever
// answering (a stalled one). /readyz answers 503 with Retry-After either way,
// and a write answers 503 with Retry-After while connections are refused.
// Each request runs under a deadline that only a request waiting out those
// budgets reaches; the outcome, not the time, is what is checked.
func TestNeo4jOutageAnswersPromptly(t *testing.T) {
	u, err := url.Parse(testenv.Neo4jURI(t))
	if err != nil {
		t.Fatal(err)
	}
	proxy, err := faultproxy.Start(u.Host)
	if err != nil {
		t.Fatal(err)
	}
	defer proxy.Close()
	ctx := context.Background()
	scope := "fault" + strings.ReplaceAll(kgmem.NewID("t"), "_", "")
	g, err := neo4j.Open(ctx, neo4j.Config{URI: "bolt://" + proxy.Addr(), Scope: scope, ConnectTimeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	emb := embed.NewHashing(256)
	v, err := hnsw.Open(ctx, filepath.Join(t.TempDir(), "vectors.db"), emb.Dimension(), hnsw.Options{})
	if err != nil {
		t.Fatal(err)
	}
	quiet := slog.New(slog.DiscardHandler)
	eng, err := memory.New(memory.Config{Graph: g, Vectors: v, Embedder: emb, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(api.New(eng, api.Options{}, quiet).Handler())
	const ns = "fault/prompt"
	defer func() {
		srv.Close()
		_ = proxy.Restore()
		_, _ = eng.PurgeNamespace(context.Background(), ns)
		_, _ = v.Close(), g.Close()
	}()

	// send makes one request under a deadline far below the budgets.
	send := func(t *testing.T, method, path, body string) (int, http.Header, string) {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		req, err := http.NewRequestWithContext(ctx, method, srv.URL+path, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		if body != "" {
			req.Header.Set("Content-Type", "application/json")
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatalf("%s %s: %v (a request waiting out the backend's retry budget)", method, path, err)
		}
		defer resp.Body.Close()
		raw, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, resp.Header, string(bytes.TrimSpace(raw))
	}
	write := `{"namespace": "` + ns + `", "thread_id": "t", "messages": [{"id": "m1", "name": "Ann", "content": "The lighthouse opens at nine."}]}`
	if code, _, body := send(t, http.MethodGet, "/readyz", ""); code != http.StatusOK {
		t.Fatalf("readyz before the outage: %d %s", code, body)
	}

	cases := []struct {
		name   string
		fault  func()
		routes [][3]string // method, path, body
	}{
		{"refused", proxy.Cut, [][3]string{{http.MethodGet, "/readyz", ""}, {http.MethodPost, "/v1/memories", write}}},
		{"stalled", proxy.Hang, [][3]string{{http.MethodGet, "/readyz", ""}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tc.fault()
			defer func() {
				if err := proxy.Restore(); err != nil {
					t.Fatal(err)
				}
			}()
			for _, r := range tc.routes {
				code, h, body := send(t, r[0], r[1], r[2])
				if code != http.StatusServiceUnavailable || h.Get("Retry-After") == "" {
					t.Errorf("%s %s: %d (Retry-After %q) %s; want 503 with Retry-After", r[0], r[1], code, h.Get("Retry-After"), body)
				}
			}
		})
	}

	// Back to normal once Neo4j is.
	if code, _, body := send(t, http.MethodPost, "/v1/memories", write); code != http.StatusCreated {
		t.Errorf("write after the outage: %d %s", code, body)
	}
	if code, _, body := send(t, http.MethodGet, "/readyz", ""); code != http.StatusOK {
		t.Errorf("readyz after the outage: %d %s", code, body)
	}
}
