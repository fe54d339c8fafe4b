package api

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/kgmem/kgmem/auth"
	"github.com/kgmem/kgmem/jobs"
	"github.com/kgmem/kgmem/memory"
	"github.com/labstack/echo/v4"
	"github.com/labstack/echo/v4/middleware"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Options bound what one request may cost.
type Options struct {
	// MaxBodyBytes caps a request body (default 8 MiB).
	MaxBodyBytes int64
	// MaxPageSize caps ?limit= on list routes (default 1000).
	MaxPageSize int
	// RequestTimeout is the deadline of one request's work (default 30 s).
	RequestTimeout time.Duration
	// Jobs runs POST /v1/memories with "mode": "async" in the background and
	// answers GET /v1/jobs/{id} (nil: async mode is refused with a 400).
	Jobs *jobs.Runner
	// Metrics is served at /metrics in the Prometheus text format (nil: an
	// empty registry).
	Metrics prometheus.Gatherer
	// Registerer receives the API's own series (request latency histogram,
	// in-flight gauge); nil: not exported.
	Registerer prometheus.Registerer
	// Auth authenticates API keys; nil or an authenticator with no key
	// configured leaves the API open (the server binds loopback only then).
	Auth *auth.Authenticator
	// RateLimit is the requests per second each stored API key may make
	// (0: unlimited); RateBurst the bucket size (default: the rate, at least 1).
	RateLimit float64
	RateBurst int
	// ReadTimeout, ReadHeaderTimeout, WriteTimeout and IdleTimeout bound the
	// connection (defaults 60 s, 10 s, RequestTimeout + 10 s, 120 s).
	ReadTimeout, ReadHeaderTimeout, WriteTimeout, IdleTimeout time.Duration
	// UI, when set, answers GET /ui and everything under /ui/ (the web
	// explorer, a static app over this API; package ui). It is outside the
	// REST API: no key is needed to load the page, which asks for one.
	UI http.Handler
	// MCP, when set, answers POST /mcp (the MCP streamable HTTP endpoint,
	// package mcpserver) behind the same keys, rate limit and body limit as
	// the REST API. Its tools call the REST API back through InProcess with
	// the request's key, so every namespace check of the API applies to them.
	MCP http.Handler
	// AllowedHosts are the host names (or addresses, without port) a server
	// with no API key answers to in the Host header, besides localhost,
	// 127.0.0.0/8 and [::1]; any other Host gets a 403, so a web page that
	// rebinds its own name to 127.0.0.1 cannot read or write memory. A
	// server with keys answers to any Host.
	AllowedHosts []string
	// AllowedOrigins are the origins (scheme://host[:port]) trusted to send
	// unsafe requests (POST, PUT, DELETE) from a browser page of another
	// origin; every other cross-origin request of a browser gets a 403.
	AllowedOrigins []string
}

// Validate reports a malformed allowed host or origin.
func (o Options) Validate() error {
	_, err := newHostGuard(o.AllowedHosts, o.AllowedOrigins)
	return err
}

func (o Options) withDefaults() Options {
	if o.MaxBodyBytes <= 0 {
		o.MaxBodyBytes = 8 << 20
	}
	if o.MaxPageSize <= 0 {
		o.MaxPageSize = 1000
	}
	if o.RequestTimeout <= 0 {
		o.RequestTimeout = 30 * time.Second
	}
	if o.Metrics == nil {
		o.Metrics = prometheus.NewRegistry()
	}
	if o.ReadTimeout <= 0 {
		o.ReadTimeout = 60 * time.Second
	}
	if o.ReadHeaderTimeout <= 0 {
		o.ReadHeaderTimeout = 10 * time.Second
	}
	if o.WriteTimeout <= 0 {
		o.WriteTimeout = o.RequestTimeout + 10*time.Second
	}
	if o.IdleTimeout <= 0 {
		o.IdleTimeout = 120 * time.Second
	}
	return o
}

// Server is the HTTP API over one Engine.
type Server struct {
	engine *memory.Engine
	opts   Options
	log    *slog.Logger
	echo   *echo.Echo
	// policy is the access policy of every registered "METHOD path" (the
	// route table's rows; authorisation, metrics); pathSet every registered
	// path, whatever its methods.
	policy  map[string]access
	pathSet map[string]bool
	// promHandler answers GET /metrics.
	promHandler http.Handler
	limiter     *keyLimiter
	metrics     *httpMetrics
	// guardHosts holds the Host and Origin rules (guard.go).
	guardHosts *hostGuard
}

