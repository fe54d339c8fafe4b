package api

import (
	"net/http"

	"github.com/kgmem/kgmem/api/wire"
	"github.com/labstack/echo/v4"
)

func (s *Server) purgeNamespace(c echo.Context) error {
	ns, err := namespacePathParam(c)
	if err != nil {
		return err
	}
	stats, err := s.engine.PurgeNamespace(c.Request().Context(), ns)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, wire.PurgeResult{Namespace: ns, Deleted: stats})
}
