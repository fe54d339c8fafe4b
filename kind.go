package kgmem

// Kind names the record kinds that can be searched, embedded and decayed.
type Kind string

// The record kinds.
const (
	KindFact    Kind = "fact"
	KindEntity  Kind = "entity"
	KindEpisode Kind = "episode"
	KindItem    Kind = "item"
)

// AllKinds lists every Kind in a stable order.
func AllKinds() []Kind { return []Kind{KindFact, KindEntity, KindEpisode, KindItem} }

// Valid reports whether k is one of the known kinds.
func (k Kind) Valid() bool {
	return k == KindFact || k == KindEntity || k == KindEpisode || k == KindItem
}
