package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"
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
