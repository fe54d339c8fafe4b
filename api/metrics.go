package api

import (
	"strconv"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/prometheus/client_golang/prometheus"
)

// httpMetrics are the API's Prometheus series.
type httpMetrics struct {
	latency  *prometheus.HistogramVec
	inFlight prometheus.Gauge
}

// newHTTPMetrics registers the request latency histogram (by method, route and
// status class) and the in-flight gauge on reg (nil: measured, not exported).
func newHTTPMetrics(reg prometheus.Registerer) *httpMetrics {
	m := &httpMetrics{
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "kgmem_http_request_duration_seconds",
			Help:    "HTTP request latency by method, route pattern and status class (2xx, 4xx, 5xx).",
			Buckets: []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30},
		}, []string{"method", "route", "code"}),
		inFlight: prometheus.NewGauge(prometheus.GaugeOpts{Name: "kgmem_http_requests_in_flight", Help: "HTTP requests being served."}),
	}
	if reg != nil {
		reg.MustRegister(m.latency, m.inFlight)
	}
	return m
}

// statusClass renders 404 as "4xx".
func statusClass(code int) string { return strconv.Itoa(code/100) + "xx" }

// measure observes every request's latency under its route pattern (never the
// raw path, which would carry ids and namespaces into label values).
func (s *Server) measure(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		m := s.metrics
		m.inFlight.Inc()
		defer m.inFlight.Dec()
		start := time.Now()
		err := next(c)
		status := c.Response().Status
		if err != nil {
			status = statusOf(err)
		}
		route := c.Path()
		if !s.isRoute(c.Request().Method + " " + route) {
			route = "unmatched"
		}
		m.latency.WithLabelValues(c.Request().Method, route, statusClass(status)).Observe(time.Since(start).Seconds())
		return err
	}
}
