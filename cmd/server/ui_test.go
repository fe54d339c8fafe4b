package main

import (
	"context"
	"net"
	"net/http"
	"testing"
	"time"
)

// The web explorer is on by default; --ui=false and KGMEM_UI=false turn it off.
func TestServeUIFlag(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		env  string
		want int
	}{
		{"default", nil, "", http.StatusOK},
		{"flag off", []string{"--ui=false"}, "", http.StatusNotFound},
		{"env off", nil, "false", http.StatusNotFound},
		{"flag wins over env", []string{"--ui=true"}, "false", http.StatusOK},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("KGMEM_UI", tc.env)
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			addr := ln.Addr().String()
			_ = ln.Close()
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan error, 1)
			args := append([]string{"--addr", addr, "--data-dir", t.TempDir(), "--log-level", "error", "--sweep-interval", "0"}, tc.args...)
			go func() { done <- serveWith(ctx, args) }()
			defer func() {
				cancel()
				if err := <-done; err != nil {
					t.Errorf("serve: %v", err)
				}
			}()
			deadline := time.Now().Add(30 * time.Second)
			for {
				resp, err := http.Get("http://" + addr + "/ui/")
				if err == nil {
					resp.Body.Close()
					if resp.StatusCode != tc.want {
						t.Fatalf("GET /ui/: %d, want %d", resp.StatusCode, tc.want)
					}
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("server did not answer: %v", err)
				}
				time.Sleep(20 * time.Millisecond) // polling interval under the deadline above
			}
			resp, err := http.Get("http://" + addr + "/healthz")
			if err != nil || resp.StatusCode != http.StatusOK {
				t.Fatalf("healthz with ui %v: %v %v", tc.args, resp, err)
			}
			resp.Body.Close()
		})
	}
}
