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
	return kgmem.ParseNamespace(c.QueryParam("namespace"))
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
	page := kgmem.Page{After: c.QueryParam("after"), Limit: 100}
	if v := c.QueryParam("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > s.opts.MaxPageSize {
			return kgmem.Page{}, kgmem.Invalidf("limit", "is %q, must be an integer within 1..%d", v, s.opts.MaxPageSize)
		}
		page.Limit = n
	}
	return page, nil
}

// boolParam reads an optional boolean query parameter.
func boolParam(c echo.Context, name string) (bool, error) {
	v := c.QueryParam(name)
	if v == "" {
		return false, nil
	}
	b, err := strconv.ParseBool(v)
	if err != nil {
		return false, kgmem.Invalidf(name, "is %q, must be true or false", v)
	}
	return b, nil
}
