package kgmem

import (
	"errors"
	"fmt"
)

// Error kinds shared by every layer. Wrap them with context and test with errors.Is.
var (
	// ErrInvalid marks a client mistake: the request is rejected and nothing changes.
	ErrInvalid = errors.New("invalid input")
	// ErrNotFound marks a missing record in the requested namespace.
	ErrNotFound = errors.New("not found")
	// ErrConflict marks a write that contradicts stored state (for example a vector
	// dimension that differs from the collection's).
	ErrConflict = errors.New("conflict")
	// ErrDimensionMismatch marks a vector whose length differs from the index's
	// dimension: mixing embedders in one index is refused. It wraps ErrConflict.
	ErrDimensionMismatch = fmt.Errorf("%w: vector dimension mismatch", ErrConflict)
	// ErrUnavailable marks a backend that cannot be reached right now.
	ErrUnavailable = errors.New("backend unavailable")
)

// FieldError is an ErrInvalid that names the offending request field, so API
// clients learn exactly what to fix.
type FieldError struct {
	// Field is the JSON path of the offending field, for example "messages[2].content".
	Field string
	// Reason says what is wrong with it.
	Reason string
}

// Error implements error.
func (e *FieldError) Error() string { return fmt.Sprintf("%s: %s", e.Field, e.Reason) }

// Unwrap makes errors.Is(err, ErrInvalid) true.
func (e *FieldError) Unwrap() error { return ErrInvalid }

// Invalidf returns a *FieldError for field with a formatted reason.
func Invalidf(field, format string, args ...any) error {
	return &FieldError{Field: field, Reason: fmt.Sprintf(format, args...)}
}
