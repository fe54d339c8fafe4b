package api

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"

	"github.com/kgmem/kgmem"
	"github.com/labstack/echo/v4"
)

// Problem is an RFC 9457 problem detail, the body of every error response.
type Problem struct {
	Type   string `json:"type"`
	Title  string `json:"title"`
	Status int    `json:"status"`
	Detail string `json:"detail"`
	// Field names the offending request field, when there is one.
	Field string `json:"field,omitempty"`
	// RequestID correlates the error with the server log.
	RequestID string `json:"request_id,omitempty"`
}

// problemContentType is the media type of error bodies.
const problemContentType = "application/problem+json"

// retryAfterUnavailable is the Retry-After (seconds) of a 503: a backend is
// unreachable right now.
const retryAfterUnavailable = "2"

// statusOf maps an error to its HTTP status: client mistakes to 4xx, backend
// outages to 503, everything else to 500.
func statusOf(err error) int {
	var he *echo.HTTPError
	switch {
	case errors.As(err, &he):
		return he.Code
	case errors.Is(err, kgmem.ErrUnprocessable):
		return http.StatusUnprocessableEntity
	case errors.Is(err, kgmem.ErrInvalid):
		return http.StatusBadRequest
	case errors.Is(err, kgmem.ErrNotFound):
		return http.StatusNotFound
	case errors.Is(err, kgmem.ErrConflict):
		return http.StatusConflict
	case errors.Is(err, kgmem.ErrUnavailable):
		return http.StatusServiceUnavailable
	case errors.Is(err, context.DeadlineExceeded):
		return http.StatusGatewayTimeout
	case errors.Is(err, context.Canceled):
		return 499 // client closed request
	}
	return http.StatusInternalServerError
}

// errorHandler renders every error as problem+json. Server faults are logged
// with the request id and answered without internals.
func (s *Server) errorHandler(err error, c echo.Context) {
	if c.Response().Committed {
		return
	}
	status := statusOf(err)
	p := Problem{
		Type:      "about:blank",
		Title:     http.StatusText(status),
		Status:    status,
		Detail:    err.Error(),
		RequestID: c.Response().Header().Get(echo.HeaderXRequestID),
	}
	var he *echo.HTTPError
	if errors.As(err, &he) {
		p.Detail = httpErrorDetail(he)
	}
	var fe *kgmem.FieldError
	if errors.As(err, &fe) {
		p.Field = fe.Field
	}
	if status == http.StatusServiceUnavailable && c.Response().Header().Get("Retry-After") == "" {
		// A backend is down: the request changed nothing durable the client
		// must undo, and writes are idempotent, so the client retries.
		c.Response().Header().Set("Retry-After", retryAfterUnavailable)
	}
	if status >= 500 {
		s.log.ErrorContext(c.Request().Context(), "request failed", "request_id", p.RequestID,
			"method", c.Request().Method, "route", c.Path(), "status", status, "error", err)
		if status == http.StatusInternalServerError {
			p.Detail = "internal error; the server log has the details under this request_id"
		}
	}
	if p.Title == "" {
		p.Title = "Client Closed Request"
	}
	body, _ := json.Marshal(p) // a Problem of strings and ints always marshals
	if c.Request().Method == http.MethodHead {
		_ = c.NoContent(status)
		return
	}
	_ = c.Blob(status, problemContentType, body)
}

func httpErrorDetail(he *echo.HTTPError) string {
	if m, ok := he.Message.(string); ok {
		return m
	}
	if he.Internal != nil {
		return he.Internal.Error()
	}
	return http.StatusText(he.Code)
}
