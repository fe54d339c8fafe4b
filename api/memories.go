package api

import (
	"fmt"
	"net/http"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/api/wire"
	"github.com/kgmem/kgmem/episodes"
	"github.com/kgmem/kgmem/memory"
	"github.com/labstack/echo/v4"
)

// postMemories ingests a batch of messages: 201 when anything new was stored,
// 200 when every message was already known (an idempotent re-post); with
// "mode": "async", 202 and a background job (see jobs.go). An extraction that
// cannot finish within the request continues as a job (see deferExtraction).
func (s *Server) postMemories(c echo.Context) error {
	var body wire.MemoriesRequest
	if err := decodeJSON(c, &body); err != nil {
		return err
	}
	ns, err := kgmem.ParseNamespace(string(body.Namespace))
	if err != nil {
		return err
	}
	req := memory.IngestRequest{Namespace: ns, ThreadID: body.ThreadID, Extract: body.Extract, Schema: body.Schema}
	for i, m := range body.Messages {
		ts, err := parseTime(fmt.Sprintf("messages[%d].timestamp", i), m.Timestamp)
		if err != nil {
			return err
		}
		req.Messages = append(req.Messages, episodes.Message{ID: m.ID, Role: m.Role, Name: m.Name, Content: m.Content, Timestamp: ts, Metadata: m.Metadata})
	}
	if body.Messages == nil {
		return kgmem.Invalidf("messages", "is required")
	}
	switch body.Mode {
	case "", "sync":
	case "async":
		if req.Extract {
			return s.submitExtraction(c, req)
		}
		return s.submitJob(c, req)
	default:
		return kgmem.Invalidf("mode", "is %q; use sync or async", body.Mode)
	}
	res, err := s.engine.Ingest(c.Request().Context(), req)
	if err != nil {
		return err
	}
	if len(res.Deferred) > 0 {
		s.deferExtraction(c, req, &res)
	}
	status := http.StatusOK
	for _, ep := range res.Episodes {
		if ep.Created {
			status = http.StatusCreated
			break
		}
	}
	return c.JSON(status, wireIngestResult(res))
}
