package main

// The reliability suite: kill/restart cycles of real server processes on
// real backends, with exact accounting of what was acknowledged. It runs in
// scripts/test.sh (which starts Neo4j and Milvus and sets
// KGMEM_TEST_NEO4J_URI and KGMEM_TEST_MILVUS_ADDR) and skips without them
// outside CI. Milvus is reached through a fault proxy: "Milvus stopped" is
// the proxy refusing connections, "Milvus restarted empty" is its collection
// dropped under the server (the Milvus of the suite is shared by the other
// packages' tests, so it is never restarted itself). TestIngestKillKeepsVectors
// is the suite's `server ingest` cycle.

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/api/wire"
	"github.com/kgmem/kgmem/client"
	"github.com/kgmem/kgmem/internal/faultproxy"
	"github.com/kgmem/kgmem/internal/polltest"
	"github.com/kgmem/kgmem/internal/testenv"
)

// liveServer is one `server serve` process of a test.
type liveServer struct {
	t      *testing.T
	cmd    *exec.Cmd
	c      *client.Client
	exited chan struct{}
	mu     sync.Mutex
	lines  []string // its log lines, for the events a test waits for
}

// startLiveServe starts `server serve` on dataDir with args, logging at info
// level, and returns without waiting for it to be ready.
func startLiveServe(t *testing.T, dataDir string, args ...string) *liveServer {
	t.Helper()
	return startLiveServeAt(t, freeAddr(t), dataDir, args...)
}

// startLiveServeAt is startLiveServe listening on addr, so that a restarted
// server answers where its clients already post.
func startLiveServeAt(t *testing.T, addr, dataDir string, args ...string) *liveServer {
	t.Helper()
	s := &liveServer{t: t, exited: make(chan struct{})}
	s.cmd = serverProcess(t, slices.Concat([]string{"serve", "--addr", addr, "--data-dir", dataDir, "--sweep-interval", "0",
		"--milvus-check-interval", "300ms", "--ui=false", "--mcp=false"}, args)...)
	s.cmd.Env = append(s.cmd.Env, "KGMEM_LOG_LEVEL=info")
	stderr, err := s.cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		sc := bufio.NewScanner(stderr)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			s.mu.Lock()
			s.lines = append(s.lines, sc.Text())
			s.mu.Unlock()
		}
		_, _ = io.Copy(io.Discard, stderr)
		_ = s.cmd.Wait()
		close(s.exited)
	}()
	t.Cleanup(s.kill)
	if s.c, err = client.New("http://" + addr); err != nil {
		t.Fatal(err)
	}
	return s
}

// logged counts the log lines holding substr.
func (s *liveServer) logged(substr string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, l := range s.lines {
		if strings.Contains(l, substr) {
			n++
		}
	}
	return n
}

// log is the end of the server's log, for failure messages.
func (s *liveServer) log() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return strings.Join(s.lines[max(0, len(s.lines)-30):], "\n")
}

// waitHealth polls /readyz until ok accepts its answer (err is nil on 200).
func (s *liveServer) waitHealth(what string, ok func(h wire.Health, err error) bool) wire.Health {
	s.t.Helper()
	var last wire.Health
	polltest.Until(s.t, 2*time.Minute, what, func() bool {
		select {
		case <-s.exited:
			s.t.Fatalf("the server exited while waiting for %s:\n%s", what, s.log())
		default:
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		h, err := s.c.Readyz(ctx)
		last = h
		return ok(h, err)
	})
	return last
}

// caughtUp accepts a ready server whose vector index is up and whose outbox is empty.
func caughtUp(h wire.Health, err error) bool {
	return err == nil && h.Status == "ready" && h.VectorOutbox != nil && *h.VectorOutbox == 0
}

// kill stops the server with SIGKILL.
func (s *liveServer) kill() {
	_ = s.cmd.Process.Signal(syscall.SIGKILL)
	<-s.exited
}

// stop stops the server with SIGTERM and waits for it to exit.
func (s *liveServer) stop() {
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.exited:
	case <-time.After(time.Minute):
		s.t.Errorf("the server did not stop within a minute of SIGTERM")
		s.kill()
	}
}

