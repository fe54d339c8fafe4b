package api

import (
	"net/http"

	"github.com/labstack/echo/v4"
)

// healthResponse is the body of /healthz and /readyz.
type healthResponse struct {
	Status string `json:"status"`
}

// healthz answers as long as the process serves HTTP.
func (s *Server) healthz(c echo.Context) error {
	return c.JSON(http.StatusOK, healthResponse{Status: "ok"})
}

// readyz answers 200 when every backend is reachable, else 503 naming the one that is not.
func (s *Server) readyz(c echo.Context) error {
	if err := s.engine.Ready(c.Request().Context()); err != nil {
		return echo.NewHTTPError(http.StatusServiceUnavailable, "not ready: "+err.Error())
	}
	return c.JSON(http.StatusOK, healthResponse{Status: "ready"})
}
