package neo4j

import (
	"github.com/kgmem/kgmem"
)

// validate checks cs against the root rules and this store's scope rules.
func validate(cs kgmem.ChangeSet) error {
	if err := checkNamespace(cs.Namespace); err != nil {
		return err
	}
	return cs.Validate()
}

// checkLimit validates a page or search limit and applies the default.
func checkLimit(field string, limit, def int) (int, error) {
	switch {
	case limit < 0:
		return 0, kgmem.Invalidf(field, "must not be negative, got %d", limit)
	case limit == 0:
		return def, nil
	}
	return limit, nil
}
