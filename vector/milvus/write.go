package milvus

import (
	"context"
	"fmt"
	"slices"

	"github.com/milvus-io/milvus-proto/go-api/v2/milvuspb"
	"github.com/milvus-io/milvus-sdk-go/v2/client"
	"github.com/milvus-io/milvus-sdk-go/v2/entity"

	"github.com/kgmem/kgmem"
)

// deleteBatch bounds the ids per delete expression.
const deleteBatch = 1000

// Upsert inserts or replaces records by id, in batches of Config.BatchSize.
// Every record is validated before anything is written; within one call the
// last record with a given id wins.
func (ix *Index) Upsert(ctx context.Context, records []kgmem.VectorRecord) error {
	if err := kgmem.CheckVectorRecords(records, ix.cfg.Dim); err != nil {
		return fmt.Errorf("milvus upsert: %w", err)
	}
	records = lastPerID(records)
	for start := 0; start < len(records); start += ix.cfg.BatchSize {
		end := min(start+ix.cfg.BatchSize, len(records))
		if err := ix.upsertBatch(ctx, records[start:end]); err != nil {
			return fmt.Errorf("milvus upsert: records %d..%d of %d: %w", start, end-1, len(records), err)
		}
	}
	return nil
}

// lastPerID drops all but the last record of each id, keeping order, because
// Milvus would store duplicates sent in one request side by side.
func lastPerID(records []kgmem.VectorRecord) []kgmem.VectorRecord {
	last := make(map[string]int, len(records))
	for i, r := range records {
		last[r.ID] = i
	}
	if len(last) == len(records) {
		return records
	}
	out := make([]kgmem.VectorRecord, 0, len(last))
	for i, r := range records {
		if last[r.ID] == i {
			out = append(out, r)
		}
	}
	return out
}

func (ix *Index) upsertBatch(ctx context.Context, batch []kgmem.VectorRecord) error {
	n := len(batch)
	ids := make([]string, n)
	nss := make([]string, n)
	kinds := make([]string, n)
	created := make([]int64, n)
	vecs := make([][]float32, n)
	for i, r := range batch {
		ids[i], nss[i], kinds[i], vecs[i] = r.ID, string(r.Namespace), string(r.Kind), r.Vector
		if !r.CreatedAt.IsZero() {
			created[i] = r.CreatedAt.UnixMilli()
		}
	}
	cols := []entity.Column{
		entity.NewColumnVarChar(fieldID, ids),
		entity.NewColumnVarChar(fieldNamespace, nss),
		entity.NewColumnVarChar(fieldKind, kinds),
		entity.NewColumnInt64(fieldCreatedAt, created),
		entity.NewColumnFloatVector(fieldVector, ix.cfg.Dim, vecs),
	}
	grpc, ok := ix.cl.(*client.GrpcClient)
	if !ok || grpc.Service == nil {
		if _, err := ix.cl.Upsert(ctx, ix.cfg.Collection, "", cols...); err != nil {
			return wrap("upsert", err)
		}
		ix.recent.wrote(batch)
		return nil
	}
	// The request is sent directly, as the SDK's Upsert builds it from the
	// same columns, for two reasons: the SDK describes the collection again
	// on every upsert (one more round trip), and it keeps the write's
	// timestamp to itself, while Session reads need it per namespace.
	req := &milvuspb.UpsertRequest{CollectionName: ix.cfg.Collection, NumRows: uint32(n)}
	for _, c := range cols {
		req.FieldsData = append(req.FieldsData, c.FieldData())
	}
	resp, err := grpc.Service.Upsert(ctx, req)
	if err == nil {
		err = statusErr(resp.GetStatus())
	}
	if err != nil {
		return wrap("upsert", err)
	}
	ix.sessions.wrote(resp.GetTimestamp(), slices.Compact(slices.Sorted(slices.Values(asNamespaces(nss)))))
	ix.recent.wrote(batch)
	return nil
}

// asNamespaces converts namespace strings.
func asNamespaces(nss []string) []kgmem.Namespace {
	out := make([]kgmem.Namespace, len(nss))
	for i, ns := range nss {
		out[i] = kgmem.Namespace(ns)
	}
	return out
}

// Delete removes the records of ns with the given ids; ids absent from ns
// (including ids stored under another namespace) are ignored.
func (ix *Index) Delete(ctx context.Context, ns kgmem.Namespace, ids []string) error {
	if err := checkNamespace("namespace", ns); err != nil {
		return fmt.Errorf("milvus delete: %w", err)
	}
	for i, id := range ids {
		if err := checkID(fmt.Sprintf("ids[%d]", i), id); err != nil {
			return fmt.Errorf("milvus delete: %w", err)
		}
	}
	for start := 0; start < len(ids); start += deleteBatch {
		end := min(start+deleteBatch, len(ids))
		ix.deleted()
		ix.recent.forget(ns, ids[start:end])
		if err := ix.cl.Delete(ctx, ix.cfg.Collection, "", idsExpr(ns, ids[start:end])); err != nil {
			return wrap("delete", err)
		}
	}
	return nil
}

// DeleteNamespace removes every record of ns.
func (ix *Index) DeleteNamespace(ctx context.Context, ns kgmem.Namespace) error {
	if err := checkNamespace("namespace", ns); err != nil {
		return fmt.Errorf("milvus delete namespace: %w", err)
	}
	ix.deleted()
	ix.recent.forget(ns, nil)
	if err := ix.cl.Delete(ctx, ix.cfg.Collection, "", namespaceExpr(ns, nil)); err != nil {
		return wrap("delete namespace "+string(ns), err)
	}
	return nil
}
