package kgmem

import (
	"errors"
	"fmt"
	"unicode/utf8"
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
	// ErrUnprocessable marks a request that is well formed — every field of
	// the type, length and pattern the API declares — but that breaks a rule
	// the declaration cannot state (invalid_at before valid_at, a name of
	// format characters only, a limit in bytes met by fewer characters). It
	// wraps ErrInvalid; the API answers 422 where ErrInvalid answers 400.
	ErrUnprocessable = fmt.Errorf("%w: unprocessable", ErrInvalid)
)

// FieldError is an ErrInvalid that names the offending request field, so API
// clients learn exactly what to fix.
type FieldError struct {
	// Field is the JSON path of the offending field, for example "messages[2].content".
	Field string
	// Reason says what is wrong with it.
	Reason string
	// Kind is the error kind it unwraps to: ErrInvalid when nil, or
	// ErrNotFound for a well-formed field naming a record that does not
	// exist (NotFoundf).
	Kind error
}

// Error implements error.
func (e *FieldError) Error() string { return fmt.Sprintf("%s: %s", e.Field, e.Reason) }

// Unwrap makes errors.Is(err, ErrInvalid) true, or errors.Is(err, e.Kind).
func (e *FieldError) Unwrap() error {
	if e.Kind != nil {
		return e.Kind
	}
	return ErrInvalid
}

// Unprocessablef returns a *FieldError for a well-formed field that breaks a
// rule beyond its declared type, length and pattern; see ErrUnprocessable.
func Unprocessablef(field, format string, args ...any) error {
	return &FieldError{Field: field, Reason: fmt.Sprintf(format, args...), Kind: ErrUnprocessable}
}

// TooLong reports a value over max bytes: a 400 when it also has more than
// max characters (what the API declares, maxLength), else a 422 (multi-byte
// characters put it over a limit that is kept in bytes).
func TooLong(field, value string, max int) error {
	if utf8.RuneCountInString(value) > max {
		return Invalidf(field, "is %d bytes, at most %d allowed", len(value), max)
	}
	return Unprocessablef(field, "is %d bytes in UTF-8, at most %d allowed", len(value), max)
}

// NotFoundf returns a *FieldError for a well-formed field that names a
// record that does not exist: it unwraps to ErrNotFound (a 404 naming the
// field), not ErrInvalid.
func NotFoundf(field, format string, args ...any) error {
	return &FieldError{Field: field, Reason: fmt.Sprintf(format, args...), Kind: ErrNotFound}
}

// Invalidf returns a *FieldError for field with a formatted reason.
func Invalidf(field, format string, args ...any) error {
	return &FieldError{Field: field, Reason: fmt.Sprintf(format, args...)}
}
