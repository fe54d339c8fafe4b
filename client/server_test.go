package client_test

import (
	"net/http/httptest"
	"testing"

	"github.com/kgmem/kgmem/api"
	"github.com/kgmem/kgmem/client"
	"github.com/kgmem/kgmem/internal/apitest"
)

// newServer starts a real kgmem server (internal/apitest) and returns a
// client of it.
func newServer(t testing.TB, opts ...client.Option) *client.Client {
	t.Helper()
	url, stop, err := serve(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(stop)
	c, err := client.New(url, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// serve starts a real kgmem server on loopback with its data in dir; stop
// shuts it down.
func serve(dir string) (url string, stop func(), err error) {
	srv, closeAPI, err := apitest.New(dir, api.Options{})
	if err != nil {
		return "", nil, err
	}
	hs := httptest.NewServer(srv.Handler())
	return hs.URL, func() { hs.Close(); closeAPI() }, nil
}
