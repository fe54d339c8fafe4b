package client

import (
	"net/http"
	"net/http/httptest"
)

// WithHandler sends every request to h in this process instead of over the
// network: for a program that embeds the server (api.Server's Handler) and
// wants the REST API's exact checks and answers without opening a port.
// The base URL given to New then only names the host in request URLs.
func WithHandler(h http.Handler) Option {
	return func(c *Client) { c.http = &http.Client{Transport: handlerTransport{h}} }
}

// handlerTransport is an http.RoundTripper that serves each request with a
// handler and returns its recorded answer.
type handlerTransport struct{ h http.Handler }

// RoundTrip serves req with the handler.
func (t handlerTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	rec := httptest.NewRecorder()
	t.h.ServeHTTP(rec, req)
	resp := rec.Result()
	resp.Request = req
	return resp, nil
}
