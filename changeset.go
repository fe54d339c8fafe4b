package kgmem

import (
	"errors"
	"fmt"
	"math"
	"strings"
)

// ChangeSet is one atomic write to a GraphStore, always in one namespace.
type ChangeSet struct {
	Namespace Namespace
	// Episodes are inserted; an episode whose id already exists is left untouched.
	Episodes []Episode
	// Entities are upserted by id (all fields replaced).
	Entities []Entity
	// Facts are upserted by id (all fields replaced). Invalidating a fact is an
	// upsert with InvalidAt and ExpiredAt set. Subject and object must exist in
	// the store or in this ChangeSet.
	Facts []Fact
	// Mentions link episodes to entities; duplicates are ignored.
	Mentions []Mention
	// Items are upserted by id (all fields replaced).
	Items []Item
}

// Empty reports whether the change set writes nothing.
func (cs ChangeSet) Empty() bool {
	return len(cs.Episodes) == 0 && len(cs.Entities) == 0 && len(cs.Facts) == 0 && len(cs.Mentions) == 0 && len(cs.Items) == 0
}

// Validate checks everything about cs that needs no store: a valid namespace
// that every record shares, required ids and references, entity names with
// letters or digits, finite numbers. It joins every problem found, each a
// *FieldError wrapping ErrInvalid. Stores call it before writing anything.
func (cs ChangeSet) Validate() error {
	if _, err := ParseNamespace(string(cs.Namespace)); err != nil {
		return err
	}
	sameNS := func(field string, ns Namespace) error {
		if ns != cs.Namespace {
			return Invalidf(field, "is %q, but the change set is for %q", ns, cs.Namespace)
		}
		return nil
	}
	var errs []error
	for i, e := range cs.Episodes {
		p := fmt.Sprintf("episodes[%d]", i)
		errs = append(errs, sameNS(p+".namespace", e.Namespace), finite(p+".decay.stability", e.Decay.Stability))
		if e.ID == "" {
			errs = append(errs, Invalidf(p+".id", "is required"))
		}
	}
	for i, e := range cs.Entities {
		p := fmt.Sprintf("entities[%d]", i)
		errs = append(errs, sameNS(p+".namespace", e.Namespace), finite(p+".decay.stability", e.Decay.Stability))
		if e.ID == "" {
			errs = append(errs, Invalidf(p+".id", "is required"))
		}
		if NormalizeName(e.Name) == "" {
			errs = append(errs, Invalidf(p+".name", "has no letters or digits: %q", e.Name))
		}
	}
	for i, f := range cs.Facts {
		p := fmt.Sprintf("facts[%d]", i)
		errs = append(errs, sameNS(p+".namespace", f.Namespace), finite(p+".confidence", f.Confidence), finite(p+".decay.stability", f.Decay.Stability))
		for _, req := range [][2]string{{"id", f.ID}, {"subject_id", f.SubjectID}, {"predicate", f.Predicate}, {"object_id", f.ObjectID}} {
			if strings.TrimSpace(req[1]) == "" {
				errs = append(errs, Invalidf(p+"."+req[0], "is required"))
			}
		}
	}
	for i, it := range cs.Items {
		p := fmt.Sprintf("items[%d]", i)
		errs = append(errs, sameNS(p+".namespace", it.Namespace), finite(p+".decay.stability", it.Decay.Stability),
			CheckItemKey(p+".key", it.Key), CheckItemValue(p+".value", it.Value))
		if it.ID != ItemID(it.Namespace, it.Key) {
			errs = append(errs, Invalidf(p+".id", "is %q, want ItemID(namespace, key) = %q", it.ID, ItemID(it.Namespace, it.Key)))
		}
	}
	for i, m := range cs.Mentions {
		p := fmt.Sprintf("mentions[%d]", i)
		if m.EpisodeID == "" {
			errs = append(errs, Invalidf(p+".episode_id", "is required"))
		}
		if m.EntityID == "" {
			errs = append(errs, Invalidf(p+".entity_id", "is required"))
		}
	}
	return errors.Join(errs...)
}

// ValidateDecayUpdates checks that every update names a known kind and a
// finite stability; stores call it before SetDecay writes anything.
func ValidateDecayUpdates(updates []DecayUpdate) error {
	for i, u := range updates {
		if !u.Kind.Valid() {
			return Invalidf(fmt.Sprintf("updates[%d].kind", i), "unknown kind %q", u.Kind)
		}
		if err := finite(fmt.Sprintf("updates[%d].state.stability", i), u.State.Stability); err != nil {
			return err
		}
	}
	return nil
}

// finite rejects NaN and infinities, which no store keeps as numbers and which
// would poison sorting and scoring.
func finite(field string, v float64) error {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return Invalidf(field, "must be a finite number, got %v", v)
	}
	return nil
}
