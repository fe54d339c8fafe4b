package kgmem

import (
	"errors"
	"fmt"
	"math"
	"unicode/utf8"
)

// MaxVectorIDBytes bounds a vector record's id (the Milvus primary key's
// VarChar length; graph ids are far shorter).
const MaxVectorIDBytes = 512

// The vector-index validation rules every backend applies, so the embedded
// index and Milvus accept and refuse exactly the same input (vector/vectortest
// holds both to it).

// CheckVector validates v for an index of dimension dim, naming field in the
// error: an empty vector, a NaN or infinite component, or an all-zero vector
// (it has no direction, so no cosine similarity) is ErrInvalid; another length
// is ErrDimensionMismatch.
func CheckVector(field string, v []float32, dim int) error {
	if len(v) == 0 {
		return Invalidf(field, "is empty")
	}
	if len(v) != dim {
		return fmt.Errorf("%s has %d dimensions, the index holds %d: %w", field, len(v), dim, ErrDimensionMismatch)
	}
	zero := true
	for i, x := range v {
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return Invalidf(fmt.Sprintf("%s[%d]", field, i), "is %v, must be finite", x)
		}
		if x != 0 {
			zero = false
		}
	}
	if zero {
		return Invalidf(field, "is all zeros and has no cosine direction")
	}
	return nil
}

// IsZeroVector reports whether every component of v is zero (or v is empty):
// such a vector cannot be stored in a vector index (see CheckVector).
func IsZeroVector(v []float32) bool {
	for _, x := range v {
		if x != 0 {
			return false
		}
	}
	return true
}

// CheckVectorID validates one record id, naming field in the error.
func CheckVectorID(field, id string) error {
	switch {
	case id == "":
		return Invalidf(field, "is empty")
	case len(id) > MaxVectorIDBytes:
		return Invalidf(field, "is %d bytes, at most %d allowed", len(id), MaxVectorIDBytes)
	case !utf8.ValidString(id):
		return Invalidf(field, "is not valid UTF-8")
	}
	return nil
}

// CheckVectorNamespace validates ns, naming field in the error.
func CheckVectorNamespace(field string, ns Namespace) error {
	if _, err := ParseNamespace(string(ns)); err != nil {
		var fe *FieldError
		if errors.As(err, &fe) {
			return Invalidf(field, "%s", fe.Reason)
		}
		return fmt.Errorf("%s: %w", field, err)
	}
	return nil
}

// CheckVectorKind validates a record kind, naming field in the error.
func CheckVectorKind(field string, k Kind) error {
	if !k.Valid() {
		return Invalidf(field, "%q is not one of fact, entity, episode", string(k))
	}
	return nil
}

// CheckVectorRecords validates a whole Upsert batch for an index of dimension
// dim before anything is written: one bad record rejects it all.
func CheckVectorRecords(records []VectorRecord, dim int) error {
	for i, r := range records {
		field := fmt.Sprintf("records[%d]", i)
		if err := CheckVectorID(field+".id", r.ID); err != nil {
			return err
		}
		if err := CheckVectorNamespace(field+".namespace", r.Namespace); err != nil {
			return err
		}
		if err := CheckVectorKind(field+".kind", r.Kind); err != nil {
			return err
		}
		if err := CheckVector(field+".vector", r.Vector, dim); err != nil {
			return err
		}
	}
	return nil
}

// CheckVectorQuery validates a search for an index of dimension dim; maxK
// bounds q.K (0: no bound).
func CheckVectorQuery(q VectorQuery, dim, maxK int) error {
	if err := CheckVectorNamespace("namespace", q.Namespace); err != nil {
		return err
	}
	if q.K < 1 || (maxK > 0 && q.K > maxK) {
		if maxK > 0 {
			return Invalidf("k", "is %d, must be in 1..%d", q.K, maxK)
		}
		return Invalidf("k", "must be positive, got %d", q.K)
	}
	for i, k := range q.Kinds {
		if err := CheckVectorKind(fmt.Sprintf("kinds[%d]", i), k); err != nil {
			return err
		}
	}
	return CheckVector("vector", q.Vector, dim)
}

// CheckVectorPage validates a ListIDs page and returns its limit with the
// default applied.
func CheckVectorPage(ns Namespace, page Page) (int, error) {
	if err := CheckVectorNamespace("namespace", ns); err != nil {
		return 0, err
	}
	switch {
	case page.Limit < 0 || page.Limit > MaxVectorPage:
		return 0, Invalidf("limit", "is %d, must be in 0..%d", page.Limit, MaxVectorPage)
	case page.Limit == 0:
		return 100, nil
	}
	return page.Limit, nil
}
