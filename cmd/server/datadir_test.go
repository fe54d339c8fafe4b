package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestDataDirIsOneProcess: a second server (or stdio MCP server, or an
// embedded maintenance command) on a data directory another process holds
// refuses to start, says who holds it and what to do, and changes nothing.
func TestDataDirIsOneProcess(t *testing.T) {
	dir := t.TempDir()
	held, err := lockDataDir(dir, true)
	if err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadDir(dir)
	for _, args := range [][]string{
		{"serve", "--addr", "127.0.0.1:0", "--data-dir", dir},
		{"mcp", "--data-dir", dir},
		{"sweep", "--data-dir", dir},
	} {
		err := run(context.Background(), args, io.Discard, io.Discard)
		if !errors.Is(err, errDataDirInUse) {
			t.Fatalf("%v: err = %v, want errDataDirInUse", args, err)
		}
		for _, want := range []string{fmt.Sprintf("process %d", os.Getpid()), dir, "Neo4j + Milvus"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("%v: %q does not say %q", args, err, want)
			}
		}
	}
	after, _ := os.ReadDir(dir)
	if len(after) != len(before) {
		t.Errorf("the refused commands wrote to the data directory: %d entries before, %d after", len(before), len(after))
	}
	if err := held.release(); err != nil {
		t.Fatal(err)
	}
	again, err := lockDataDir(dir, true)
	if err != nil {
		t.Fatalf("after release: %v", err)
	}
	_ = again.release()
}

// A backend that cannot be opened is an error, not a panic, and leaves the
// data directory free (the failed open released its lock).
func TestFailedOpenReleasesTheDataDir(t *testing.T) {
	dir := t.TempDir()
	f, err := os.Create(dir + "/vectors.db")
	if err != nil {
		t.Fatal(err)
	}
	_, _ = f.WriteString("not an index")
	_ = f.Close()
	err = run(context.Background(), []string{"sweep", "--data-dir", dir}, io.Discard, io.Discard)
	if err == nil {
		t.Fatal("sweep over a corrupt vector file succeeded")
	}
	l, err := lockDataDir(dir, true)
	if err != nil {
		t.Fatalf("the failed open kept the data directory: %v", err)
	}
	_ = l.release()
}

// startServe runs `server serve` on dir in the background until the test
// ends and returns its URL once it answers.
func startServe(t *testing.T, dir string, extra ...string) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	_ = ln.Close()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	args := append([]string{"--addr", addr, "--data-dir", dir, "--log-level", "error", "--sweep-interval", "0"}, extra...)
	go func() { done <- serveWith(ctx, args) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("serve: %v", err)
		}
	})
	url := "http://" + addr
	deadline := time.Now().Add(30 * time.Second)
	for {
		resp, err := http.Get(url + "/healthz")
		if err == nil {
			resp.Body.Close()
			if _, got := readDataDirLock(filepath.Join(dir, dataDirLockName)); got == url {
				return url
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("server did not answer and announce itself: %v", err)
		}
		time.Sleep(20 * time.Millisecond) // polling interval under the deadline above
	}
}

// A command refused a data directory a running server holds names that
// server's pid and address and the --url that reaches it.
func TestDataDirInUseNamesTheServer(t *testing.T) {
	dir := t.TempDir()
	url := startServe(t, dir)
	input := filepath.Join(t.TempDir(), "chat.jsonl")
	if err := os.WriteFile(input, []byte(`{"namespace":"demo/a","role":"user","content":"hi"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"ingest", "--data-dir", dir, "--progress", "never", input},
		{"sweep", "--data-dir", dir},
	} {
		err := run(context.Background(), args, io.Discard, io.Discard)
		if !errors.Is(err, errDataDirInUse) {
			t.Fatalf("%v: err = %v, want errDataDirInUse", args, err)
		}
		for _, want := range []string{fmt.Sprintf("process %d", os.Getpid()), "a kgmem server at " + url, "--url " + url} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("%v: %q does not say %q", args, err, want)
			}
		}
	}
}

// `server mcp` on a data directory a running server holds bridges to that
// server: what an MCP client adds lands in the server's memory.
func TestMCPBridgesToTheServerHoldingTheDataDir(t *testing.T) {
	dir := t.TempDir()
	url := startServe(t, dir)
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- execute(ctx, "server", []string{"mcp", "--data-dir", dir, "--log-level", "error"}, streams{in: inR, out: outW, err: io.Discard})
		_ = outW.Close()
	}()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, &mcp.IOTransport{Reader: outR, Writer: inW}, nil)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "add_memories", Arguments: map[string]any{"namespace": "demo/bridge", "text": "Alice moved to Lisbon."}})
	if err != nil || res.IsError {
		t.Fatalf("add_memories: %v %+v", err, res)
	}
	_ = cs.Close()
	_ = inW.Close()
	cancel()
	if err := <-done; err != nil && !errors.Is(err, context.Canceled) {
		t.Errorf("mcp: %v", err)
	}
	resp, err := http.Get(url + "/v1/episodes?namespace=demo/bridge")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), "Lisbon") {
		t.Fatalf("the server does not hold the bridged message: %d %s", resp.StatusCode, body)
	}
}
