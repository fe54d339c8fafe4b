package api

import (
	"net/http"

	"github.com/kgmem/kgmem"
	"github.com/labstack/echo/v4"
)

// purgeResponse is the body of DELETE /v1/namespaces/{namespace}.
type purgeResponse struct {
	Namespace kgmem.Namespace  `json:"namespace"`
	Deleted   kgmem.PurgeStats `json:"deleted"`
}

func (s *Server) purgeNamespace(c echo.Context) error {
	ns, err := namespacePathParam(c)
	if err != nil {
		return err
	}
	stats, err := s.engine.PurgeNamespace(c.Request().Context(), ns)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, purgeResponse{Namespace: ns, Deleted: stats})
}
