package client

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/kgmem/kgmem"
)

// Error is an answer of the server outside 2xx. For problem+json answers
// (every error of the API) it carries the problem's fields; for others
// (a proxy's page), Detail holds the start of the body.
//
//	var e *client.Error
//	if errors.As(err, &e) && e.Status == http.StatusBadRequest {
//		log.Printf("%s: %s", e.Field, e.Detail)
//	}
type Error struct {
	// Method and Path name the request.
	Method string
	Path   string
	// Status is the HTTP status of the answer.
	Status int
	// Type, Title and Detail are the problem's (RFC 9457).
	Type   string
	Title  string
	Detail string
	// Field is the JSON path of the request field at fault, when one is.
	Field string
	// RequestID correlates the answer with the server's log.
	RequestID string
}

// Error says what failed, with the field at fault.
func (e *Error) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s: %d", e.Method, e.Path, e.Status)
	if e.Title != "" {
		fmt.Fprintf(&b, " %s", e.Title)
	}
	if e.Detail != "" {
		fmt.Fprintf(&b, ": %s", e.Detail)
	}
	if e.Field != "" && !strings.Contains(e.Detail, e.Field) {
		fmt.Fprintf(&b, " (field %s)", e.Field)
	}
	return b.String()
}

// Unwrap maps the status to kgmem's error kinds, so errors.Is(err,
// kgmem.ErrNotFound) works on answers: 400 and 422 are kgmem.ErrInvalid, 404
// kgmem.ErrNotFound, 409 kgmem.ErrConflict, 502, 503 and 504
// kgmem.ErrUnavailable.
func (e *Error) Unwrap() error {
	switch e.Status {
	case http.StatusBadRequest, http.StatusUnprocessableEntity:
		return kgmem.ErrInvalid
	case http.StatusNotFound:
		return kgmem.ErrNotFound
	case http.StatusConflict:
		return kgmem.ErrConflict
	case http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		return kgmem.ErrUnavailable
	}
	return nil
}

// problem is the wire form of an error answer.
type problem struct {
	Type      string `json:"type"`
	Title     string `json:"title"`
	Status    int    `json:"status"`
	Detail    string `json:"detail"`
	Field     string `json:"field"`
	RequestID string `json:"request_id"`
}

// maxDetail bounds the body kept in Detail for answers that are not problems.
const maxDetail = 512

// newError reads an error answer.
func newError(method, path string, resp *http.Response, raw []byte) *Error {
	e := &Error{Method: method, Path: path, Status: resp.StatusCode, Title: http.StatusText(resp.StatusCode)}
	var p problem
	if err := json.Unmarshal(raw, &p); err == nil && (p.Detail != "" || p.Title != "") {
		e.Type, e.Detail, e.Field, e.RequestID = p.Type, p.Detail, p.Field, p.RequestID
		if p.Title != "" {
			e.Title = p.Title
		}
		return e
	}
	e.Detail = strings.TrimSpace(string(raw[:min(len(raw), maxDetail)]))
	return e
}