// New builds the API server and its routes.
func New(engine *memory.Engine, opts Options, log *slog.Logger) *Server {
	if log == nil {
		log = slog.Default()
	}
	s := &Server{engine: engine, opts: opts.withDefaults(), log: log, echo: echo.New(), policy: map[string]access{}, pathSet: map[string]bool{}}
	s.promHandler = promhttp.HandlerFor(s.opts.Metrics, promhttp.HandlerOpts{})
	s.metrics = newHTTPMetrics(s.opts.Registerer)
	guard, err := newHostGuard(s.opts.AllowedHosts, s.opts.AllowedOrigins)
	if err != nil {
		// Options.Validate reports this to whoever configures the server;
		// here the malformed entries are left out (nothing more is allowed).
		log.Error("ignoring the allowed hosts and origins", "error", err)
		guard, _ = newHostGuard(nil, nil)
	}
	s.guardHosts = guard
	if s.opts.RateLimit > 0 {
		s.limiter = newKeyLimiter(s.opts.RateLimit, s.opts.RateBurst)
	}
	e := s.echo
	e.HideBanner, e.HidePort = true, true
	e.HTTPErrorHandler = s.errorHandler
	e.JSONSerializer = &sizedJSON{}
	e.Use(middleware.RequestID())
	e.Use(middleware.RecoverWithConfig(middleware.RecoverConfig{LogErrorFunc: func(c echo.Context, err error, stack []byte) error {
		s.log.ErrorContext(c.Request().Context(), "panic in handler", "error", err, "stack", string(stack))
		return err
	}}))
	e.Use(s.requestLogger())
	e.Use(s.measure)
	// Host and Origin (guard.go), then the body: its size, and a JSON
	// content type whenever there is one (decode.go).
	e.Use(s.guard)
	e.Use(s.limitBody, requireJSONBody)
	e.Use(middleware.ContextTimeoutWithConfig(middleware.ContextTimeoutConfig{Timeout: s.opts.RequestTimeout}))
	// Authentication, then the per-key rate limit, then the namespace check
	// (api/auth.go), all before any handler runs.
	e.Use(s.authenticate, s.rateLimit, s.authorize)
	s.routes()
	for _, r := range e.Routes() {
		s.pathSet[r.Path] = true
	}
	return s
}

// inProcessKey marks a request made in this process on behalf of a request
// the server already admitted (see InProcess).
type inProcessKey struct{}

// InProcess returns the REST API as a handler for calls made on behalf of a
// request this server already admitted and charged to its key's rate limit
// (the tools of POST /mcp): the same routes, keys and namespace checks, and
// the rate limit is not charged a second time.
func (s *Server) InProcess() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.echo.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), inProcessKey{}, true)))
	})
}

// Handler returns the server as an http.Handler (for tests and embedding):
// the REST API, and the web explorer under /ui when Options.UI is set (GET /
// then redirects to /ui/).
func (s *Server) Handler() http.Handler {
	if s.opts.UI == nil {
		return s.echo
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		root := r.URL.Path == "/" && (r.Method == http.MethodGet || r.Method == http.MethodHead)
		if root || r.URL.Path == "/ui" || strings.HasPrefix(r.URL.Path, "/ui/") {
			if err := s.checkRequest(r); err != nil {
				detail := err.Error()
				var he *echo.HTTPError
				if errors.As(err, &he) {
					detail = httpErrorDetail(he)
				}
				http.Error(w, detail, statusOf(err))
				return
			}
			if root {
				// The root is the explorer's front door: a browser pointed at
				// the server's address lands on the page, not a JSON 404.
				http.Redirect(w, r, "/ui/", http.StatusFound)
				return
			}
			s.opts.UI.ServeHTTP(w, r)
			return
		}
		s.echo.ServeHTTP(w, r)
	})
}

// Routes lists the registered method and path pairs.
func (s *Server) Routes() []*echo.Route { return s.echo.Routes() }

// limitBody caps the request body; the decoder turns an overrun into a 413.
func (s *Server) limitBody(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		req := c.Request()
		if req.ContentLength > s.opts.MaxBodyBytes {
			return echo.NewHTTPError(http.StatusRequestEntityTooLarge, fmt.Sprintf("request body is %d bytes, at most %d allowed", req.ContentLength, s.opts.MaxBodyBytes))
		}
		req.Body = http.MaxBytesReader(c.Response(), req.Body, s.opts.MaxBodyBytes)
		return next(c)
	}
}

// requestLogger logs one line per request: method, route, status, latency and
// request id, never bodies or query text.
func (s *Server) requestLogger() echo.MiddlewareFunc {
	return middleware.RequestLoggerWithConfig(middleware.RequestLoggerConfig{
		LogStatus: true, LogMethod: true, LogRoutePath: true, LogLatency: true, LogRequestID: true, LogError: true,
		HandleError: true,
		LogValuesFunc: func(c echo.Context, v middleware.RequestLoggerValues) error {
			level := slog.LevelInfo
			if v.Status >= 500 {
				level = slog.LevelError
			}
			attrs := []slog.Attr{slog.String("method", v.Method), slog.String("route", v.RoutePath), slog.Int("status", v.Status),
				slog.Duration("latency", v.Latency), slog.String("request_id", v.RequestID)}
			if p, ok := principal(c); ok {
				attrs = append(attrs, slog.String("key_id", p.KeyID))
			}
			s.log.LogAttrs(c.Request().Context(), level, "request", attrs...)
			return nil
		},
	})
}

// Serve answers on ln until ctx is cancelled, then shuts down gracefully,
// letting in-flight requests (and their writes) finish within grace.
func (s *Server) Serve(ctx context.Context, ln net.Listener, grace time.Duration) error {
	srv := &http.Server{
		Handler:           s.Handler(),
		ReadHeaderTimeout: s.opts.ReadHeaderTimeout,
		ReadTimeout:       s.opts.ReadTimeout,
		WriteTimeout:      s.opts.WriteTimeout,
		IdleTimeout:       s.opts.IdleTimeout,
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return fmt.Errorf("serve %s: %w", ln.Addr(), err)
	case <-ctx.Done():
	}
	shutdownCtx, cancel := context.WithTimeout(context.Background(), grace)
	defer cancel()
	if err := srv.Shutdown(shutdownCtx); err != nil {
		return fmt.Errorf("graceful shutdown: %w", err)
	}
	return nil
}
