package milvus

import (
	"errors"
	"fmt"
	"math"
	"unicode/utf8"

	"github.com/kgmem/kgmem"
)

// checkNamespace validates ns, naming field in the error.
func checkNamespace(field string, ns kgmem.Namespace) error {
	if _, err := kgmem.ParseNamespace(string(ns)); err != nil {
		var fe *kgmem.FieldError
		if errors.As(err, &fe) {
			return kgmem.Invalidf(field, "%s", fe.Reason)
		}
		return fmt.Errorf("%s: %w", field, err)
	}
	return nil
}

// checkID validates one record id, naming field in the error.
func checkID(field, id string) error {
	switch {
	case id == "":
		return kgmem.Invalidf(field, "is empty")
	case len(id) > MaxIDLength:
		return kgmem.Invalidf(field, "is %d bytes, at most %d allowed", len(id), MaxIDLength)
	case !utf8.ValidString(id):
		return kgmem.Invalidf(field, "is not valid UTF-8")
	}
	return nil
}

// checkKind validates a record kind, naming field in the error.
func checkKind(field string, k kgmem.Kind) error {
	if !k.Valid() {
		return kgmem.Invalidf(field, "%q is not one of fact, entity, episode", string(k))
	}
	return nil
}

// checkVector validates v against the index dimension: a missing vector is
// ErrInvalid, a wrong length ErrDimensionMismatch, a NaN, infinite or all-zero vector (no direction, so
// no cosine) is ErrInvalid.
func checkVector(field string, v []float32, dim int) error {
	if len(v) == 0 {
		return kgmem.Invalidf(field, "is empty")
	}
	if len(v) != dim {
		return fmt.Errorf("%s has %d dimensions, the index holds %d: %w", field, len(v), dim, kgmem.ErrDimensionMismatch)
	}
	zero := true
	for i, x := range v {
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return kgmem.Invalidf(fmt.Sprintf("%s[%d]", field, i), "is %v, must be finite", x)
		}
		if x != 0 {
			zero = false
		}
	}
	if zero {
		return kgmem.Invalidf(field, "is all zeros and has no cosine direction")
	}
	return nil
}
