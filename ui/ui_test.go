package ui_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	"github.com/kgmem/kgmem/ui"
)

func get(t *testing.T, h http.Handler, method, path string) (*http.Response, string) {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(method, path, nil))
	resp := rec.Result()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, string(body)
}

func TestHandler(t *testing.T) {
	h := ui.Handler()
	_, index := get(t, h, http.MethodGet, "/ui/")
	assets := regexp.MustCompile(`(?:src|href)="(/ui/[^"]+)"`).FindAllStringSubmatch(index, -1)
	if len(assets) < 3 {
		t.Fatalf("index.html references %d files: %s", len(assets), index)
	}
	tests := []struct {
		name, method, path string
		status             int
		contentType        string
		cache              string
	}{
		{"page", http.MethodGet, "/ui/", http.StatusOK, "text/html", "no-cache"},
		{"page by name", http.MethodGet, "/ui/index.html", http.StatusMovedPermanently, "", ""},
		{"bare prefix", http.MethodGet, "/ui", http.StatusMovedPermanently, "", ""},
		{"head", http.MethodHead, "/ui/", http.StatusOK, "text/html", "no-cache"},
		{"unknown file", http.MethodGet, "/ui/nope.js", http.StatusNotFound, "", ""},
		{"directory", http.MethodGet, "/ui/assets/", http.StatusNotFound, "", ""},
		{"escape", http.MethodGet, "/ui/../ui.go", http.StatusNotFound, "", ""},
		{"post", http.MethodPost, "/ui/", http.StatusMethodNotAllowed, "", ""},
	}
	for _, a := range assets {
		ct := "text/javascript"
		switch {
		case strings.HasSuffix(a[1], ".css"):
			ct = "text/css"
		case strings.HasSuffix(a[1], ".svg"):
			ct = "image/svg+xml"
		}
		cache := "no-cache"
		if strings.HasPrefix(a[1], "/ui/assets/") {
			cache = "public, max-age=31536000, immutable"
		}
		tests = append(tests, struct {
			name, method, path string
			status             int
			contentType        string
			cache              string
		}{"asset " + a[1], http.MethodGet, a[1], http.StatusOK, ct, cache})
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			resp, _ := get(t, h, tc.method, tc.path)
			if resp.StatusCode != tc.status {
				t.Fatalf("status %d, want %d", resp.StatusCode, tc.status)
			}
			if got := resp.Header.Get("Content-Security-Policy"); got != ui.ContentSecurityPolicy {
				t.Errorf("CSP %q", got)
			}
			if resp.Header.Get("X-Content-Type-Options") != "nosniff" || resp.Header.Get("X-Frame-Options") != "DENY" {
				t.Errorf("headers %v", resp.Header)
			}
			if tc.contentType != "" && !strings.HasPrefix(resp.Header.Get("Content-Type"), tc.contentType) {
				t.Errorf("Content-Type %q, want %s", resp.Header.Get("Content-Type"), tc.contentType)
			}
			if tc.cache != "" && resp.Header.Get("Cache-Control") != tc.cache {
				t.Errorf("Cache-Control %q, want %q", resp.Header.Get("Cache-Control"), tc.cache)
			}
		})
	}
}

// The page may carry no inline script or style: the CSP forbids both.
func TestIndexHasNoInlineCode(t *testing.T) {
	_, index := get(t, ui.Handler(), http.MethodGet, "/ui/")
	scripts := regexp.MustCompile(`<script[^>]*>`).FindAllString(index, -1)
	if len(scripts) == 0 {
		t.Fatal("index.html loads no script")
	}
	for _, tag := range scripts {
		if !strings.Contains(tag, ` src="/ui/`) {
			t.Errorf("inline or foreign script %q", tag)
		}
	}
	for _, bad := range []*regexp.Regexp{
		regexp.MustCompile(`<style`),
		regexp.MustCompile(`\sstyle=`),
		regexp.MustCompile(`\son[a-z]+=`),
		regexp.MustCompile(`https?://`),
	} {
		if m := bad.FindString(index); m != "" {
			t.Errorf("index.html has %q (inline code or a remote URL)", m)
		}
	}
}
