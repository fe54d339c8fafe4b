package milvus

import (
	"context"
	"fmt"
	"time"

	"github.com/milvus-io/milvus-proto/go-api/v2/commonpb"
	"github.com/milvus-io/milvus-sdk-go/v2/client"
	"github.com/milvus-io/milvus-sdk-go/v2/entity"
)

// flushPoll is the interval between progress checks in Flush.
const flushPoll = 500 * time.Millisecond

// Flush seals the collection's growing segments and waits until every
// index is built and every flushed row is served from an indexed segment, so
// later searches run on the index rather than on scans of growing segments.
// Searches are correct without it; call it after a bulk load (the benchmark
// does). It gives up when ctx ends.
func (ix *Index) Flush(ctx context.Context) error {
	name := ix.cfg.Collection
	if err := ix.cl.Flush(ctx, name, false); err != nil {
		return wrap("flush "+name, err)
	}
	return ix.poll(ctx, "the index of "+name+" to be built and loaded", ix.indexedAndLoaded)
}

// indexedAndLoaded reports whether every index of the collection is built
// and every flushed row is served by the query node from an indexed segment.
func (ix *Index) indexedAndLoaded(ctx context.Context) (bool, error) {
	name := ix.cfg.Collection
	indexes := map[string]string{ix.vectorIndex: fieldVector}
	for _, field := range filterFields {
		indexes[scalarIndexName(field)] = field
	}
	for idxName, field := range indexes {
		// With several indexes, Milvus needs the index name to tell which.
		state, err := ix.cl.GetIndexState(ctx, name, field, client.WithIndexName(idxName))
		if err != nil {
			return false, wrap("flush: state of index "+idxName+" of "+name, err)
		}
		switch commonpb.IndexState(state) {
		case commonpb.IndexState_Failed:
			return false, fmt.Errorf("milvus flush: building index %s of %s failed", idxName, name)
		case commonpb.IndexState_Finished:
		default:
			return false, nil
		}
	}
	persisted, err := ix.cl.GetPersistentSegmentInfo(ctx, name)
	if err != nil {
		return false, wrap("flush: segments of "+name, err)
	}
	var flushed int64
	for _, s := range persisted {
		if s.Flushed() {
			flushed += s.NumRows
		}
	}
	qs, ok := ix.cl.(querySegmentInfoer)
	if !ok {
		return true, nil
	}
	loaded, err := qs.GetQuerySegmentInfo(ctx, name)
	if err != nil {
		return false, wrap("flush: loaded segments of "+name, err)
	}
	var served int64
	for _, s := range loaded {
		if s.IndexID != 0 {
			served += s.NumRows
		}
	}
	return served >= flushed, nil
}

// querySegmentInfoer is the SDK client method (outside client.Client) that
// lists the sealed segments the query nodes serve.
type querySegmentInfoer interface {
	GetQuerySegmentInfo(ctx context.Context, collName string) ([]*entity.Segment, error)
}

// poll calls done every flushPoll until it reports true, fails, or ctx ends.
func (ix *Index) poll(ctx context.Context, what string, done func(context.Context) (bool, error)) error {
	tick := time.NewTicker(flushPoll)
	defer tick.Stop()
	for {
		ok, err := done(ctx)
		if err != nil || ok {
			return err
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("milvus: waiting for %s: %w", what, ctx.Err())
		case <-tick.C:
		}
	}
}
