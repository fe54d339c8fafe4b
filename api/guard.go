package api

import (
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strings"

	"github.com/kgmem/kgmem"
	"github.com/labstack/echo/v4"
)

// LoopbackHost reports whether the host of a Host header or URL authority
// (with or without a port) is a loopback name: localhost, an address in
// 127.0.0.0/8 or ::1. It is the rule the MCP Go SDK applies to /mcp for DNS
// rebinding protection, applied here to every route of a keyless server.
func LoopbackHost(hostport string) bool {
	host := hostOnly(hostport)
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.IsLoopback()
}

// hostOnly strips the port and the brackets of an IPv6 literal.
func hostOnly(hostport string) string {
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		return h
	}
	return strings.Trim(hostport, "[]")
}

// hostGuard is the DNS-rebinding and cross-origin protection of the server.
type hostGuard struct {
	// hosts are the host names (lower case, no port) a keyless server
	// answers to besides loopback ones (Options.AllowedHosts).
	hosts map[string]bool
	// origins checks Origin and Sec-Fetch-Site on unsafe methods.
	origins *http.CrossOriginProtection
}

func newHostGuard(hosts, origins []string) (*hostGuard, error) {
	g := &hostGuard{hosts: map[string]bool{}, origins: http.NewCrossOriginProtection()}
	for _, h := range hosts {
		h = strings.ToLower(strings.TrimSpace(h))
		if h == "" {
			continue
		}
		if strings.ContainsAny(h, "/: ") && !strings.HasPrefix(h, "[") {
			return nil, fmt.Errorf("allowed host %q: give a host name or address without scheme or port", h)
		}
		g.hosts[strings.Trim(h, "[]")] = true
	}
	for _, o := range origins {
		if o = strings.TrimSpace(o); o == "" {
			continue
		}
		if err := g.origins.AddTrustedOrigin(o); err != nil {
			return nil, fmt.Errorf("allowed origin %q: %w", o, err)
		}
	}
	return g, nil
}

// hostAllowed reports whether a keyless server may answer a request with
// this Host header.
func (g *hostGuard) hostAllowed(host string) bool {
	return LoopbackHost(host) || g.hosts[strings.ToLower(hostOnly(host))]
}

// guard refuses, before routing, what a web page could otherwise make a
// user's browser do to the server: on a keyless server a Host that is not
// loopback or allowed (a DNS-rebinding page reading memory), and on every
// server an unsafe request (POST, PUT, DELETE…) the browser marks as
// cross-origin (Origin or Sec-Fetch-Site) from an origin not allowed.
// Requests made in process on behalf of an admitted request (InProcess)
// were checked already.
func (s *Server) guard(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		req := c.Request()
		if req.Context().Value(inProcessKey{}) != nil {
			return next(c)
		}
		if err := s.checkRequest(req); err != nil {
			return err
		}
		return next(c)
	}
}

// checkRequest applies the Host and Origin rules of guard to req.
func (s *Server) checkRequest(req *http.Request) error {
	if !s.guardHosts.hostAllowed(req.Host) {
		keyless, err := s.keyless(req)
		if err != nil {
			return err
		}
		if keyless {
			detail := fmt.Sprintf("the Host header is %q; a server without API keys answers only to localhost, 127.0.0.1, [::1] and the hosts of --allowed-hosts", req.Host)
			return &echo.HTTPError{Code: http.StatusForbidden, Message: detail, Internal: &kgmem.FieldError{Field: "Host", Reason: detail}}
		}
	}
	if err := s.guardHosts.origins.Check(req); err != nil {
		detail := fmt.Sprintf("cross-origin request refused (Origin %q): kgmem accepts unsafe methods from its own origin, clients that send no Origin, and the origins of --allowed-origins", req.Header.Get("Origin"))
		return &echo.HTTPError{Code: http.StatusForbidden, Message: detail, Internal: &kgmem.FieldError{Field: "Origin", Reason: detail}}
	}
	return nil
}

// keyless reports whether the server runs without API keys.
func (s *Server) keyless(req *http.Request) (bool, error) {
	if s.opts.Auth == nil {
		return true, nil
	}
	on, err := s.opts.Auth.Enabled(req.Context())
	return !on, err
}
