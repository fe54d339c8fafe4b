package kgmem

import "time"

// DecayState is the forgetting-curve state every entity, fact and episode carries.
// The decay package owns the math; stores only persist these fields.
type DecayState struct {
	// Stability is how slowly the item fades, in days: the larger, the slower.
	// Zero means "not initialised yet"; the decay model derives it from importance.
	Stability float64 `json:"stability,omitzero"`
	// LastReinforcedAt is when the item was last created, restated, recalled or pinned.
	LastReinforcedAt time.Time `json:"last_reinforced_at,omitzero"`
	// Reinforcements counts restatements and recalls.
	Reinforcements int `json:"reinforcements,omitzero"`
	// Pinned items never decay.
	Pinned bool `json:"pinned,omitzero"`
	// ForgottenAt is set by the forgetting sweep: the item is hidden from default
	// search but kept, and can be restored.
	ForgottenAt time.Time `json:"forgotten_at,omitzero"`
}

// Forgotten reports whether the forgetting sweep has hidden the item.
func (d DecayState) Forgotten() bool { return !d.ForgottenAt.IsZero() }
