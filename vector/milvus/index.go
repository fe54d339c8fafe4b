package milvus

import (
	"context"
	"fmt"
	"strconv"

	"github.com/milvus-io/milvus-sdk-go/v2/client"
	"github.com/milvus-io/milvus-sdk-go/v2/entity"

	"github.com/kgmem/kgmem"
)

// Index is a kgmem.VectorIndex stored in one Milvus collection. It is safe for
// concurrent use.
type Index struct {
	cfg    Config
	cl     client.Client
	level  entity.ConsistencyLevel
	search entity.SearchParam
	// vectorIndex names the index on the vector field (ensureIndex).
	vectorIndex string
	// partitionKey reports whether namespace is the collection's partition key.
	partitionKey bool
	// created reports whether prepare created the collection (it was
	// missing); collectionID is the server's id of the collection prepared.
	created      bool
	collectionID int64
	// sessions keeps Session reads per namespace (consistency.go), and
	// recent the vectors written within their window (recent.go).
	sessions sessions
	recent   recentWrites
	// large remembers the filters too large for exact search (exact.go).
	large largeFilters
}

var _ kgmem.VectorIndex = (*Index)(nil)

// Open connects to the Milvus server at cfg.Address and prepares the
// collection: it is created with the explicit schema, HNSW/COSINE index and
// consistency level when missing, and loaded. An existing collection must have
// the same vector dimension (else the error wraps kgmem.ErrDimensionMismatch
// and names both) and the kgmem schema (else kgmem.ErrConflict). An
// unreachable server yields kgmem.ErrUnavailable; a bad cfg kgmem.ErrInvalid.
func Open(ctx context.Context, cfg Config) (*Index, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, fmt.Errorf("milvus open: %w", err)
	}
	level, _ := cfg.ConsistencyLevel.level() // validated by withDefaults
	sp, err := entity.NewIndexHNSWSearchParam(cfg.Ef)
	if err != nil {
		return nil, fmt.Errorf("milvus open: %w", kgmem.Invalidf("ef", "%v", err))
	}
	dialCtx, cancel := context.WithTimeout(ctx, cfg.DialTimeout)
	defer cancel()
	cl, err := client.NewClient(dialCtx, client.Config{
		Address:  cfg.Address,
		Username: cfg.Username,
		Password: cfg.Password,
	})
	if err != nil {
		if ctx.Err() == nil && dialCtx.Err() != nil {
			// The dial timed out (the SDK dials blocking): nothing answers there.
			return nil, fmt.Errorf("milvus open: connect to %s within %s: %w: %w", cfg.Address, cfg.DialTimeout, kgmem.ErrUnavailable, err)
		}
		// Refused connections are marked unavailable by wrap; a refused
		// login (Unauthenticated) is not.
		return nil, wrap("open: connect to "+cfg.Address, err)
	}
	ix := &Index{cfg: cfg, cl: cl, level: level, search: sp}
	if err := ix.prepare(ctx); err != nil {
		_ = cl.Close()
		return nil, err
	}
	return ix, nil
}

// prepare creates or checks the collection, its index, and loads it.
func (ix *Index) prepare(ctx context.Context) error {
	name := ix.cfg.Collection
	exists, err := ix.cl.HasCollection(ctx, name)
	if err != nil {
		return wrap("open: has collection "+name, err)
	}
	if exists {
		coll, err := ix.cl.DescribeCollection(ctx, name)
		if err != nil {
			return wrap("open: describe collection "+name, err)
		}
		if err := checkSchema(coll.Schema, ix.cfg.Dim); err != nil {
			return fmt.Errorf("milvus open: collection %s: %w", name, err)
		}
		ix.partitionKey = hasPartitionKey(coll.Schema)
		ix.collectionID = coll.ID
	} else {
		version, err := ix.cl.GetVersion(ctx)
		if err != nil {
			return wrap("open: server version", err)
		}
		ix.partitionKey = !ix.cfg.DisablePartitionKey && partitionKeySafe(version)
		if err := ix.create(ctx); err != nil {
			return err
		}
		coll, err := ix.cl.DescribeCollection(ctx, name)
		if err != nil {
			return wrap("open: describe collection "+name, err)
		}
		ix.collectionID = coll.ID
		ix.created = true
	}
	if err := ix.ensureIndex(ctx); err != nil {
		return err
	}
	if err := ix.cl.LoadCollection(ctx, name, false); err != nil {
		return wrap("open: load collection "+name, err)
	}
	return nil
}

