package hnsw

// Options tune the in-memory search structures. The zero value gives the
// defaults below; changing them never changes what is stored on disk.
type Options struct {
	// M is the number of neighbours each graph node keeps per level (twice
	// that on the bottom level). Default 16.
	M int
	// EfConstruction is the beam width while inserting into the graph: higher
	// builds a better graph, more slowly. Default 100.
	EfConstruction int
	// EfSearch is the beam width of a graph search (raised to K when K is
	// larger): higher finds more true neighbours, more slowly. Default 128.
	EfSearch int
	// ExactBelow is the size, in vectors of one namespace and kind, below
	// which search is an exact scan instead of a graph search. Default 2,000;
	// 1 makes every non-empty shard use the graph.
	ExactBelow int
	// Seed makes graph construction reproducible. Default 1.
	Seed uint64
	// MaxLoadedBytes bounds the memory of loaded namespaces, estimated as
	// (4·dim + 8·M + 64) bytes per vector. When a load takes the total over
	// it, the least recently searched namespaces are unloaded (they reload
	// from the file on their next search). Default 2 GiB.
	MaxLoadedBytes int64
	// BackgroundCheckpoints takes the vector file's WAL checkpoints out of
	// its commits, onto a connection of their own (internal/walcheckpoint):
	// for a bulk import, where nothing searches meanwhile (see
	// graph/sqlite.BackgroundCheckpoints).
	BackgroundCheckpoints bool
}

// Defaults of Options.
const (
	DefaultM              = 16
	DefaultEfConstruction = 100
	DefaultEfSearch       = 128
	DefaultExactBelow     = 2000
	DefaultMaxLoadedBytes = 2 << 30
)

// withDefaults fills the zero fields of o.
func (o Options) withDefaults() Options {
	if o.M <= 0 {
		o.M = DefaultM
	}
	if o.EfConstruction <= 0 {
		o.EfConstruction = DefaultEfConstruction
	}
	if o.EfSearch <= 0 {
		o.EfSearch = DefaultEfSearch
	}
	if o.ExactBelow <= 0 {
		o.ExactBelow = DefaultExactBelow
	}
	if o.MaxLoadedBytes <= 0 {
		o.MaxLoadedBytes = DefaultMaxLoadedBytes
	}
	if o.Seed == 0 {
		o.Seed = 1
	}
	return o
}
