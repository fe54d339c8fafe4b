package kgmem

// Cardinality says how many values a relation holds at one time, which decides
// whether a new fact ends an older one. The built-in table (triples/cardinality.go)
// covers common relations; a namespace overrides it per predicate in its
// settings ("cardinality") or schema (relation_types[].cardinality).
type Cardinality string

// The cardinalities.
const (
	// CardinalityMany: any number of objects per subject and subjects per
	// object at once (likes, knows, visited). Only an explicit end, a negation
	// or the LLM judge ends such a fact.
	CardinalityMany Cardinality = "many"
	// CardinalityOneObject: one object per subject at a time (lives_in,
	// works_at, has_age): a later object ends the earlier one.
	CardinalityOneObject Cardinality = "one_object"
	// CardinalityOneSubject: one subject per object at a time (is_ceo_of,
	// leads): a later holder ends the earlier holder's fact.
	CardinalityOneSubject Cardinality = "one_subject"
	// CardinalityOneEach: one object per subject and one subject per object
	// at a time (is_married_to), in either direction.
	CardinalityOneEach Cardinality = "one_each"
)

// Valid reports whether c is one of the four cardinalities.
func (c Cardinality) Valid() bool {
	switch c {
	case CardinalityMany, CardinalityOneObject, CardinalityOneSubject, CardinalityOneEach:
		return true
	}
	return false
}