// ledger records the messages the servers acknowledged.
type ledger struct {
	mu    sync.Mutex
	acked map[string]bool // namespace + "/" + message id
}

// writer posts batches of 3 messages to ns until stop is closed, each with
// ids of its own, and records those acknowledged.
func (l *ledger) writer(c *client.Client, ns, name string, stop <-chan struct{}) {
	for n := 0; ; n++ {
		select {
		case <-stop:
			return
		default:
		}
		req := wire.MemoriesRequest{Namespace: kgmem.Namespace(ns), ThreadID: name}
		for i := range 3 {
			id := fmt.Sprintf("%s-%d-%d-%s", name, n, i, strings.ReplaceAll(kgmem.NewID(""), "_", ""))
			req.Messages = append(req.Messages, wire.Message{ID: id, Role: "user", Content: fmt.Sprintf("%s says note %d.%d about the %s project", name, n, i, []string{"Falcon", "Atlas", "Nova"}[n%3])})
		}
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		_, _, err := c.AddMemories(ctx, req)
		cancel()
		if err != nil {
			time.Sleep(20 * time.Millisecond) // a restarting server: pace the retries (bounded by stop)
			continue
		}
		l.mu.Lock()
		for _, m := range req.Messages {
			l.acked[ns+"/"+m.ID] = true
		}
		l.mu.Unlock()
	}
}

// traffic runs writers on the namespaces against c until the returned stop
// is called.
func (l *ledger) traffic(c *client.Client, nss []string) (stop func()) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	for i, ns := range nss {
		wg.Go(func() { l.writer(c, ns, fmt.Sprintf("w%d", i), done) })
	}
	return func() { close(done); wg.Wait() }
}

// count is how many acknowledged messages there are.
func (l *ledger) count() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.acked)
}

// verify checks, through the API of a running server, that every
// acknowledged message is stored exactly once.
func (l *ledger) verify(t *testing.T, c *client.Client, nss []string) {
	t.Helper()
	seen := map[string]int{}
	for _, ns := range nss {
		for ep, err := range c.Episodes(context.Background(), client.EpisodeQuery{Namespace: kgmem.Namespace(ns), Limit: 500}) {
			if err != nil {
				t.Fatalf("list episodes of %s: %v", ns, err)
			}
			seen[ns+"/"+ep.MessageID]++
		}
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	missing := 0
	for key := range l.acked {
		if seen[key] == 0 {
			missing++
		}
	}
	for key, n := range seen {
		if n > 1 {
			t.Errorf("message %s stored %d times", key, n)
		}
	}
	if missing > 0 {
		t.Errorf("%d of %d acknowledged messages are missing", missing, len(l.acked))
	}
}

// milvusBehindProxy is a Milvus collection of the test's own reached
// through a fault proxy, dropped after the test.
func milvusBehindProxy(t *testing.T) (proxy *faultproxy.Proxy, collection string) {
	t.Helper()
	addr := testenv.MilvusAddr(t)
	proxy, err := faultproxy.Start(addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = proxy.Close() })
	collection = "rel_" + strings.ReplaceAll(kgmem.NewID("t"), "_", "")
	t.Cleanup(func() { dropCollection(t, addr, collection) })
	return proxy, collection
}

// runCheck runs `server check` and fails the test when it reports an inconsistency.
func runCheck(t *testing.T, dataDir string, args []string) {
	t.Helper()
	out, err := serverProcess(t, slices.Concat([]string{"check", "--data-dir", dataDir}, args)...).CombinedOutput()
	if err != nil {
		t.Fatalf("`server check`: %v\n%s", err, tail(out, 3000))
	}
}

