package main

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
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

// The example runs against a real kgmem server (internal/apitest: the
// embedded SQLite + HNSW pair) and prints what its comments promise: the
// later fact retires the earlier one, the search ranks the current fact
// first, and a second run rewrites the same records instead of adding more.
func TestQuickstart(t *testing.T) {
	srv, closeAPI, err := apitest.New(t.TempDir(), api.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(closeAPI)
	hs := httptest.NewServer(srv.Handler())
	t.Cleanup(hs.Close)

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
		if err := run(context.Background(), hs.URL, "", &out); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if got := out.String(); got != tc.want {
			t.Errorf("%s printed\n%s\nwant\n%s", tc.name, got, tc.want)
		}
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
