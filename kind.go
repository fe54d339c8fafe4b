package kgmem

// Kind names the three record kinds that can be searched, embedded and decayed.
type Kind string

// The record kinds.
const (
	KindFact    Kind = "fact"
	KindEntity  Kind = "entity"
	KindEpisode Kind = "episode"
)

// AllKinds lists every Kind in a stable order.
func AllKinds() []Kind { return []Kind{KindFact, KindEntity, KindEpisode} }

// Valid reports whether k is one of the known kinds.
func (k Kind) Valid() bool {
	return k == KindFact || k == KindEntity || k == KindEpisode
}