// TestServeStartsWithoutMilvus starts the server while Milvus refuses
// connections: it must serve at once, degraded (/readyz 200 "degraded"
// naming Milvus), store writes and answer searches from the other
// retrievers, then apply the queued vectors once Milvus answers, with no
// reindex. Before, the server exited with status 2 after 10 s.
func TestServeStartsWithoutMilvus(t *testing.T) {
	if os.Getenv(childEnv) != "" {
		t.Skip("helper process")
	}
	proxy, collection := milvusBehindProxy(t)
	args := []string{"--vector", "milvus", "--milvus-addr", proxy.Addr(), "--milvus-collection", collection, "--milvus-consistency", "Strong"}
	dataDir := t.TempDir()
	proxy.Cut()
	s := startLiveServe(t, dataDir, args...)
	h := s.waitHealth("a degraded server", func(h wire.Health, err error) bool { return err == nil })
	vi := h.Components["vector_index"]
	if h.Status != "degraded" || vi.Status != "unavailable" || !strings.Contains(strings.ToLower(vi.Error), "milvus") || h.Components["graph"].Status != "ok" {
		t.Fatalf("readyz with Milvus down = %+v, want degraded with the vector index unavailable, naming Milvus", h)
	}
	l := &ledger{acked: map[string]bool{}}
	nss := []string{"degraded/a", "degraded/b"}
	stop := l.traffic(s.c, nss)
	polltest.Until(t, time.Minute, "writes acknowledged while Milvus is down", func() bool { return l.count() >= 30 })
	res, err := s.c.Search(context.Background(), wire.SearchRequest{Namespace: kgmem.Namespace(nss[0]), Query: "Falcon project"})
	if err != nil || len(res.Warnings) == 0 || len(res.Episodes) == 0 {
		t.Errorf("search with Milvus down: %v, %d episodes, warnings %q; want results from the other retrievers and a warning", err, len(res.Episodes), res.Warnings)
	}
	if err := proxy.Restore(); err != nil {
		t.Fatal(err)
	}
	polltest.Until(t, time.Minute, "writes acknowledged after Milvus returned", func() bool { return l.count() >= 60 })
	stop()
	s.waitHealth("the queued vectors applied", caughtUp)
	l.verify(t, s.c, nss)
	s.stop()
	runCheck(t, dataDir, args)
}

// TestServeRebuildsLostCollection drops the server's Milvus collection under
// it (what a Milvus restarted empty shows), with writes going on, and then
// again while the server is down: each time the server must notice, say so,
// recreate the collection and rebuild it from the graph, so that `server
// check` passes with no reindex. Before, writes and searches went on
// against nothing, /readyz said ready, and queued writes retried forever.
func TestServeRebuildsLostCollection(t *testing.T) {
	if os.Getenv(childEnv) != "" {
		t.Skip("helper process")
	}
	proxy, collection := milvusBehindProxy(t)
	args := []string{"--vector", "milvus", "--milvus-addr", proxy.Addr(), "--milvus-collection", collection, "--milvus-consistency", "Strong"}
	dataDir := t.TempDir()
	s := startLiveServe(t, dataDir, args...)
	s.waitHealth("the server", caughtUp)
	l := &ledger{acked: map[string]bool{}}
	nss := []string{"lost/a", "lost/b"}
	stop := l.traffic(s.c, nss)
	polltest.Until(t, time.Minute, "writes acknowledged", func() bool { return l.count() >= 60 })
	rebuilt := s.logged("vector index rebuilt from the graph") // at start, over an empty graph
	dropCollection(t, testenv.MilvusAddr(t), collection)
	polltest.Until(t, time.Minute, "the lost collection noticed", func() bool { return s.logged("was lost") > 0 })
	polltest.Until(t, time.Minute, "writes acknowledged after the loss", func() bool { return l.count() >= 120 })
	stop()
	polltest.Until(t, 2*time.Minute, "the vectors rebuilt", func() bool { return s.logged("vector index rebuilt from the graph") > rebuilt })
	s.waitHealth("the queued vectors applied", caughtUp)
	l.verify(t, s.c, nss)
	s.stop()
	runCheck(t, dataDir, args)

	// Lost while no server runs: the next one finds no collection and rebuilds.
	dropCollection(t, testenv.MilvusAddr(t), collection)
	s = startLiveServe(t, dataDir, args...)
	polltest.Until(t, 2*time.Minute, "the vectors rebuilt at start", func() bool { return s.logged("vector index rebuilt from the graph") > 0 })
	s.waitHealth("the server", caughtUp)
	s.stop()
	runCheck(t, dataDir, args)
}

