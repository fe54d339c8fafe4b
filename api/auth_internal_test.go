package api

import (
	"net/http"
	"testing"

	"github.com/kgmem/kgmem/auth"
)

// TestEveryRouteHasAccessPolicy walks every registered route: each needs an
// entry in routeAccess (a missing one is admin-only at run time, fail closed),
// and every route that is not public names where its namespace comes from.
func TestEveryRouteHasAccessPolicy(t *testing.T) {
	s := New(nil, Options{MCP: http.NotFoundHandler()}, nil)
	for _, r := range s.Routes() {
		route := r.Method + " " + r.Path
		pol, ok := routeAccess[route]
		if !ok {
			t.Errorf("route %s has no entry in routeAccess (api/auth.go)", route)
			continue
		}
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
