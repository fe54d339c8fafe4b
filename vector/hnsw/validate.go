package hnsw

import (
	"errors"
	"fmt"
	"math"

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

// checkVector validates v against the index dimension: empty or non-finite
// vectors are invalid, other lengths a dimension mismatch.
func checkVector(field string, v []float32, dim int) error {
	if len(v) == 0 {
		return kgmem.Invalidf(field, "is empty")
	}
	if len(v) != dim {
		return fmt.Errorf("%s has %d dimensions, the index holds %d: %w", field, len(v), dim, kgmem.ErrDimensionMismatch)
	}
	for i, x := range v {
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return kgmem.Invalidf(field, "component %d is %v; only finite values are allowed", i, x)
		}
	}
	return nil
}

// checkKind validates a record kind.
func checkKind(field string, k kgmem.Kind) error {
	if !k.Valid() {
		return kgmem.Invalidf(field, "unknown kind %q; want one of %v", k, kgmem.AllKinds())
	}
	return nil
}

// checkRecords validates a whole Upsert batch before anything is written.
func checkRecords(records []kgmem.VectorRecord, dim int) error {
	for i, r := range records {
		field := func(name string) string { return fmt.Sprintf("records[%d].%s", i, name) }
		if r.ID == "" {
			return kgmem.Invalidf(field("id"), "is required")
		}
		if err := checkNamespace(field("namespace"), r.Namespace); err != nil {
			return err
		}
		if err := checkKind(field("kind"), r.Kind); err != nil {
			return err
		}
		if err := checkVector(field("vector"), r.Vector, dim); err != nil {
			return err
		}
	}
	return nil
}

// checkQuery validates a search.
func checkQuery(q kgmem.VectorQuery, dim int) error {
	if err := checkNamespace("namespace", q.Namespace); err != nil {
		return err
	}
	if q.K <= 0 {
		return kgmem.Invalidf("k", "must be positive, got %d", q.K)
	}
	for i, k := range q.Kinds {
		if err := checkKind(fmt.Sprintf("kinds[%d]", i), k); err != nil {
			return err
		}
	}
	return checkVector("vector", q.Vector, dim)
}