// TestReliabilityKillRestart is the suite's serve cycle on Neo4j + Milvus:
// three rounds of concurrent writers against a server killed with SIGKILL
// and restarted on the same data directory, the first round losing the
// Milvus collection mid-traffic, the second starting while Milvus refuses
// connections and getting it back mid-traffic. At the end every
// acknowledged message is stored exactly once and `server check` passes,
// with no reindex.
func TestReliabilityKillRestart(t *testing.T) {
	if os.Getenv(childEnv) != "" {
		t.Skip("helper process")
	}
	uri := testenv.Neo4jURI(t)
	proxy, collection := milvusBehindProxy(t)
	scope := "rel" + strings.ReplaceAll(kgmem.NewID(""), "_", "")
	args := []string{"--graph", "neo4j", "--neo4j-uri", uri, "--neo4j-scope", scope,
		"--vector", "milvus", "--milvus-addr", proxy.Addr(), "--milvus-collection", collection, "--milvus-consistency", "Strong"}
	dataDir := filepath.Join(t.TempDir(), "data")
	l := &ledger{acked: map[string]bool{}}
	nss := []string{"rel/a", "rel/b", "rel/c"}
	rounds := []struct {
		name string
		// before runs before the server starts; during mid-traffic.
		before, during func(t *testing.T)
	}{
		{"collection lost mid-traffic", nil, func(t *testing.T) { dropCollection(t, testenv.MilvusAddr(t), collection) }},
		{"started without Milvus", func(*testing.T) { proxy.Cut() }, func(t *testing.T) {
			if err := proxy.Restore(); err != nil {
				t.Fatal(err)
			}
		}},
		{"plain kill", nil, nil},
	}
	for _, r := range rounds {
		if r.before != nil {
			r.before(t)
		}
		s := startLiveServe(t, dataDir, args...)
		s.waitHealth(r.name+": a serving server", func(h wire.Health, err error) bool { return err == nil })
		stop := l.traffic(s.c, nss)
		base := l.count()
		polltest.Until(t, time.Minute, r.name+": writes acknowledged", func() bool { return l.count() >= base+60 })
		if r.during != nil {
			r.during(t)
		}
		polltest.Until(t, time.Minute, r.name+": more writes acknowledged", func() bool { return l.count() >= base+150 })
		s.kill() // SIGKILL under traffic
		stop()
		t.Logf("%s: %d messages acknowledged so far", r.name, l.count())
	}
	s := startLiveServe(t, dataDir, args...)
	s.waitHealth("the last server caught up", caughtUp)
	l.verify(t, s.c, nss)
	// The server may still be rebuilding a collection lost mid-round: check
	// once that has ended (a rebuild holds /readyz at degraded).
	s.waitHealth("no rebuild running", caughtUp)
	runCheck(t, dataDir+"-check", args)
	s.stop()
	t.Cleanup(func() { purgeNamespaces(t, args, nss) })
}

// purgeNamespaces purges a test's namespaces from the backends of args
// (its Neo4j scope), best effort.
func purgeNamespaces(t *testing.T, args, nss []string) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c, err := parseConfig(cmdCheck, slices.Concat([]string{"--data-dir", t.TempDir(), "--log-level", "error"}, args)...)
	if err != nil {
		return
	}
	quiet := slog.New(slog.DiscardHandler)
	b, err := openBackends(ctx, c, quiet)
	if err != nil {
		return
	}
	defer b.close(quiet)
	for _, ns := range nss {
		_, _ = b.engine.PurgeNamespace(ctx, kgmem.Namespace(ns))
	}
}
