package main

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/api"
	"github.com/kgmem/kgmem/internal/apitest"
)

// context_ is what the search answers for the LLM prompt, on either run.
const context_ = `context:
# Facts
- Ana lives in Porto. (since 2024-05-01)
# Entities
- Ana (Other)
- Lisbon (Other)
- Porto (Other)
# Messages
- [2024-05-02 10:00] Ana: I moved to Porto in May.
- [2024-06-10 09:00] Ana: I started at Acme as a data engineer.

`

// serve starts a real kgmem server (internal/apitest: the engine on the
// embedded SQLite + HNSW pair) for the test and returns its URL.
func serve(t *testing.T) string {
	t.Helper()
	srv, closeAPI, err := apitest.New(t.TempDir(), api.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(closeAPI)
	hs := httptest.NewServer(srv.Handler())
	t.Cleanup(hs.Close)
	return hs.URL
}

// The example runs against a real kgmem server and prints what its
// comments promise: the later fact retires the earlier one, the search ranks
// the current fact first, and a second run rewrites the same records instead
// of adding more.
func TestQuickstart(t *testing.T) {
	url := serve(t)
	for _, tc := range []struct {
		name, want string
	}{
		{"first run", "messages: 2 episodes\n" +
			"fact added: Ana lives in Lisbon.\n" +
			"fact added: Ana lives in Porto.\n" +
			"fact invalidated: Ana lives in Lisbon.\n" +
			"top fact: Ana lives in Porto.\n" + context_},
		{"second run", "messages: 2 episodes\n" +
			"fact duplicate: Ana lives in Lisbon.\n" +
			"fact duplicate: Ana lives in Porto.\n" +
			"top fact: Ana lives in Porto.\n" + context_},
	} {
		var out bytes.Buffer
		if err := run(context.Background(), url, "", &out); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if got := out.String(); got != tc.want {
			t.Errorf("%s printed\n%s\nwant\n%s", tc.name, got, tc.want)
		}
	}
}

// examples/README.md shows what the quickstarts print on a first run.
func TestReadmeShowsTheOutput(t *testing.T) {
	raw, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("(?s)```text\n(.*?)```").FindSubmatch(raw)
	if m == nil {
		t.Fatal("examples/README.md has no text block of the output")
	}
	url := serve(t)
	var out bytes.Buffer
	if err := run(context.Background(), url, "", &out); err != nil {
		t.Fatal(err)
	}
	if got, shown := strings.TrimSpace(out.String()), strings.TrimSpace(string(m[1])); got != shown {
		t.Errorf("the quickstart prints\n%s\nexamples/README.md shows\n%s", got, shown)
	}
}

// With no server answering, run returns an error naming the step and
// kgmem.ErrUnavailable, and prints nothing.
func TestQuickstartWithoutAServer(t *testing.T) {
	hs := httptest.NewServer(http.NotFoundHandler())
	url := hs.URL
	hs.Close()
	var out bytes.Buffer
	err := run(context.Background(), url, "", &out)
	if !errors.Is(err, kgmem.ErrUnavailable) || !strings.HasPrefix(err.Error(), "add messages: ") {
		t.Fatalf("err = %v, want add messages: … ErrUnavailable", err)
	}
	if out.Len() != 0 {
		t.Errorf("printed %q", out.String())
	}
}
