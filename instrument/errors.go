package instrument

import (
	"context"
	"errors"

	"github.com/kgmem/kgmem"
	"github.com/prometheus/client_golang/prometheus"
)

// Errors counts backend failures.
type Errors struct {
	vec *prometheus.CounterVec
}

// NewErrors registers kgmem_backend_errors_total on reg (nil: counted, not exported).
func NewErrors(reg prometheus.Registerer) *Errors {
	e := &Errors{vec: prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "kgmem_backend_errors_total",
		Help: "Failed graph store and vector index calls by backend, operation and kind (unavailable, timeout, other).",
	}, []string{"backend", "op", "kind"})}
	if reg != nil {
		reg.MustRegister(e.vec)
	}
	return e
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

// observe counts err (when it is a backend error) and returns it unchanged.
func (e *Errors) observe(backend, op string, err error) error {
	if k := Kind(err); k != "" {
		e.vec.WithLabelValues(backend, op, k).Inc()
	}
	return err
}
