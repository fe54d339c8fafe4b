package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/kgmem/kgmem/internal/polltest"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/graph/sqlite"
	"github.com/kgmem/kgmem/internal/llmtest"
	openai "github.com/sashabaranov/go-openai"
)

// TestKillServerDuringBackgroundIngestion runs the real server process,
// submits async ingest jobs (each extraction costs 100 ms of a scripted LLM,
// so the queue takes seconds), kills the process with SIGKILL while jobs are
// still pending, restarts it on the same data directory and waits for every
// job to succeed. Every accepted message must then be stored exactly once,
// and the vectors must match the graph (server check).
func TestKillServerDuringBackgroundIngestion(t *testing.T) {
	llm := llmtest.New(t, llmtest.WithResponder(func(openai.ChatCompletionRequest) (llmtest.Reply, error) {
		time.Sleep(100 * time.Millisecond)
		return llmtest.Text(llmtest.ExtractionJSON(nil, nil)), nil
	}))
	dir := t.TempDir()
	start := func() (*exec.Cmd, string) {
		t.Helper()
		addr := freeAddr(t)
		cmd := serverProcess(t, "serve", "--addr", addr, "--data-dir", dir, "--debounce", "0", "--job-workers", "2",
			"--sweep-interval", "0", "--llm-base-url", llm.URL(), "--llm-model", "scripted")
		cmd.Stderr = os.Stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		base := "http://" + addr
		polltest.Until(t, 60*time.Second, "the server to answer /healthz", func() bool {
			resp, err := http.Get(base + "/healthz")
			if err != nil {
				return false
			}
			resp.Body.Close()
			return resp.StatusCode == http.StatusOK
		})
		return cmd, base
	}
	cmd, base := start()
	killed := false
	defer func() {
		if !killed {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		}
	}()

	const ns, threads, jobsPerThread, perJob = "crash/jobs", 4, 10, 5
	type jobRef struct{ id string }
	var jobs []jobRef
	for j := range jobsPerThread {
		for th := range threads {
			msgs := make([]map[string]any, perJob)
			for m := range msgs {
				msgs[m] = map[string]any{"id": fmt.Sprintf("j%d-m%d", j, m), "name": "Ann", "content": fmt.Sprintf("Thread %d job %d message %d: the ferry leaves at dawn.", th, j, m), "timestamp": "2024-03-01T08:00:00Z"}
			}
			var job struct {
				ID string `json:"id"`
			}
			if st := postJSON(t, base+"/v1/memories", map[string]any{"namespace": ns, "thread_id": fmt.Sprintf("t%d", th), "mode": "async", "extract": true, "messages": msgs}, &job); st != http.StatusAccepted {
				t.Fatalf("async ingest: status %d", st)
			}
			jobs = append(jobs, jobRef{job.ID})
		}
	}
	status := func(base, id string) string {
		var j struct {
			Status string `json:"status"`
		}
		resp, err := http.Get(base + "/v1/jobs/" + id + "?namespace=" + url.QueryEscape(ns))
		if err != nil {
			return "unreachable"
		}
		defer resp.Body.Close()
		_ = json.NewDecoder(resp.Body).Decode(&j)
		return j.Status
	}
	succeeded := func(base string) int {
		n := 0
		for _, j := range jobs {
			if status(base, j.id) == "succeeded" {
				n++
			}
		}
		return n
	}
	// Kill once some jobs are done and most are not.
	polltest.Until(t, 60*time.Second, "the first jobs to succeed", func() bool { return succeeded(base) > 0 })
	before := succeeded(base)
	if err := cmd.Process.Kill(); err != nil { // SIGKILL: no shutdown, no flush
		t.Fatal(err)
	}
	_ = cmd.Wait()
	killed = true
	if before == len(jobs) {
		t.Fatalf("all %d jobs finished before the kill; the test proves nothing", len(jobs))
	}

	cmd2, base2 := start()
	defer func() {
		_ = cmd2.Process.Kill()
		_ = cmd2.Wait()
	}()
	polltest.Until(t, 2*time.Minute, "every job to succeed after the restart", func() bool { return succeeded(base2) == len(jobs) })
	t.Logf("killed with %d of %d jobs succeeded; after the restart all %d succeeded", before, len(jobs), len(jobs))
	// The helper process has no signal handling; stop it hard again (every
	// job is committed by now) so the test can open the data directory.
	_ = cmd2.Process.Kill()
	_ = cmd2.Wait()

	// Exactly once: every accepted message is one episode.
	ctx := context.Background()
	g, err := sqlite.Open(ctx, filepath.Join(dir, "graph.db"))
	if err != nil {
		t.Fatal(err)
	}
	eps, err := g.ListEpisodes(ctx, ns, kgmem.Page{Limit: 10000})
	_ = g.Close()
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]int{}
	for _, ep := range eps {
		seen[ep.ThreadID+"/"+ep.MessageID]++
	}
	want := threads * jobsPerThread * perJob
	if len(eps) != want || len(seen) != want {
		t.Fatalf("%d episodes stored (%d distinct messages), want %d, each once", len(eps), len(seen), want)
	}
	// No orphan between graph and vectors.
	var out bytes.Buffer
	if err := run(ctx, []string{"check", "--data-dir", dir, "--log-level", "error"}, &out, io.Discard); err != nil {
		t.Fatalf("server check: %v\n%s", err, out.String())
	}
	var sum checkSummary
	if err := json.Unmarshal(out.Bytes(), &sum); err != nil || !sum.Consistent {
		t.Fatalf("server check: %v %s", err, out.String())
	}
}

// freeAddr returns a loopback address with a port free right now.
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

func postJSON(t *testing.T, u string, body, out any) int {
	t.Helper()
	raw, _ := json.Marshal(body)
	resp, err := http.Post(u, "application/json", bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if out != nil {
		_ = json.NewDecoder(resp.Body).Decode(out)
	}
	return resp.StatusCode
}