// hasPartitionKey reports whether the namespace field of s is a partition key.
func hasPartitionKey(s *entity.Schema) bool {
	for _, f := range s.Fields {
		if f.Name == fieldNamespace {
			return f.IsPartitionKey
		}
	}
	return false
}

// schema returns the collection schema for cfg; partitionKey makes namespace
// the partition key.
func schema(cfg Config, partitionKey bool) *entity.Schema {
	return entity.NewSchema().
		WithName(cfg.Collection).
		WithDescription("kgmem embeddings of facts, entities and episodes").
		WithAutoID(false).
		WithField(entity.NewField().WithName(fieldID).WithDataType(entity.FieldTypeVarChar).
			WithIsPrimaryKey(true).WithIsAutoID(false).WithMaxLength(MaxIDLength)).
		WithField(entity.NewField().WithName(fieldNamespace).WithDataType(entity.FieldTypeVarChar).
			WithMaxLength(maxNamespaceLength).WithIsPartitionKey(partitionKey)).
		WithField(entity.NewField().WithName(fieldKind).WithDataType(entity.FieldTypeVarChar).
			WithMaxLength(maxKindLength)).
		WithField(entity.NewField().WithName(fieldCreatedAt).WithDataType(entity.FieldTypeInt64)).
		WithField(entity.NewField().WithName(fieldVector).WithDataType(entity.FieldTypeFloatVector).
			WithDim(int64(cfg.Dim)))
}

// create creates the collection. A concurrent creator winning the race is fine
// as long as its schema matches.
func (ix *Index) create(ctx context.Context) error {
	name := ix.cfg.Collection
	err := ix.cl.CreateCollection(ctx, schema(ix.cfg, ix.partitionKey), 1, client.WithConsistencyLevel(ix.level))
	if err == nil {
		return nil
	}
	if exists, herr := ix.cl.HasCollection(ctx, name); herr == nil && exists {
		coll, derr := ix.cl.DescribeCollection(ctx, name)
		if derr != nil {
			return wrap("open: describe collection "+name, derr)
		}
		if cerr := checkSchema(coll.Schema, ix.cfg.Dim); cerr != nil {
			return fmt.Errorf("milvus open: collection %s: %w", name, cerr)
		}
		ix.partitionKey = hasPartitionKey(coll.Schema)
		return nil
	}
	return wrap("open: create collection "+name, err)
}

// checkSchema verifies that an existing collection is a kgmem collection of dimension dim.
func checkSchema(s *entity.Schema, dim int) error {
	want := map[string]entity.FieldType{
		fieldID:        entity.FieldTypeVarChar,
		fieldNamespace: entity.FieldTypeVarChar,
		fieldKind:      entity.FieldTypeVarChar,
		fieldCreatedAt: entity.FieldTypeInt64,
		fieldVector:    entity.FieldTypeFloatVector,
	}
	got := map[string]*entity.Field{}
	for _, f := range s.Fields {
		got[f.Name] = f
	}
	for name, typ := range want {
		f, ok := got[name]
		if !ok {
			return fmt.Errorf("%w: field %q is missing; not a kgmem collection", kgmem.ErrConflict, name)
		}
		if f.DataType != typ {
			return fmt.Errorf("%w: field %q is %s, want %s", kgmem.ErrConflict, name, f.DataType.Name(), typ.Name())
		}
	}
	if id := got[fieldID]; !id.PrimaryKey || id.AutoID {
		return fmt.Errorf("%w: field %q must be the primary key without AutoID", kgmem.ErrConflict, fieldID)
	}
	have, err := strconv.Atoi(got[fieldVector].TypeParams[entity.TypeParamDim])
	if err != nil {
		return fmt.Errorf("%w: field %q has no readable dimension: %w", kgmem.ErrConflict, fieldVector, err)
	}
	if have != dim {
		return fmt.Errorf("existing collection holds %d-dimensional vectors, configured dimension is %d: %w", have, dim, kgmem.ErrDimensionMismatch)
	}
	return nil
}

