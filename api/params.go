package api

import (
	"net/url"
	"strconv"

	"github.com/kgmem/kgmem"
	"github.com/labstack/echo/v4"
)

// namespaceParam reads and validates the required ?namespace= query parameter.
func namespaceParam(c echo.Context) (kgmem.Namespace, error) {
	if !c.QueryParams().Has("namespace") {
		return "", kgmem.Invalidf("namespace", "query parameter is required")
	}
	v, err := queryParam(c, "namespace")
	if err != nil {
		return "", err
	}
	return kgmem.ParseNamespace(v)
}

// namespacePathParam reads the namespace path segment, URL-encoded as one
// segment ("acme%2Fusers%2Fu42").
func namespacePathParam(c echo.Context) (kgmem.Namespace, error) {
	raw, err := url.PathUnescape(c.Param("namespace"))
	if err != nil {
		return "", kgmem.Invalidf("namespace", "is not a valid URL-encoded path segment: %v", err)
	}
	return kgmem.ParseNamespace(raw)
}

// pageParams reads ?limit= (1..MaxLimit, default 100) and ?after=.
func (s *Server) pageParams(c echo.Context) (kgmem.Page, error) {
	after, err := queryParam(c, "after")
	if err != nil {
		return kgmem.Page{}, err
	}
	page := kgmem.Page{After: after, Limit: 100}
	n, ok, err := intParam(c, "limit", 1, s.opts.MaxPageSize)
	if err != nil {
		return kgmem.Page{}, err
	}
	if ok {
		page.Limit = n
	}
	return page, nil
}

// queryParam reads an optional query parameter given at most once.
func queryParam(c echo.Context, name string) (string, error) {
	if vs := c.QueryParams()[name]; len(vs) > 1 {
		return "", kgmem.Invalidf(name, "is given %d times, at most once allowed", len(vs))
	}
	return c.QueryParam(name), nil
}

// intParam reads an optional integer query parameter within lo..hi; ok is
// false when it is absent. Given, it must be an integer: ?limit= is a 400.
func intParam(c echo.Context, name string, lo, hi int) (n int, ok bool, err error) {
	v, err := queryParam(c, name)
	if err != nil || !c.QueryParams().Has(name) {
		return 0, false, err
	}
	n, err = strconv.Atoi(v)
	if err != nil || n < lo || n > hi {
		return 0, false, kgmem.Invalidf(name, "is %q, must be an integer within %d..%d", v, lo, hi)
	}
	return n, true, nil
}

// boolParam reads an optional boolean query parameter: true or false.
func boolParam(c echo.Context, name string) (bool, error) {
	v, err := queryParam(c, name)
	switch {
	case err != nil:
		return false, err
	case !c.QueryParams().Has(name):
		return false, nil
	case v == "true":
		return true, nil
	case v == "false":
		return false, nil
	}
	return false, kgmem.Invalidf(name, "is %q, must be true or false", v)
}
