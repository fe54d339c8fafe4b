package milvus

import (
	"regexp"
	"time"

	"github.com/milvus-io/milvus-sdk-go/v2/entity"

	"github.com/kgmem/kgmem"
)

// Defaults applied by Open to zero Config fields.
const (
	DefaultCollection     = "kgmem_vectors"
	DefaultM              = 16
	DefaultEfConstruction = 200
	DefaultEf             = 128
	DefaultBatchSize      = 1000
	DefaultDialTimeout    = 10 * time.Second
	DefaultExactBelow     = 2048
)

// Field sizes of the collection schema.
const (
	// MaxIDLength is the longest id (in bytes) the collection accepts.
	MaxIDLength = kgmem.MaxVectorIDBytes
	// maxNamespaceLength covers 8 segments of 64 characters and their 7 slashes.
	maxNamespaceLength = 600
	maxKindLength      = 16
	// maxDim is Milvus's largest FloatVector dimension.
	maxDim = 32768
	// maxTopK is Milvus's largest search limit.
	maxTopK = 16384
	// maxQueryWindow is Milvus's largest query limit.
	maxQueryWindow = 16384
)

// Consistency is the read consistency of the collection (Milvus consistency level).
type Consistency string

// Supported consistency levels.
const (
	// Strong reads see every write acknowledged before the read started.
	Strong Consistency = "Strong"
	// Bounded reads may miss writes of the last few seconds (Milvus's default).
	Bounded Consistency = "Bounded"
	// Session reads see the writes of this process: upserts through the
	// timestamp of this index's last write to the namespace read (reads wait
	// for that write only), deletes by reading at Strong for two seconds
	// after this index deletes (Milvus 2.3 returns no timestamp for deletes).
	// A namespace not written for 30 s reads Bounded.
	Session Consistency = "Session"
	// Eventually reads see writes eventually.
	Eventually Consistency = "Eventually"
)

// Config configures Open. Zero fields take the defaults above.
type Config struct {
	// Address is the Milvus gRPC endpoint, "host:port" (required).
	Address string
	// Username and Password authenticate when the server has authorization on.
	Username string
	Password string
	// Collection is the collection name (default "kgmem_vectors").
	Collection string
	// Dim is the embedding dimension (required, 1..32768).
	Dim int
	// M and EfConstruction are the HNSW build parameters (defaults 16 and 200).
	M              int
	EfConstruction int
	// Ef is the HNSW search breadth (default 128). In the benchmark (100,000
	// vectors of dim 256, 10% namespace filter, see docs/milvus.md) recall@10 is
	// 0.87 / 0.94 / 0.98 at ef 64 / 128 / 256 for under 1.5 ms more at p50.
	// A search uses max(Ef, K).
	Ef int
	// ConsistencyLevel of a newly created collection and of every read
	// (default Strong).
	ConsistencyLevel Consistency
	// DisablePartitionKey creates the collection without making namespace the
	// partition key. Open also leaves it off on servers older than 2.4.0, whose
	// upsert misroutes partition-key rows (milvus-io/milvus#30607). An existing
	// collection keeps the layout it was created with.
	DisablePartitionKey bool
	// BatchSize bounds the rows sent per Upsert request (default 1000).
	BatchSize int
	// DialTimeout bounds connecting in Open (default 10s).
	DialTimeout time.Duration
	// ExactBelow is the largest number of records a search's filter
	// (namespace and kinds) may match to be answered exactly: their vectors
	// are read and ranked by cosine in the client instead of by Milvus's
	// approximate search (default 2048, at most 16384; negative turns it
	// off). Milvus 2.3 searches rows of growing segments through a temporary
	// IVF index (nlist 128, nprobe 16, server configuration) that loses a
	// third of a selective filter's true neighbours; see docs/milvus.md.
	ExactBelow int
}

var collectionNameRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]{0,254}$`)

// withDefaults returns cfg with defaults filled in, or an ErrInvalid naming the bad field.
func (cfg Config) withDefaults() (Config, error) {
	if cfg.Collection == "" {
		cfg.Collection = DefaultCollection
	}
	if cfg.M == 0 {
		cfg.M = DefaultM
	}
	if cfg.EfConstruction == 0 {
		cfg.EfConstruction = DefaultEfConstruction
	}
	if cfg.Ef == 0 {
		cfg.Ef = DefaultEf
	}
	if cfg.ConsistencyLevel == "" {
		cfg.ConsistencyLevel = Strong
	}
	if cfg.BatchSize == 0 {
		cfg.BatchSize = DefaultBatchSize
	}
	if cfg.DialTimeout == 0 {
		cfg.DialTimeout = DefaultDialTimeout
	}
	if cfg.ExactBelow == 0 {
		cfg.ExactBelow = DefaultExactBelow
	}
	switch {
	case cfg.Address == "":
		return cfg, kgmem.Invalidf("address", "is required (host:port of the Milvus gRPC endpoint)")
	case !collectionNameRE.MatchString(cfg.Collection):
		return cfg, kgmem.Invalidf("collection", "%q must match %s", cfg.Collection, collectionNameRE)
	case cfg.Dim < 1 || cfg.Dim > maxDim:
		return cfg, kgmem.Invalidf("dim", "is %d, must be in 1..%d", cfg.Dim, maxDim)
	case cfg.M < 4 || cfg.M > 64:
		return cfg, kgmem.Invalidf("m", "is %d, must be in 4..64", cfg.M)
	case cfg.EfConstruction < 8 || cfg.EfConstruction > 512:
		return cfg, kgmem.Invalidf("ef_construction", "is %d, must be in 8..512", cfg.EfConstruction)
	case cfg.Ef < 1 || cfg.Ef > 32768:
		return cfg, kgmem.Invalidf("ef", "is %d, must be in 1..32768", cfg.Ef)
	case cfg.BatchSize < 1:
		return cfg, kgmem.Invalidf("batch_size", "is %d, must be positive", cfg.BatchSize)
	case cfg.ExactBelow > maxQueryWindow:
		return cfg, kgmem.Invalidf("exact_below", "is %d, must be at most %d", cfg.ExactBelow, maxQueryWindow)
	case cfg.DialTimeout < 0:
		return cfg, kgmem.Invalidf("dial_timeout", "is %s, must be positive", cfg.DialTimeout)
	}
	if _, err := cfg.ConsistencyLevel.level(); err != nil {
		return cfg, err
	}
	return cfg, nil
}

// String returns the level's name.
func (c Consistency) String() string { return string(c) }

// level maps c to the SDK's consistency level.
func (c Consistency) level() (entity.ConsistencyLevel, error) {
	switch c {
	case Strong:
		return entity.ClStrong, nil
	case Bounded:
		return entity.ClBounded, nil
	case Session:
		return entity.ClSession, nil
	case Eventually:
		return entity.ClEventually, nil
	}
	return 0, kgmem.Invalidf("consistency_level", "%q is not one of Strong, Bounded, Session, Eventually", string(c))
}

// Validate reports whether c is a supported level (an ErrInvalid if not).
func (c Consistency) Validate() error {
	_, err := c.level()
	return err
}
