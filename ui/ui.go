// Package ui serves kgmem's web explorer: the static single-page app built
// from this directory (Vite + TypeScript + Cytoscape.js, see docs/guides/web-explorer.md) into
// dist/ and embedded in the binary. The app talks to the server only through
// the public REST API; this package adds no route of its own beyond the files.
package ui

import (
	"embed"
	"io/fs"
	"net/http"
	"path"
	"strings"
)

//go:embed all:dist
var dist embed.FS

// Prefix is where the explorer is served.
const Prefix = "/ui"

// ContentSecurityPolicy is sent with every explorer response: scripts,
// styles, images and API calls from this origin only, nothing inline, no
// framing, no plugins.
const ContentSecurityPolicy = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; " +
	"connect-src 'self'; font-src 'self'; manifest-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

// Handler serves the explorer under Prefix: /ui redirects to /ui/, which is
// the app's page; /ui/assets/… are its content-hashed bundles, cached for a
// year; anything else is a 404. Only GET and HEAD are allowed.
func Handler() http.Handler {
	files, err := fs.Sub(dist, "dist")
	if err != nil {
		panic("ui: embedded dist is missing: " + err.Error()) // a build defect, caught by TestHandler
	}
	static := http.FileServerFS(files)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", ContentSecurityPolicy)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("X-Frame-Options", "DENY")
		h.Set("Cross-Origin-Opener-Policy", "same-origin")
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			h.Set("Allow", "GET, HEAD")
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		rel, ok := strings.CutPrefix(r.URL.Path, Prefix)
		switch {
		case !ok:
			http.NotFound(w, r)
			return
		case rel == "":
			http.Redirect(w, r, Prefix+"/", http.StatusMovedPermanently)
			return
		case rel == "/" || rel == "/index.html":
			h.Set("Cache-Control", "no-cache")
			http.ServeFileFS(w, r, files, "index.html")
			return
		}
		name := strings.TrimPrefix(path.Clean(rel), "/")
		if st, err := fs.Stat(files, name); err != nil || st.IsDir() {
			http.NotFound(w, r)
			return
		}
		if strings.HasPrefix(name, "assets/") {
			h.Set("Cache-Control", "public, max-age=31536000, immutable")
		} else {
			h.Set("Cache-Control", "no-cache")
		}
		r2 := r.Clone(r.Context())
		r2.URL.Path = "/" + name
		static.ServeHTTP(w, r2)
	})
}
