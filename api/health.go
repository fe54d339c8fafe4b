package api

import (
	"net/http"

	"github.com/labstack/echo/v4"
)

// healthResponse is the body of /healthz and /readyz.
type healthResponse struct {
	Status string `json:"status"`
	// VectorOutbox (readyz only) counts vector writes queued for retry: the
	// vector index lags the graph by this many records.
	VectorOutbox *int `json:"vector_outbox,omitempty"`
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
	queued := s.engine.OutboxDepth()
	return c.JSON(http.StatusOK, healthResponse{Status: "ready", VectorOutbox: &queued})
}