// ensureIndex creates the indexes the collection needs when missing: the
// HNSW/COSINE index on the vector field (an existing vector index with
// another metric is refused), and scalar indexes on namespace and kind.
// Every search and count filters on both; without a scalar index Milvus
// evaluates the filter by comparing the strings of every row of every
// segment (in the benchmark, 150,000 rows for each search of 1,500).
func (ix *Index) ensureIndex(ctx context.Context) error {
	name := ix.cfg.Collection
	// Milvus 2.3 answers DescribeIndex with every index of the collection,
	// whatever the field asked for.
	idxs, err := ix.cl.DescribeIndex(ctx, name, fieldVector)
	if err != nil && unavailable(err) {
		return wrap("open: describe indexes of "+name, err)
	}
	// DescribeIndex fails with "index not found" on a fresh collection.
	have := map[string]bool{}
	for _, idx := range idxs {
		have[idx.Name()] = true
		if mt, ok := idx.Params()["metric_type"]; ok {
			ix.vectorIndex = idx.Name()
			if mt != string(entity.COSINE) {
				return fmt.Errorf("milvus open: collection %s: %w: vector index metric is %s, want COSINE", name, kgmem.ErrConflict, mt)
			}
		}
	}
	if ix.vectorIndex == "" {
		idx, err := entity.NewIndexHNSW(entity.COSINE, ix.cfg.M, ix.cfg.EfConstruction)
		if err != nil {
			return fmt.Errorf("milvus open: %w", kgmem.Invalidf("m", "%v", err))
		}
		// Named as Milvus names an unnamed index: after its field.
		ix.vectorIndex = fieldVector
		if err := ix.cl.CreateIndex(ctx, name, fieldVector, idx, false, client.WithIndexName(ix.vectorIndex)); err != nil {
			return wrap("open: create HNSW index on "+name, err)
		}
	}
	for _, field := range filterFields {
		idxName := scalarIndexName(field)
		if have[idxName] {
			continue
		}
		if err := ix.cl.CreateIndex(ctx, name, field, entity.NewScalarIndex(), false, client.WithIndexName(idxName)); err != nil {
			return wrap("open: create scalar index on "+name+"."+field, err)
		}
	}
	return nil
}

// filterFields are the fields every search and count filters on; each gets
// a scalar index (ensureIndex), named by scalarIndexName.
var filterFields = []string{fieldNamespace, fieldKind}

// scalarIndexName names the scalar index kgmem creates on a field.
func scalarIndexName(field string) string { return "kgmem_" + field }

// Dimension returns the vector length the index holds.
func (ix *Index) Dimension() int { return ix.cfg.Dim }

// PartitionKey reports whether the collection partitions by namespace (see
// Config.DisablePartitionKey and the server-version check in Open).
func (ix *Index) PartitionKey() bool { return ix.partitionKey }

// Collection returns the name of the Milvus collection behind the index.
func (ix *Index) Collection() string { return ix.cfg.Collection }

// Ping checks that the server answers and reports itself healthy.
func (ix *Index) Ping(ctx context.Context) error {
	st, err := ix.cl.CheckHealth(ctx)
	if err != nil {
		return wrap("ping", err)
	}
	if !st.IsHealthy {
		return fmt.Errorf("milvus ping: %w: server unhealthy: %v", kgmem.ErrUnavailable, st.Reasons)
	}
	return nil
}

// Close closes the connection. The collection and its data stay on the server.
func (ix *Index) Close() error {
	if err := ix.cl.Close(); err != nil {
		return fmt.Errorf("milvus close: %w", err)
	}
	return nil
}

// Drop deletes the whole collection from the server (tests and benchmarks use
// it to clean up); the Index must not be used afterwards.
func (ix *Index) Drop(ctx context.Context) error {
	if err := ix.cl.DropCollection(ctx, ix.cfg.Collection); err != nil {
		return wrap("drop collection "+ix.cfg.Collection, err)
	}
	return nil
}
