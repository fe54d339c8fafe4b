package main

// More cycles of the reliability suite (see reliability_test.go): an
// import over HTTP into a server killed and restarted under it, and Neo4j
// going away and coming back under a running server's traffic.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/api/wire"
	"github.com/kgmem/kgmem/chatlog/gen"
	"github.com/kgmem/kgmem/client"
	"github.com/kgmem/kgmem/internal/faultproxy"
	"github.com/kgmem/kgmem/internal/polltest"
	"github.com/kgmem/kgmem/internal/testenv"
)

// storedOnce lists the episodes of the namespaces through c and fails the
// test unless every want message (namespace/thread/id) is stored exactly
// once and, when exact, nothing else is stored.
func storedOnce(t *testing.T, c *client.Client, nss []string, want map[string]bool, exact bool) {
	t.Helper()
	seen := map[string]int{}
	for _, ns := range nss {
		for ep, err := range c.Episodes(context.Background(), client.EpisodeQuery{Namespace: kgmem.Namespace(ns), Limit: 500}) {
			if err != nil {
				t.Fatalf("list episodes of %s: %v", ns, err)
			}
			seen[ns+"/"+ep.ThreadID+"/"+ep.MessageID]++
		}
	}
	missing, extra := 0, 0
	for key := range want {
		if seen[key] == 0 {
			missing++
		}
	}
	for key, n := range seen {
		if n > 1 {
			t.Errorf("message %s stored %d times", key, n)
		}
		if exact && !want[key] {
			extra++
		}
	}
	if missing > 0 || extra > 0 {
		t.Errorf("%d of %d messages missing, %d stored that were not sent", missing, len(want), extra)
	}
}

