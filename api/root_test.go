package api_test

import (
	"net/http"
	"path/filepath"
	"testing"

	"github.com/kgmem/kgmem/api"
	"github.com/kgmem/kgmem/auth"
	"github.com/kgmem/kgmem/ui"
)

// GET / leads a browser to the web explorer, on a keyless server and on a
// keyed one (the page asks for a key itself); without the explorer, and for
// other methods, the root stays the API's 404 / 405.
func TestRootRedirectsToExplorer(t *testing.T) {
	keyed := func(t *testing.T) *auth.Authenticator {
		a, err := auth.NewAuthenticator("kgm_admin_root_test_key_0123456789", nil)
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	keyless := func(t *testing.T) *auth.Authenticator {
		st, err := auth.OpenStore(t.Context(), filepath.Join(t.TempDir(), "keys.db"))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = st.Close() })
		a, err := auth.NewAuthenticator("", st)
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	for _, tc := range []struct {
		name     string
		auth     func(t *testing.T) *auth.Authenticator
		ui       bool
		method   string
		status   int
		location string
	}{
		{"keyless GET", keyless, true, http.MethodGet, http.StatusFound, "/ui/"},
		{"keyless HEAD", keyless, true, http.MethodHead, http.StatusFound, "/ui/"},
		{"keyed GET", keyed, true, http.MethodGet, http.StatusFound, "/ui/"},
		{"POST is not a page", keyless, true, http.MethodPost, http.StatusNotFound, ""},
		{"no explorer", keyless, false, http.MethodGet, http.StatusNotFound, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opts := api.Options{Auth: tc.auth(t)}
			if tc.ui {
				opts.UI = ui.Handler()
			}
			s := newTestServer(t, backends(t)[0], opts, nil)
			client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
			req, err := http.NewRequestWithContext(t.Context(), tc.method, s.url+"/", nil)
			if err != nil {
				t.Fatal(err)
			}
			resp, err := client.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != tc.status {
				t.Fatalf("%s /: %d, want %d", tc.method, resp.StatusCode, tc.status)
			}
			if got := resp.Header.Get("Location"); got != tc.location {
				t.Fatalf("Location %q, want %q", got, tc.location)
			}
			if tc.location == "" {
				return
			}
			// The redirect lands on the explorer's page.
			page, err := http.Get(s.url + "/")
			if err != nil {
				t.Fatal(err)
			}
			page.Body.Close()
			if page.StatusCode != http.StatusOK || page.Request.URL.Path != "/ui/" {
				t.Fatalf("following the redirect: %d at %s", page.StatusCode, page.Request.URL.Path)
			}
		})
	}
}
