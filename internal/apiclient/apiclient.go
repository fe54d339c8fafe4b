// Package apiclient holds what the repo's HTTP clients of a kgmem server (the
// LoCoMo benchmark, the chat-log importer) share: the base URL rule and a
// transport sized for concurrent workers.
package apiclient

import (
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/kgmem/kgmem"
)

// ParseBaseURL checks a server's base URL ("http://127.0.0.1:8080", a trailing
// slash allowed) and returns it without the slash; anything but an absolute
// http(s) URL with a host is an error naming the field "url".
func ParseBaseURL(raw string) (*url.URL, error) {
	u, err := url.Parse(strings.TrimRight(raw, "/"))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, kgmem.Invalidf("url", "%q is not an http(s) base URL such as http://127.0.0.1:8080", raw)
	}
	return u, nil
}

// NewHTTPClient returns a client with the given overall timeout and enough
// idle connections per host for 64 concurrent workers.
func NewHTTPClient(timeout time.Duration) *http.Client {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConnsPerHost = 64
	return &http.Client{Timeout: timeout, Transport: tr}
}
