package api

import (
	"net/http"

	"github.com/kgmem/kgmem/api/wire"
	"github.com/kgmem/kgmem/memory"
	"github.com/labstack/echo/v4"
)

func (s *Server) listEntities(c echo.Context) error {
	ns, err := namespaceParam(c)
	if err != nil {
		return err
	}
	page, err := s.pageParams(c)
	if err != nil {
		return err
	}
	ids, err := s.idsParam(c, page)
	if err != nil {
		return err
	}
	q, err := queryParam(c, "q")
	if err != nil {
		return err
	}
	typ, err := queryParam(c, "type")
	if err != nil {
		return err
	}
	ents, err := s.engine.ListEntities(c.Request().Context(), memory.ListEntitiesRequest{Namespace: ns, IDs: ids, Query: q, Type: typ, Page: page})
	if err != nil {
		return err
	}
	out := wire.EntityList{Entities: ents}
	if len(ids) == 0 && len(ents) == page.Limit {
		out.Next = ents[len(ents)-1].ID
	}
	return c.JSON(http.StatusOK, out)
}

func (s *Server) getEntity(c echo.Context) error {
	ns, err := namespaceParam(c)
	if err != nil {
		return err
	}
	ent, err := s.engine.Entity(c.Request().Context(), ns, c.Param("id"))
	if err != nil {
		return notFound(err, "entity", c.Param("id"), ns)
	}
	return c.JSON(http.StatusOK, ent)
}
