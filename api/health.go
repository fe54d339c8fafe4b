package api

import (
	"context"
	"net/http"
	"strings"
	"time"

	"github.com/kgmem/kgmem/api/wire"
	"github.com/kgmem/kgmem/memory"
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

// readyz answers 200 "ready" when every backend is reachable; 200
// "degraded" when the server accepts writes but not every backend serves
// (the vector index is unreachable while the durable outbox keeps its
// writes, or it is being rebuilt after losing its collection); and 503
// naming the backend when writes cannot be accepted. It answers within
// readyCheckTimeout.
func (s *Server) readyz(c echo.Context) error {
	ctx, cancel := context.WithTimeout(c.Request().Context(), readyCheckTimeout)
	defer cancel()
	r := s.engine.Readiness(ctx)
	if !r.Ready {
		var msgs []string
		if r.Graph.Err != nil {
			msgs = append(msgs, "graph store: "+r.Graph.Err.Error())
		}
		if r.Vectors.Err != nil {
			msgs = append(msgs, "vector index: "+r.Vectors.Err.Error())
		}
		return echo.NewHTTPError(http.StatusServiceUnavailable, "not ready: "+strings.Join(msgs, "; "))
	}
	status := "ready"
	if r.Degraded {
		status = "degraded"
	}
	queued := r.OutboxDepth
	return c.JSON(http.StatusOK, wire.Health{Status: status, VectorOutbox: &queued, Components: map[string]wire.Component{
		"graph": component(r.Graph), "vector_index": component(r.Vectors),
	}})
}

func component(st memory.ComponentStatus) wire.Component {
	c := wire.Component{Status: st.Status}
	if st.Err != nil {
		c.Error = st.Err.Error()
	}
	return c
}
