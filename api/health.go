package api

import (
	"context"
	"net/http"
	"time"

	"github.com/kgmem/kgmem/api/wire"
	"github.com/labstack/echo/v4"
)

// healthz answers as long as the process serves HTTP.
func (s *Server) healthz(c echo.Context) error {
	return c.JSON(http.StatusOK, wire.Health{Status: "ok"})
}

// readyCheckTimeout bounds the backend checks of /readyz, so that a backend
// that stalls gets its 503 within a probe's timeout (Kubernetes' default is
// 1 s) rather than after the request's.
const readyCheckTimeout = time.Second

// readyz answers 200 when every backend is reachable, else 503 naming the one
// that is not, within readyCheckTimeout.
func (s *Server) readyz(c echo.Context) error {
	ctx, cancel := context.WithTimeout(c.Request().Context(), readyCheckTimeout)
	defer cancel()
	if err := s.engine.Ready(ctx); err != nil {
		return echo.NewHTTPError(http.StatusServiceUnavailable, "not ready: "+err.Error())
	}
	queued := s.engine.OutboxDepth()
	return c.JSON(http.StatusOK, wire.Health{Status: "ready", VectorOutbox: &queued})
}
