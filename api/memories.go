package api

import (
	"fmt"
	"net/http"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/episodes"
	"github.com/kgmem/kgmem/memory"
	"github.com/labstack/echo/v4"
)

// memoriesRequest is the body of POST /v1/memories.
type memoriesRequest struct {
	Namespace string        `json:"namespace"`
	ThreadID  string        `json:"thread_id"`
	Messages  []messageJSON `json:"messages"`
	Extract   bool          `json:"extract"`
	Schema    *kgmem.Schema `json:"schema"`
	// Mode is "sync" (the default: answer when stored) or "async" (202 and a
	// background job).
	Mode string `json:"mode"`
}

type messageJSON struct {
	ID        string         `json:"id"`
	Role      string         `json:"role"`
	Name      string         `json:"name"`
	Content   string         `json:"content"`
	Timestamp string         `json:"timestamp"`
	Metadata  map[string]any `json:"metadata"`
}

// postMemories ingests a batch of messages: 201 when anything new was stored,
// 200 when every message was already known (an idempotent re-post); with
// "mode": "async", 202 and a background job (see jobs.go).
func (s *Server) postMemories(c echo.Context) error {
	var body memoriesRequest
	if err := decodeJSON(c, &body); err != nil {
		return err
	}
	ns, err := kgmem.ParseNamespace(body.Namespace)
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
		return s.submitJob(c, req)
	default:
		return kgmem.Invalidf("mode", "is %q; use sync or async", body.Mode)
	}
	res, err := s.engine.Ingest(c.Request().Context(), req)
	if err != nil {
		return err
	}
	status := http.StatusOK
	for _, ep := range res.Episodes {
		if ep.Created {
			status = http.StatusCreated
			break
		}
	}
	return c.JSON(status, res)
}
