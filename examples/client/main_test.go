package main

import (
	"bytes"
	"context"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/kgmem/kgmem/api"
	"github.com/kgmem/kgmem/internal/apitest"
)

// TestRun runs the example against a real kgmem server and reads back the
// facts it stored: the current one first.
func TestRun(t *testing.T) {
	srv, closeAPI, err := apitest.New(t.TempDir(), api.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(closeAPI)
	hs := httptest.NewServer(srv.Handler())
	t.Cleanup(hs.Close)

	var out bytes.Buffer
	if err := run(context.Background(), &out, hs.URL, "demo/alice", "Who leads the ML team?"); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) == 0 || !strings.HasPrefix(lines[0], "current") || !strings.Contains(lines[0], "Bob leads ML team.") {
		t.Errorf("the example printed %q; want the current fact \"Bob leads ML team.\" first", out.String())
	}
	if err := run(context.Background(), &out, hs.URL, "not a namespace!", "x"); err == nil || !strings.Contains(err.Error(), "namespace") {
		t.Errorf("a bad namespace: %v, want the server's refusal naming the field", err)
	}
}
