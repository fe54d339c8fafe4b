package instrument

import (
	"context"
	"errors"
	"time"

	"github.com/kgmem/kgmem"
	"github.com/prometheus/client_golang/prometheus"
)

// Metrics times backend calls and counts their failures.
type Metrics struct {
	errs    *prometheus.CounterVec
	seconds *prometheus.HistogramVec
}

// CallDuration is the name of the histogram of backend call durations, by
// backend and operation: its _count is the calls made, its _sum the time
// spent in them.
const CallDuration = "kgmem_backend_call_duration_seconds"

// New registers kgmem_backend_errors_total and
// kgmem_backend_call_duration_seconds on reg (nil: measured, not exported).
func New(reg prometheus.Registerer) *Metrics {
	m := &Metrics{
		errs: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "kgmem_backend_errors_total",
			Help: "Failed graph store and vector index calls by backend, operation and kind (unavailable, timeout, other).",
		}, []string{"backend", "op", "kind"}),
		seconds: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: CallDuration,
			Help: "Graph store and vector index calls by backend and operation, and the time they took (failed ones included).",
			// 0.25 ms to about 8 s: an embedded store answers in well under
			// a millisecond, Neo4j and Milvus in milliseconds to seconds.
			Buckets: prometheus.ExponentialBuckets(0.00025, 2, 16),
		}, []string{"backend", "op"}),
	}
	if reg != nil {
		reg.MustRegister(m.errs, m.seconds)
	}
	return m
}

// Kind classifies err for the kind label; "" means not a backend error.
func Kind(err error) string {
	switch {
	case err == nil,
		errors.Is(err, kgmem.ErrInvalid), errors.Is(err, kgmem.ErrNotFound), errors.Is(err, kgmem.ErrConflict),
		errors.Is(err, context.Canceled):
		return ""
	case errors.Is(err, kgmem.ErrUnavailable):
		return "unavailable"
	case errors.Is(err, context.DeadlineExceeded):
		return "timeout"
	}
	return "other"
}

// start times one call of op on backend; the returned function ends it,
// counts its error when it is a backend error, and returns the error
// unchanged.
func (m *Metrics) start(backend, op string) func(error) error {
	began := time.Now()
	return func(err error) error {
		m.seconds.WithLabelValues(backend, op).Observe(time.Since(began).Seconds())
		if k := Kind(err); k != "" {
			m.errs.WithLabelValues(backend, op, k).Inc()
		}
		return err
	}
}
