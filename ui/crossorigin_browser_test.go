//go:build browser

package ui_test

import (
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestExplorerCrossOriginPagesCannotReachAnOpenServer: a server without API
// keys on loopback, and a web page of another origin in a real Chromium (a
// second loopback port is another origin), which tries what any page can:
// simple requests (fetch with mode "no-cors": a text/plain or typeless body
// needs no CORS preflight), a JSON request (which does), reads, and a
// DNS-rebinding page (a name of the attacker's that resolves to 127.0.0.1,
// so the page is same-origin with the server and sends Host: that name). It
// must neither read the stored memory nor write any. (Named under
// TestExplorer so that scripts/test-ui.sh runs it.)
func TestExplorerCrossOriginPagesCannotReachAnOpenServer(t *testing.T) {
	// The guard is in the HTTP layer, in front of every backend: one pair.
	s := startServerEnv(t, backendPairs(t)[0], nil, "KGMEM_ADMIN_KEY=")
	const secret = "the door code is 4711"
	const victim, pwned = "victim/u1", "pwned/u1"
	if st := s.call(http.MethodPost, "/v1/memories", map[string]any{"namespace": victim, "messages": []any{map[string]any{"content": secret}}}, nil); st != http.StatusCreated {
		t.Fatalf("seed: %d", st)
	}
	evil := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = io.WriteString(w, "<!doctype html><title>not kgmem</title><p>a page of another origin</p>")
	}))
	t.Cleanup(evil.Close)
	u, err := url.Parse(s.base)
	if err != nil {
		t.Fatal(err)
	}
	_, port, _ := net.SplitHostPort(u.Host)
	b := newBrowser(t, chromedp.Flag("host-resolver-rules", "MAP rebind.test 127.0.0.1"))

	write := `JSON.stringify({namespace: "` + pwned + `", messages: [{content: "written by a web page"}]})`
	fact := `JSON.stringify({namespace: "` + pwned + `", facts: [{subject: "Eve", predicate: "owns", object: "the house"}]})`
	mcpCall := `JSON.stringify({jsonrpc: "2.0", id: 1, method: "tools/call", params: {name: "add_memories", arguments: {namespace: "` + pwned + `", content: "written through MCP"}}})`
	read := `"/v1/episodes?namespace=` + url.QueryEscape(victim) + `"`
	// Each expression is awaited; it yields what the page got to see.
	settle := `.then(async r => r.type + " " + r.status + " " + await r.text(), e => "failed: " + e)`

	b.do("the other origin's page", chromedp.Navigate(evil.URL))
	if origin := b.eval(`location.origin`); origin == s.base {
		t.Fatalf("the page is on the server's own origin %s", origin)
	}
	S := jsString(s.base)
	for _, tc := range []struct{ name, expr string }{
		{"no-cors POST of a typeless Blob (no Content-Type)", `fetch(` + S + ` + "/v1/memories", {method: "POST", mode: "no-cors", body: new Blob([` + write + `])})`},
		{"no-cors POST of text/plain", `fetch(` + S + ` + "/v1/memories", {method: "POST", mode: "no-cors", body: ` + write + `})`},
		{"no-cors POST of bytes to /v1/facts", `fetch(` + S + ` + "/v1/facts", {method: "POST", mode: "no-cors", body: new TextEncoder().encode(` + fact + `)})`},
		{"no-cors POST claiming JSON (the browser drops the header)", `fetch(` + S + ` + "/v1/facts", {method: "POST", mode: "no-cors", headers: {"Content-Type": "application/json"}, body: ` + fact + `})`},
		{"no-cors POST to /mcp", `fetch(` + S + ` + "/mcp", {method: "POST", mode: "no-cors", body: new Blob([` + mcpCall + `])})`},
		{"no-cors POST without a body (sweep)", `fetch(` + S + ` + "/v1/namespaces/` + url.PathEscape(victim) + `/sweep", {method: "POST", mode: "no-cors"})`},
		{"a JSON POST (preflighted)", `fetch(` + S + ` + "/v1/memories", {method: "POST", headers: {"Content-Type": "application/json"}, body: ` + write + `})`},
		{"a cors read", `fetch(` + S + ` + ` + read + `)`},
		{"a no-cors read", `fetch(` + S + ` + ` + read + `, {mode: "no-cors"})`},
	} {
		got := b.evalAsync(tc.expr + settle)
		t.Logf("%s: %.120q", tc.name, got)
		if strings.Contains(got, "4711") {
			t.Errorf("%s: the page read the stored memory: %q", tc.name, got)
		}
	}

	// DNS rebinding: the attacker's name now resolves to 127.0.0.1, so its
	// page shares the server's origin and reads answers, but the server
	// sees Host: rebind.test.
	rebound := "http://rebind.test:" + port
	b.do("the rebound page", chromedp.Navigate(rebound+"/healthz"))
	if origin := b.eval(`location.origin`); origin != rebound {
		t.Fatalf("the rebound page's origin is %s, want %s", origin, rebound)
	}
	for _, tc := range []struct{ name, expr string }{
		{"a rebound read", `fetch(` + read + `)`},
		{"a rebound search", `fetch("/v1/search", {method: "POST", headers: {"Content-Type": "application/json"}, body: JSON.stringify({namespace: "` + victim + `", query: "door code"})})`},
		{"a rebound JSON write", `fetch("/v1/memories", {method: "POST", headers: {"Content-Type": "application/json"}, body: ` + write + `})`},
		{"a rebound MCP call", `fetch("/mcp", {method: "POST", headers: {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}, body: ` + mcpCall + `})`},
	} {
		got := b.evalAsync(tc.expr + settle)
		t.Logf("%s: %.160q", tc.name, got)
		if strings.Contains(got, "4711") {
			t.Errorf("%s: the rebound page read the stored memory: %q", tc.name, got)
		}
		if !strings.HasPrefix(got, "basic 403 ") || !strings.Contains(got, "Host") {
			t.Errorf("%s: got %.200q, want a 403 naming the Host header", tc.name, got)
		}
	}

	// Nothing the pages sent was stored, and the victim's memory is intact.
	var eps struct {
		Episodes []struct {
			Content string `json:"content"`
		} `json:"episodes"`
	}
	if st := s.call(http.MethodGet, "/v1/episodes?namespace="+url.QueryEscape(pwned), nil, &eps); st != http.StatusOK || len(eps.Episodes) != 0 {
		t.Errorf("the pages wrote %d messages (status %d): %+v", len(eps.Episodes), st, eps.Episodes)
	}
	var facts struct {
		Facts []any `json:"facts"`
	}
	if st := s.call(http.MethodGet, "/v1/facts?namespace="+url.QueryEscape(pwned), nil, &facts); st != http.StatusOK || len(facts.Facts) != 0 {
		t.Errorf("the pages wrote %d facts (status %d)", len(facts.Facts), st)
	}
	if st := s.call(http.MethodGet, "/v1/episodes?namespace="+url.QueryEscape(victim), nil, &eps); st != http.StatusOK || len(eps.Episodes) != 1 || eps.Episodes[0].Content != secret {
		t.Errorf("the victim's memory changed: %d %+v", st, eps.Episodes)
	}
}
