package api

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/api/wire"
	"github.com/kgmem/kgmem/memory"
	"github.com/labstack/echo/v4"
)

func (s *Server) postSearch(c echo.Context) error {
	var body wire.SearchRequest
	if err := decodeJSON(c, &body); err != nil {
		return err
	}
	ns, err := kgmem.ParseNamespace(string(body.Namespace))
	if err != nil {
		return err
	}
	asOf, err := parseTime("as_of", body.AsOf)
	if err != nil {
		return err
	}
	req := memory.SearchRequest{
		Namespace: ns, Query: body.Query, Limit: body.Limit, IncludeHistory: body.IncludeHistory,
		IncludeForgotten: body.IncludeForgotten, AsOf: asOf, Reinforce: body.Reinforce == nil || *body.Reinforce,
		Recipe: body.Recipe,
	}
	for i, inc := range body.Include {
		// Accept the plural the response uses ("facts") and the kind ("fact").
		k := kgmem.Kind(strings.TrimSuffix(inc, "s"))
		if inc == "entities" {
			k = kgmem.KindEntity
		}
		if !k.Valid() {
			return kgmem.Invalidf(fmt.Sprintf("include[%d]", i), "is %q; use facts, episodes, entities or items", inc)
		}
		req.Include = append(req.Include, k)
	}
	res, err := s.engine.Search(c.Request().Context(), req)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, wireSearchResult(res))
}
