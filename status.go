package kgmem

import "time"

// FactStatus is what a fact is at one instant, the single meaning of "status"
// in every listing, search result, context block and document:
//
//	status       ExpiredAt  world time at `now`                      meaning
//	current      zero       ValidAt ≤ now (or unknown), not ended    true now and still believed
//	upcoming     zero       ValidAt > now                            believed, not true yet
//	ended        zero       InvalidAt ≤ now                          its validity closed; nothing contradicted it
//	invalidated  set        any                                      contradicted by a later statement; kept as history
//
// A fact is in exactly one status. "current only" means FactCurrent: ended,
// invalidated and upcoming facts are left out. "As of t" is a different
// question, answered by Fact.ValidAtInstant: whether the fact held at world
// time t, whatever its status now.
type FactStatus string

// The fact statuses; see FactStatus.
const (
	// FactCurrent: true now in world time and still believed.
	FactCurrent FactStatus = "current"
	// FactUpcoming: still believed, but its validity starts after now.
	FactUpcoming FactStatus = "upcoming"
	// FactEnded: its validity closed (InvalidAt ≤ now) without a contradiction.
	FactEnded FactStatus = "ended"
	// FactInvalidated: contradicted by a later statement (ExpiredAt set); history.
	FactInvalidated FactStatus = "invalidated"
)

// Status returns the fact's status at now; see FactStatus.
func (f Fact) Status(now time.Time) FactStatus {
	switch {
	case !f.ExpiredAt.IsZero():
		return FactInvalidated
	case !f.InvalidAt.IsZero() && !f.InvalidAt.After(now):
		return FactEnded
	case !f.ValidAt.IsZero() && f.ValidAt.After(now):
		return FactUpcoming
	}
	return FactCurrent
}
