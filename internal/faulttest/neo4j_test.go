package faulttest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kgmem/kgmem/internal/polltest"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/api"
	"github.com/kgmem/kgmem/embed"
	"github.com/kgmem/kgmem/graph/neo4j"
	"github.com/kgmem/kgmem/internal/faultproxy"
	"github.com/kgmem/kgmem/internal/testenv"
	"github.com/kgmem/kgmem/memory"
	"github.com/kgmem/kgmem/vector/hnsw"
)

// TestNeo4jOutageMidIngest cuts the server's connection to Neo4j in the middle
// of a stream of ingests (a proxy drops every connection and refuses new ones,
// as a restarting Neo4j does) and restores it. While Neo4j is away a request
// is either retried by the driver until it succeeds or answered 503 with
// Retry-After — never 500 — and the client's re-post of a 503 is idempotent.
// Afterwards every message is stored exactly once and searchable.
func TestNeo4jOutageMidIngest(t *testing.T) {
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
	// A short retry budget so an outage surfaces as a 503 within the test.
	g, err := neo4j.Open(ctx, neo4j.Config{URI: "bolt://" + proxy.Addr(), Scope: scope, MaxRetryTime: 3 * time.Second, ConnectTimeout: time.Second})
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
	srv := httptest.NewServer(api.New(eng, api.Options{RequestTimeout: 20 * time.Second}, quiet).Handler())
	const ns = "fault/neo4j"
	defer func() {
		srv.Close()
		_ = proxy.Restore()
		_, _ = eng.PurgeNamespace(context.Background(), ns)
		_, _ = v.Close(), g.Close()
	}()

	const batches, perBatch = 40, 3
	var mu sync.Mutex
	var done, unavailable, other int
	var problems []string
	writer := make(chan struct{})
	cut := make(chan struct{}) // closed once the proxy is cut
	go func() {
		defer close(writer)
		for b := range batches {
			if b == batches/3 {
				// Hold the rest until the cut, so on a fast machine the
				// writer cannot finish before the outage starts.
				<-cut
			}
			msgs := make([]map[string]any, perBatch)
			for i := range msgs {
				msgs[i] = map[string]any{"id": fmt.Sprintf("b%d-m%d", b, i), "name": "Ann", "content": fmt.Sprintf("Batch %d message %d about the lighthouse", b, i), "timestamp": "2024-02-01T10:00:00Z"}
			}
			body, _ := json.Marshal(map[string]any{"namespace": ns, "thread_id": "t1", "messages": msgs})
			deadline := time.Now().Add(90 * time.Second)
			for {
				resp, err := http.Post(srv.URL+"/v1/memories", "application/json", bytes.NewReader(body))
				if err != nil {
					mu.Lock()
					problems = append(problems, err.Error())
					mu.Unlock()
					return
				}
				raw, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				mu.Lock()
				switch {
				case resp.StatusCode < 300:
					done++
				case resp.StatusCode == http.StatusServiceUnavailable:
					unavailable++
					if resp.Header.Get("Retry-After") == "" || resp.Header.Get("Content-Type") != "application/problem+json" {
						problems = append(problems, fmt.Sprintf("503 without Retry-After or problem+json: %v %s", resp.Header, raw))
					}
				default:
					other++
					problems = append(problems, fmt.Sprintf("status %d: %s", resp.StatusCode, raw))
				}
				mu.Unlock()
				if resp.StatusCode < 300 {
					break
				}
				if resp.StatusCode != http.StatusServiceUnavailable || time.Now().After(deadline) {
					return
				}
				time.Sleep(100 * time.Millisecond) // the client's retry backoff
			}
		}
	}()
	counts := func() (int, int) {
		mu.Lock()
		defer mu.Unlock()
		return done, unavailable
	}
	// Cut once a third of the batches are in; restore after at least 2 s,
	// once a request has given up with a 503 (the driver's retries ran out).
	writerDone := func() bool {
		select {
		case <-writer:
			return true
		default:
			return false
		}
	}
	polltest.Until(t, 60*time.Second, "a third of the batches", func() bool { d, _ := counts(); return d >= batches/3 || writerDone() })
	proxy.Cut()
	cutAt := time.Now()
	close(cut)
	polltest.Until(t, 60*time.Second, "a request to give up with 503", func() bool {
		_, u := counts()
		return u > 0 && time.Since(cutAt) > 2*time.Second || writerDone()
	})
	if _, u := counts(); u == 0 {
		mu.Lock()
		t.Fatalf("the writer stopped during the outage without a 503: %q", problems)
	}
	outage := time.Since(cutAt)
	if err := proxy.Restore(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-writer:
	case <-time.After(2 * time.Minute):
		t.Fatal("the writer did not finish within 2 minutes of the restore")
	}
	d, u503 := counts()
	t.Logf("Neo4j cut for %s: %d of %d batches stored, %d answers were 503 with Retry-After (then re-posted), %d other errors; all done %s after the cut",
		outage.Round(time.Millisecond), d, batches, u503, other, time.Since(cutAt).Round(time.Millisecond))
	for _, p := range problems {
		t.Error(p)
	}
	if d != batches {
		t.Fatalf("%d of %d batches stored", d, batches)
	}
	// Exactly once: every message id appears once in the graph.
	eps, err := g.ListEpisodes(ctx, ns, kgmem.Page{Limit: 1000})
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]int{}
	for _, ep := range eps {
		seen[ep.MessageID]++
	}
	if len(eps) != batches*perBatch || len(seen) != batches*perBatch {
		t.Fatalf("the graph holds %d episodes (%d distinct messages), want %d", len(eps), len(seen), batches*perBatch)
	}
	res, err := eng.Search(ctx, memory.SearchRequest{Namespace: ns, Query: "batch 39 lighthouse", Limit: 5})
	if err != nil || len(res.Episodes) == 0 {
		t.Fatalf("search after the outage: %v, %d episodes", err, len(res.Episodes))
	}
}