// TestReliabilityIngestURLServerKilled runs `server ingest --url` against a
// `server serve` that is killed with SIGKILL mid-import and restarted on
// the same address and data directory. The importer must ride out the
// restart (it retries a server it cannot reach for --unreachable-for) and
// end with no failed batch, every message of the input stored exactly once
// and `server check` consistent, with no reindex. Before, one restart
// failed every batch in flight or sent during it.
func TestReliabilityIngestURLServerKilled(t *testing.T) {
	if os.Getenv(childEnv) != "" {
		t.Skip("helper process")
	}
	const namespaces, perThread = 3, 100
	for name, backend := range ingestBackends(t) {
		t.Run(name, func(t *testing.T) {
			messages, batch := 3000, "25"
			if name == "neo4j+milvus" {
				messages, batch = 1500, "50" // Neo4j writes ~60 messages per request-second here
			}
			dir := t.TempDir()
			input := filepath.Join(dir, "chat.jsonl")
			var buf bytes.Buffer
			if err := gen.Write(&buf, gen.Config{Messages: messages, Namespaces: namespaces, MessagesPerThread: perThread, Seed: 11}); err != nil {
				t.Fatal(err)
			}
			want := map[string]bool{}
			nsSet := map[string]bool{}
			for line := range bytes.Lines(buf.Bytes()) {
				var m struct {
					Namespace string `json:"namespace"`
					ThreadID  string `json:"thread_id"`
					ID        string `json:"id"`
				}
				if err := json.Unmarshal(line, &m); err != nil {
					t.Fatal(err)
				}
				want[m.Namespace+"/"+m.ThreadID+"/"+m.ID] = true
				nsSet[m.Namespace] = true
			}
			if len(want) != messages {
				t.Fatalf("the generated input holds %d distinct messages, want %d", len(want), messages)
			}
			if err := os.WriteFile(input, buf.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			dataDir := filepath.Join(dir, "data")
			addr := freeAddr(t)
			s := startLiveServeAt(t, addr, dataDir, backend.args...)
			s.waitHealth("the server", func(h wire.Health, err error) bool { return err == nil })

			// Small batches, so that the import is still going when the
			// server dies.
			ck := filepath.Join(dir, "ck")
			imp := serverProcess(t, "ingest", "--url", "http://"+addr, "--batch", batch, "--concurrency", "2",
				"--checkpoint", ck, "--checkpoint-every", "20ms", "--unreachable-for", "2m", input)
			var stdout, stderr bytes.Buffer
			imp.Stdout, imp.Stderr = &stdout, &stderr
			if err := imp.Start(); err != nil {
				t.Fatal(err)
			}
			exited := make(chan error, 1)
			go func() { exited <- imp.Wait() }()
			t.Cleanup(func() {
				_ = imp.Process.Kill()
			})
			polltest.Until(t, time.Minute, "the import under way", func() bool { return checkpointTotal(ck) >= 300 })
			s.kill() // SIGKILL mid-import
			at := checkpointTotal(ck)
			select {
			case err := <-exited:
				t.Fatalf("the import ended (%v) before the server was killed; nothing was tested\n%s", err, stdout.String())
			default:
			}
			if at >= messages {
				t.Fatalf("the checkpoint holds all %d messages at the kill; nothing was tested", at)
			}
			s = startLiveServeAt(t, addr, dataDir, backend.args...)
			var err error
			select {
			case err = <-exited:
			case <-time.After(3 * time.Minute):
				t.Fatalf("the import did not end within 3 minutes of the restart\n%s", tail(stderr.Bytes(), 3000))
			}
			if err != nil {
				t.Fatalf("the import across a server restart failed: %v\n%s\n%s", err, stdout.String(), tail(stderr.Bytes(), 3000))
			}
			var sum struct {
				Read, Failed, Created, Existing int
			}
			if err := json.Unmarshal(stdout.Bytes(), &sum); err != nil {
				t.Fatalf("the import's summary: %v\n%s", err, stdout.String())
			}
			if sum.Read != messages || sum.Failed != 0 || sum.Created+sum.Existing < messages {
				t.Errorf("summary %+v: want %d read, none failed, every message created or existing", sum, messages)
			}
			t.Logf("server killed with the checkpoint at %d of %d; import summary %+v", at, messages, sum)
			s.waitHealth("the vectors caught up", caughtUp)
			storedOnce(t, s.c, slices.Sorted(func(yield func(string) bool) {
				for ns := range nsSet {
					if !yield(ns) {
						return
					}
				}
			}), want, true)
			s.stop()
			runCheck(t, dataDir, backend.args)
		})
	}
}

// outageWriter posts batches of 3 messages to ns over plain HTTP until
// stop is closed, re-posting a batch answered 503 (or, when timeouts, 504:
// the client's part of the contract), and keeps the accounts of
// TestReliabilityNeo4jOutage.
type outageWriter struct {
	// timeout bounds each post: an answer later than that is a problem.
	timeout time.Duration
	// timeouts accepts 504 as an answer.
	timeouts bool

	mu       sync.Mutex
	acked    map[string]bool // namespace/thread/id
	statuses map[int]int
	problems []string
}

// run is one writer.
func (w *outageWriter) run(base, ns, thread string, stop <-chan struct{}) {
	hc := &http.Client{Timeout: w.timeout}
	for n := 0; ; n++ {
		req := wire.MemoriesRequest{Namespace: kgmem.Namespace(ns), ThreadID: thread}
		for i := range 3 {
			req.Messages = append(req.Messages, wire.Message{ID: fmt.Sprintf("%d-%d", n, i), Role: "user",
				Content: fmt.Sprintf("%s note %d.%d about the %s project", thread, n, i, []string{"Falcon", "Atlas", "Nova"}[n%3])})
		}
		body, _ := json.Marshal(req)
		for {
			select {
			case <-stop:
				return
			default:
			}
			resp, err := hc.Post(base+"/v1/memories", "application/json", bytes.NewReader(body))
			if err != nil {
				w.note(fmt.Sprintf("post (answer due within %s): %v", w.timeout, err))
				return
			}
			raw, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			w.mu.Lock()
			w.statuses[resp.StatusCode]++
			w.mu.Unlock()
			switch {
			case resp.StatusCode == http.StatusCreated || resp.StatusCode == http.StatusOK:
				w.mu.Lock()
				for _, m := range req.Messages {
					w.acked[ns+"/"+thread+"/"+m.ID] = true
				}
				w.mu.Unlock()
			case resp.StatusCode == http.StatusServiceUnavailable || (w.timeouts && resp.StatusCode == http.StatusGatewayTimeout):
				if resp.StatusCode == http.StatusServiceUnavailable && resp.Header.Get("Retry-After") == "" {
					w.note(fmt.Sprintf("503 without Retry-After: %s", raw))
				}
				time.Sleep(100 * time.Millisecond) // the client's retry backoff
				continue
			default:
				w.note(fmt.Sprintf("status %d: %s", resp.StatusCode, raw))
				return
			}
			break
		}
	}
}

// note records a problem for the test to report.
func (w *outageWriter) note(problem string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.problems = append(w.problems, problem)
}

// failed tells whether a writer met a problem (and stopped).
func (w *outageWriter) failed() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.problems) > 0
}

// counts is how many batches were acknowledged and refused (503, or 504).
func (w *outageWriter) counts() (acked, refused int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.acked) / 3, w.statuses[http.StatusServiceUnavailable] + w.statuses[http.StatusGatewayTimeout]
}

