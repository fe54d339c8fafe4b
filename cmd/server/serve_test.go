package main

import (
	"context"
	"io"
	"net"
	"runtime"
	"strings"
	"testing"
)

// TestServeStopsItsSweepsBeforeClosing runs serve on an address already
// taken, with its context alive: serve fails after opening the backends,
// and the periodic sweeps it started must have ended by the time it
// returns. Before, they outlived the closed stores and logged "database is
// closed" at every period until the process ended.
func TestServeStopsItsSweepsBeforeClosing(t *testing.T) {
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	args := []string{"serve", "--addr", taken.Addr().String(), "--data-dir", t.TempDir(), "--embedder", "hash",
		"--sweep-interval", "1h", "--ttl-sweep-interval", "1h"}
	if err := run(context.Background(), args, io.Discard, io.Discard); err == nil || !strings.Contains(err.Error(), "listen on") {
		t.Fatalf("serve on a taken address: %v, want a listen error", err)
	}
	buf := make([]byte, 1<<20)
	stacks := string(buf[:runtime.Stack(buf, true)])
	for _, sweep := range []string{"server.sweepEvery(", "server.sweepExpiredEvery("} {
		if strings.Contains(stacks, sweep) {
			t.Errorf("%s still runs after serve returned", sweep)
		}
	}
}
