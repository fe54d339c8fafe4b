package api

// RouteRow is a row of the route table as the tests outside the package
// see it.
type RouteRow struct {
	Method, Path string
	// Public routes need no key.
	Public bool
}

// RouteRows lists the route table (api/routes.go), for the tests that must
// cover every route (the isolation probes).
func RouteRows() []RouteRow {
	var out []RouteRow
	for _, r := range routeTable() {
		out = append(out, RouteRow{Method: r.Method, Path: r.Path, Public: r.Access.public})
	}
	return out
}

// OpenAPIPath turns echo's /v1/facts/:id into the document's
// /v1/facts/{id}.
var OpenAPIPath = openAPIPath