// TestReliabilityNeo4jOutage takes Neo4j away from a running `server
// serve` on Neo4j + Milvus under concurrent writers, then brings it back
// with its data. A fault proxy plays the outage (the suite's Neo4j is
// shared with other packages' tests, so it is never stopped itself):
//
//   - stopped: it drops the connections and refuses new ones. A write is
//     answered 503 with Retry-After, never 500; /readyz says not ready.
//   - stalled: it accepts connections and never answers. A write in flight
//     or posted meanwhile ends by its deadline (--request-timeout) with 503
//     or 504; it is not held past it (writes ran 48 s against a 40 s write
//     deadline: the namespace lock's release waited on the stalled server).
//
// No write is acknowledged and then lost: afterwards every acknowledged
// message is stored exactly once and `server check` passes, with no
// reindex.
func TestReliabilityNeo4jOutage(t *testing.T) {
	if os.Getenv(childEnv) != "" {
		t.Skip("helper process")
	}
	const requestTimeout = 3 * time.Second
	cases := []struct {
		name  string
		fault func(*faultproxy.Proxy)
		// timeout bounds each post; timeouts accepts 504.
		timeout  time.Duration
		timeouts bool
	}{
		{"stopped", (*faultproxy.Proxy).Cut, 2 * time.Minute, false},
		// The deadline and 2 s for the answer: a release waiting on the
		// stalled server took 5 s more.
		{"stalled", (*faultproxy.Proxy).Hang, requestTimeout + 2*time.Second, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			u, err := url.Parse(testenv.Neo4jURI(t))
			if err != nil {
				t.Fatal(err)
			}
			neo, err := faultproxy.Start(u.Host)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = neo.Close() })
			mil, collection := milvusBehindProxy(t)
			scope := "out" + strings.ReplaceAll(kgmem.NewID(""), "_", "")
			args := []string{"--graph", "neo4j", "--neo4j-uri", "bolt://" + neo.Addr(), "--neo4j-scope", scope,
				"--vector", "milvus", "--milvus-addr", mil.Addr(), "--milvus-collection", collection, "--milvus-consistency", "Strong"}
			dataDir := filepath.Join(t.TempDir(), "data")
			addr := freeAddr(t)
			s := startLiveServeAt(t, addr, dataDir, append([]string{"--request-timeout", requestTimeout.String()}, args...)...)
			s.waitHealth("the server", caughtUp)

			w := &outageWriter{timeout: tc.timeout, timeouts: tc.timeouts, acked: map[string]bool{}, statuses: map[int]int{}}
			nss := []string{"outage/a", "outage/b", "outage/c"}
			t.Cleanup(func() { purgeNamespaces(t, args, nss) })
			stop := make(chan struct{})
			var wg sync.WaitGroup
			for i, ns := range nss {
				wg.Go(func() { w.run("http://"+addr, ns, fmt.Sprintf("w%d", i), stop) })
			}
			stopped := false
			stopWriters := func() {
				if !stopped {
					stopped = true
					close(stop)
					wg.Wait()
				}
			}
			t.Cleanup(stopWriters)
			polltest.Until(t, time.Minute, "writes acknowledged", func() bool { a, _ := w.counts(); return a >= 20 })
			tc.fault(neo)
			polltest.Until(t, 2*time.Minute, "writes refused during the outage", func() bool {
				_, r := w.counts()
				return r >= len(nss) || w.failed()
			})
			if w.failed() {
				w.mu.Lock()
				t.Fatalf("during the outage (answers by status %v): %q\nthe server's log ends:\n%s", w.statuses, w.problems, s.log())
			}
			// /readyz answers, and says not ready.
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			h, err := s.c.Readyz(ctx)
			cancel()
			if err == nil || h.Status == "ready" {
				t.Errorf("/readyz with Neo4j %s: %+v, %v; want not ready", tc.name, h, err)
			}
			ackedAtFault, _ := w.counts()
			if err := neo.Restore(); err != nil { // Neo4j is back, with its data
				t.Fatal(err)
			}
			polltest.Until(t, 2*time.Minute, "writes acknowledged after Neo4j returned", func() bool { a, _ := w.counts(); return a >= ackedAtFault+20 })
			stopWriters()
			w.mu.Lock()
			t.Logf("answers by status: %v; %d messages acknowledged", w.statuses, len(w.acked))
			for _, p := range w.problems {
				t.Error(p)
			}
			acked := make(map[string]bool, len(w.acked))
			for k := range w.acked {
				acked[k] = true
			}
			w.mu.Unlock()
			s.waitHealth("the server caught up", caughtUp)
			// A batch answered 503 and not re-posted before the writers
			// stopped may be stored too: only the acknowledged ones are owed.
			storedOnce(t, s.c, nss, acked, false)
			runCheck(t, dataDir+"-check", args)
			s.stop()
		})
	}
}
