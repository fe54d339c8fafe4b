package main

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"
)

func TestPprofAddrLoopbackOnly(t *testing.T) {
	for _, tc := range []struct {
		addr string
		ok   bool
	}{
		{"127.0.0.1:6060", true},
		{"[::1]:6060", true},
		{"localhost:6060", true},
		{"0.0.0.0:6060", false},
		{":6060", false},
		{"10.1.2.3:6060", false},
		{"127.0.0.1", false},
		{"example.com:6060", false},
	} {
		if err := checkPprofAddr(tc.addr); (err == nil) != tc.ok {
			t.Errorf("checkPprofAddr(%q) = %v, want ok %v", tc.addr, err, tc.ok)
		}
	}
	// serve refuses before opening anything.
	err := serveWith(context.Background(), []string{"--pprof-addr", "0.0.0.0:6060", "--data-dir", t.TempDir()})
	if err == nil || !strings.Contains(err.Error(), "loopback") {
		t.Errorf("serve --pprof-addr 0.0.0.0:6060: %v, want a loopback error", err)
	}
}

func TestPprofServesProfiles(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	addr, err := startPprof(ctx, "127.0.0.1:0", slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{"/debug/pprof/", "/debug/pprof/heap", "/debug/pprof/goroutine?debug=1", "/debug/pprof/profile?seconds=1"} {
		resp, err := http.Get("http://" + addr + path)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || len(body) == 0 {
			t.Errorf("GET %s: %d, %d bytes", path, resp.StatusCode, len(body))
		}
	}
}
