package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/kgmem/kgmem/chatlog/gen/gentest"
)

// loopbackAddr returns a loopback address nothing listens on right now.
func loopbackAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	_ = ln.Close()
	return addr
}

// waitHealthy polls /healthz until the server answers, failing after a deadline.
func waitHealthy(t *testing.T, base string) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		resp, err := http.Get(base + "/healthz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("server at %s not healthy within a minute: %v", base, err)
		}
		time.Sleep(20 * time.Millisecond) // polling interval under the deadline above
	}
}

type asyncJob struct {
	ID     string `json:"id"`
	Status string `json:"status"`
	Result *struct {
		Episodes []struct {
			Created bool `json:"created"`
		} `json:"episodes"`
	} `json:"result"`
}

func fetchJob(t *testing.T, base, ns, id string) asyncJob {
	t.Helper()
	resp, err := http.Get(base + "/v1/jobs/" + id + "?namespace=" + url.QueryEscape(ns))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var j asyncJob
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET job %s: %d", id, resp.StatusCode)
	}
	if err := json.NewDecoder(resp.Body).Decode(&j); err != nil {
		t.Fatal(err)
	}
	return j
}

var (
	firstNames = []string{"Ann", "Bob", "Cid", "Dan", "Eve", "Fay", "Gil", "Hal", "Ida", "Jon", "Kim", "Lou", "Max", "Ned", "Oda", "Pam", "Quin", "Rex"}
	lastNames  = []string{"Adams", "Brown", "Clark", "Dixon", "Evans", "Ford", "Grant", "Hayes", "Irwin", "Jones", "Kerr", "Lowe", "Moss", "Nash", "Owen", "Price", "Quade", "Reed"}
)

// TestRestartWithPendingJobs accepts background jobs, kills the server with
// SIGKILL while they wait on a slow LLM, starts it again on the same data
// directory, and checks every job completes and every message and its fact
// are stored exactly once (the messages already before the kill).
func TestRestartWithPendingJobs(t *testing.T) {
	slow := gentest.LLM(t, time.Hour) // no extraction finishes before the kill
	fast := gentest.LLM(t, 0)
	dataDir := t.TempDir()
	addr := loopbackAddr(t)
	base := "http://" + addr
	serveArgs := func(llmURL string) []string {
		return []string{"serve", "--addr", addr, "--data-dir", dataDir, "--llm-base-url", llmURL, "--llm-model", "m",
			"--debounce", "0", "--job-workers", "2", "--sweep-interval", "0", "--shutdown-grace", "1s"}
	}
	first := serverProcess(t, serveArgs(slow.URL())...)
	if err := first.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = first.Process.Kill(); _ = first.Wait() })
	waitHealthy(t, base)

	const ns = "restart/test"
	var ids []string
	messages := 0
	for thread := range 3 {
		for batch := range 2 {
			var msgs []map[string]any
			for k := range 3 {
				i := thread*6 + batch*3 + k
				// Distinct people and projects: one new fact per message, no judge needed.
				person := firstNames[i] + " " + lastNames[i]
				msgs = append(msgs, map[string]any{"id": fmt.Sprintf("m%d", i), "name": person,
					"content": fmt.Sprintf("%s works on Project %sium.", person, lastNames[i]), "timestamp": "2024-01-01T10:00:00Z"})
				messages++
			}
			body, _ := json.Marshal(map[string]any{"namespace": ns, "thread_id": fmt.Sprintf("t%d", thread), "extract": true, "mode": "async", "messages": msgs})
			resp, err := http.Post(base+"/v1/memories", "application/json", bytes.NewReader(body))
			if err != nil {
				t.Fatal(err)
			}
			var j asyncJob
			_ = json.NewDecoder(resp.Body).Decode(&j)
			resp.Body.Close()
			if resp.StatusCode != http.StatusAccepted || j.ID == "" || resp.Header.Get("Location") == "" {
				t.Fatalf("async post: %d %+v", resp.StatusCode, j)
			}
			ids = append(ids, j.ID)
		}
	}
	// Kill once two jobs are running (stuck on the slow LLM); the rest are queued.
	deadline := time.Now().Add(time.Minute)
	for running := 0; running < 2; {
		running = 0
		for _, id := range ids {
			if fetchJob(t, base, ns, id).Status == "running" {
				running++
			}
		}
		if time.Now().After(deadline) {
			t.Fatal("no job running within a minute")
		}
		time.Sleep(20 * time.Millisecond) // polling interval under the deadline above
	}
	if err := first.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = first.Wait()
	// Messages are stored when accepted, before any extraction; the slow
	// LLM held every job's facts.
	if eps, facts := graphCounts(t, dataDir); eps != messages || facts != 0 {
		t.Fatalf("before the kill: %d episodes and %d facts, want all %d messages stored and no facts yet", eps, facts, messages)
	}

	second := serverProcess(t, serveArgs(fast.URL())...)
	if err := second.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = second.Process.Kill(); _ = second.Wait() })
	waitHealthy(t, base)
	deadline = time.Now().Add(2 * time.Minute)
	for done := 0; done < len(ids); {
		done = 0
		for _, id := range ids {
			j := fetchJob(t, base, ns, id)
			switch j.Status {
			case "succeeded":
				done++
				if j.Result == nil || len(j.Result.Episodes) != 3 {
					t.Fatalf("job %s succeeded with %+v", id, j.Result)
				}
			case "failed":
				t.Fatalf("job %s failed after restart", id)
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d jobs done within 2 minutes of the restart", done, len(ids))
		}
		time.Sleep(20 * time.Millisecond) // polling interval under the deadline above
	}
	if err := second.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = second.Wait()
	t.Logf("killed with 2 jobs running on the slow LLM (%d calls) and %d queued; after restart the fast LLM had %d calls",
		slow.ChatCalls(), len(ids)-2, fast.ChatCalls())
	episodes, facts := graphCounts(t, dataDir) // also fails on any duplicate
	if episodes != messages || facts != messages {
		t.Errorf("after restart: %d episodes and %d facts, want %d of each (one fact per message, none twice)", episodes, facts, messages)
	}
}
