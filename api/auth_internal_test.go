package api

import (
	"net/http"
	"testing"

	"github.com/kgmem/kgmem/auth"
	"github.com/labstack/echo/v4"
)

// TestEveryRouteHasAccessPolicy walks the route table and the registered
// routes: each registered route is a row of the table (so it has a
// policy), and every row that is not public names its right and where its
// namespace comes from.
func TestEveryRouteHasAccessPolicy(t *testing.T) {
	s := New(nil, Options{MCP: http.NotFoundHandler()}, nil)
	rows := map[string]route{}
	for _, r := range routeTable() {
		key := r.Method + " " + r.Path
		if _, dup := rows[key]; dup {
			t.Errorf("route %s has two rows in the route table", key)
		}
		rows[key] = r
	}
	for _, r := range s.Routes() {
		if _, ok := rows[r.Method+" "+r.Path]; !ok {
			t.Errorf("route %s %s is registered outside the route table (api/routes.go)", r.Method, r.Path)
		}
	}
	for route, r := range rows {
		pol := r.Access
		if pol.public {
			if route != "GET /healthz" && route != "GET /readyz" && route != "GET /openapi.json" {
				t.Errorf("route %s is public; only health and the OpenAPI document may be", route)
			}
			continue
		}
		if pol.right != auth.Read && pol.right != auth.Write && pol.right != auth.Admin {
			t.Errorf("route %s has no right", route)
		}
		if pol.ns == nsCalls && route != "POST /mcp" {
			t.Errorf("route %s defers its namespace checks to the REST calls it makes; only POST /mcp may", route)
		}
		if pol.ns == nsKeyScope && route != "GET /v1/namespaces" && route != "GET /v1/items/namespaces" {
			t.Errorf("route %s filters by the key's scope; only the namespace listings may", route)
		}
		if pol.ns == nsNone && pol.right != auth.Admin {
			t.Errorf("route %s reads no namespace, so only the admin may call it", route)
		}
	}
}

// TestRouteOutsideTheTableIsAdminOnly: a handler registered on echo
// without a row (a mistake TestEveryRouteHasAccessPolicy reports) needs
// the admin key rather than none.
func TestRouteOutsideTheTableIsAdminOnly(t *testing.T) {
	s := New(nil, Options{}, nil)
	s.echo.GET("/v1/rogue", func(echo.Context) error { return nil })
	for _, tc := range []struct {
		route string
		known bool
		want  access
	}{
		{"GET /v1/rogue", true, access{right: auth.Admin, ns: nsNone}},
		{"GET /v1/episodes", true, access{right: auth.Read, ns: nsQuery}},
		{"GET /healthz", true, access{public: true}},
		{"POST /v1/episodes", false, access{}},
		{"GET /v1/nothing", false, access{}},
	} {
		if pol, known := s.policyOf(tc.route); known != tc.known || pol != tc.want {
			t.Errorf("%s: policy %+v known %v, want %+v %v", tc.route, pol, known, tc.want, tc.known)
		}
	}
}
