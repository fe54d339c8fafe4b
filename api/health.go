package api

import (
	"net/http"

	"github.com/kgmem/kgmem/api/wire"
	"github.com/labstack/echo/v4"
)

// healthz answers as long as the process serves HTTP.
func (s *Server) healthz(c echo.Context) error {
	return c.JSON(http.StatusOK, wire.Health{Status: "ok"})
}

// readyz answers 200 when every backend is reachable, else 503 naming the one that is not.
func (s *Server) readyz(c echo.Context) error {
	if err := s.engine.Ready(c.Request().Context()); err != nil {
		return echo.NewHTTPError(http.StatusServiceUnavailable, "not ready: "+err.Error())
	}
	queued := s.engine.OutboxDepth()
	return c.JSON(http.StatusOK, wire.Health{Status: "ready", VectorOutbox: &queued})
}
