package neo4j

import (
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/kgmem/kgmem"
)

// validate checks everything about cs that needs no database.
func validate(cs kgmem.ChangeSet) error {
	if err := checkNamespace(cs.Namespace); err != nil {
		return err
	}
	sameNS := func(field string, ns kgmem.Namespace) error {
		if ns != cs.Namespace {
			return kgmem.Invalidf(field, "is %q, but the change set is for %q", ns, cs.Namespace)
		}
		return nil
	}
	var errs []error
	for i, e := range cs.Episodes {
		p := fmt.Sprintf("episodes[%d]", i)
		errs = append(errs, sameNS(p+".namespace", e.Namespace), finite(p+".decay.stability", e.Decay.Stability))
		if e.ID == "" {
			errs = append(errs, kgmem.Invalidf(p+".id", "is required"))
		}
	}
	for i, e := range cs.Entities {
		p := fmt.Sprintf("entities[%d]", i)
		errs = append(errs, sameNS(p+".namespace", e.Namespace), finite(p+".decay.stability", e.Decay.Stability))
		if e.ID == "" {
			errs = append(errs, kgmem.Invalidf(p+".id", "is required"))
		}
		if kgmem.NormalizeName(e.Name) == "" {
			errs = append(errs, kgmem.Invalidf(p+".name", "has no letters or digits: %q", e.Name))
		}
	}
	for i, f := range cs.Facts {
		p := fmt.Sprintf("facts[%d]", i)
		errs = append(errs, sameNS(p+".namespace", f.Namespace), finite(p+".confidence", f.Confidence), finite(p+".decay.stability", f.Decay.Stability))
		for _, req := range [][2]string{{"id", f.ID}, {"subject_id", f.SubjectID}, {"predicate", f.Predicate}, {"object_id", f.ObjectID}} {
			if strings.TrimSpace(req[1]) == "" {
				errs = append(errs, kgmem.Invalidf(p+"."+req[0], "is required"))
			}
		}
	}
	for i, m := range cs.Mentions {
		p := fmt.Sprintf("mentions[%d]", i)
		if m.EpisodeID == "" {
			errs = append(errs, kgmem.Invalidf(p+".episode_id", "is required"))
		}
		if m.EntityID == "" {
			errs = append(errs, kgmem.Invalidf(p+".entity_id", "is required"))
		}
	}
	return errors.Join(errs...)
}

// finite rejects NaN and infinities, which would poison sorting and scoring.
func finite(field string, v float64) error {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return kgmem.Invalidf(field, "must be a finite number, got %v", v)
	}
	return nil
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
