package kgmem

import "time"

// Fact is one entity–relation triple with its provenance and its two time axes.
//
// World time says when the fact was true: ValidAt (zero: unknown, assumed
// always) and InvalidAt (zero: still true). System time says when kgmem believed
// it: CreatedAt and ExpiredAt (zero: current belief). Invalidating a contradicted
// fact sets InvalidAt to the new fact's ValidAt and ExpiredAt to now; the fact
// stays stored as history.
type Fact struct {
	ID        string    `json:"id"`
	Namespace Namespace `json:"namespace"`
	SubjectID string    `json:"subject_id"`
	// Predicate is the canonical lower_snake relation name ("leads").
	Predicate string `json:"predicate"`
	ObjectID  string `json:"object_id"`
	// SubjectName and ObjectName, SubjectType and ObjectType are the two
	// ends' names and types, filled in by stores on read (current ones:
	// renaming an entity renames its facts' ends); ignored on write.
	SubjectName string `json:"subject"`
	ObjectName  string `json:"object"`
	SubjectType string `json:"subject_type,omitempty"`
	ObjectType  string `json:"object_type,omitempty"`
	// Text is the fact as one self-contained sentence ("Bob leads the ML team.").
	Text string `json:"fact"`
	// Confidence in [0, 1].
	Confidence float64 `json:"confidence"`
	// Importance from 1 (trivia) to 10 (never forget: name, allergies).
	Importance int `json:"importance"`
	// Episodes are the ids of the episodes this fact was drawn from.
	Episodes   []string       `json:"episodes,omitempty"`
	Attributes map[string]any `json:"attributes,omitempty"`
	ValidAt    time.Time      `json:"valid_at,omitzero"`
	InvalidAt  time.Time      `json:"invalid_at,omitzero"`
	CreatedAt  time.Time      `json:"created_at"`
	ExpiredAt  time.Time      `json:"expired_at,omitzero"`
	Decay      DecayState     `json:"decay"`
}

// Current reports whether the fact is kgmem's current belief with no end in
// world time: not expired by a contradiction and not ended. Status tells, at a
// given instant, whether it is also true then.
func (f Fact) Current() bool { return f.ExpiredAt.IsZero() && f.InvalidAt.IsZero() }

// ValidAtInstant reports whether the fact held at world time t: this is how
// "as_of" is evaluated everywhere (listings, search, graph expansion). It held
// when its validity had started by t (ValidAt ≤ t; an unknown ValidAt counts
// from when kgmem recorded it, CreatedAt, so as_of never returns what was not
// yet known to be true) and had not ended by t (InvalidAt zero or after t).
// An invalidated fact held until its InvalidAt, like any other.
func (f Fact) ValidAtInstant(t time.Time) bool {
	if !f.CreatedAt.IsZero() && f.CreatedAt.After(t) && (f.ValidAt.IsZero() || f.ValidAt.After(t)) {
		return false
	}
	if !f.ValidAt.IsZero() && f.ValidAt.After(t) {
		return false
	}
	if !f.InvalidAt.IsZero() && !f.InvalidAt.After(t) {
		return false
	}
	return true
}

// StatedEndAttribute is the attribute in which kgmem keeps what the
// statements of a fact said about its end ("open", or an RFC 3339 time) once
// a later conflicting fact cut its validity shorter (InvalidAt is then the
// cut). Restatements that arrive afterwards merge with the stated end, so the
// outcome does not depend on arrival order. Attributes with the prefix
// ReservedAttributePrefix are kgmem's own: clients cannot set them and
// responses leave them out.
const StatedEndAttribute = ReservedAttributePrefix + "stated_end"

// ReservedAttributePrefix starts the fact attributes that kgmem keeps for itself.
const ReservedAttributePrefix = "kgmem_"

// Triple is a fact as a client or an LLM states it, before entity resolution:
// names instead of ids. POST /v1/facts takes these; extraction produces them.
type Triple struct {
	Subject     string         `json:"subject"`
	SubjectType string         `json:"subject_type,omitempty"`
	Predicate   string         `json:"predicate"`
	Object      string         `json:"object"`
	ObjectType  string         `json:"object_type,omitempty"`
	Text        string         `json:"fact,omitempty"`
	ValidAt     time.Time      `json:"valid_at,omitzero"`
	InvalidAt   time.Time      `json:"invalid_at,omitzero"`
	Confidence  float64        `json:"confidence,omitempty"`
	Importance  int            `json:"importance,omitempty"`
	Attributes  map[string]any `json:"metadata,omitempty"`
	// EpisodeIDs are the episodes the triple was drawn from (provenance).
	EpisodeIDs []string `json:"episode_ids,omitempty"`
}

// ChangeOp says what ingesting a triple did to the graph.
type ChangeOp string

// The fact change operations.
const (
	// OpAdded: a new fact was stored.
	OpAdded ChangeOp = "added"
	// OpDuplicate: the fact was already known; it was reinforced and gained provenance.
	OpDuplicate ChangeOp = "duplicate"
	// OpUpdated: the same fact was restated with richer text; it was rewritten in place.
	OpUpdated ChangeOp = "updated"
	// OpInvalidated: an older fact was contradicted and expired (kept as history).
	OpInvalidated ChangeOp = "invalidated"
	// OpSkipped: the triple was rejected (reason given) and nothing was stored for it.
	OpSkipped ChangeOp = "skipped"
)

// FactChange reports one effect of an ingest on the graph.
type FactChange struct {
	Op   ChangeOp `json:"op"`
	Fact Fact     `json:"fact,omitzero"`
	// SupersededBy is, for OpInvalidated, the id of the fact that contradicted it.
	SupersededBy string `json:"superseded_by,omitempty"`
	// Reason explains OpSkipped and, when known, the other decisions.
	Reason string `json:"reason,omitempty"`
}
