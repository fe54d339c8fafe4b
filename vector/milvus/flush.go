package milvus

import (
	"context"
	"fmt"
	"slices"
	"strings"
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
	st, err := ix.segmentState(ctx)
	return st.ready, err
}

// segmentState is what Milvus reports of a collection's segments.
type segmentState struct {
	// ready: every index is built and every flushed row is served from an
	// indexed segment.
	ready bool
	// flushed lists the IDs of the flushed segments, in ascending order.
	flushed []int64
}

// segmentState reads the state of the collection's indexes and segments.
func (ix *Index) segmentState(ctx context.Context) (segmentState, error) {
	var st segmentState
	name := ix.cfg.Collection
	indexes := map[string]string{ix.vectorIndex: fieldVector}
	for _, field := range filterFields {
		indexes[scalarIndexName(field)] = field
	}
	built := true
	for idxName, field := range indexes {
		// With several indexes, Milvus needs the index name to tell which.
		state, err := ix.cl.GetIndexState(ctx, name, field, client.WithIndexName(idxName))
		if err != nil {
			return st, wrap("flush: state of index "+idxName+" of "+name, err)
		}
		switch commonpb.IndexState(state) {
		case commonpb.IndexState_Failed:
			return st, fmt.Errorf("milvus flush: building index %s of %s failed", idxName, name)
		case commonpb.IndexState_Finished:
		default:
			built = false
		}
	}
	persisted, err := ix.cl.GetPersistentSegmentInfo(ctx, name)
	if err != nil {
		return st, wrap("flush: segments of "+name, err)
	}
	var flushed int64
	for _, s := range persisted {
		if s.Flushed() {
			flushed += s.NumRows
			st.flushed = append(st.flushed, s.ID)
		}
	}
	slices.Sort(st.flushed)
	if !built {
		return st, nil
	}
	qs, ok := ix.cl.(querySegmentInfoer)
	if !ok {
		st.ready = true
		return st, nil
	}
	loaded, err := qs.GetQuerySegmentInfo(ctx, name)
	if err != nil {
		return st, wrap("flush: loaded segments of "+name, err)
	}
	var served int64
	for _, s := range loaded {
		if s.IndexID != 0 {
			served += s.NumRows
		}
	}
	st.ready = served >= flushed
	return st, nil
}

// SettleStats is what Settle waited for.
type SettleStats struct {
	// Waited is how long Settle took.
	Waited time.Duration `json:"waited_ns"`
	// Changes counts how often the set of flushed segments changed while
	// Settle waited: each change is a compaction Milvus ran (and whose
	// merged segment it then indexed).
	Changes int `json:"segment_changes"`
}

// Settle waits until Milvus has finished the background work a bulk load
// sets off: the collection's flushed segments must stay the same, all
// indexed and served, for quiet. After a load, Milvus merges small segments
// (compaction, checked about once a minute) and builds the index of each
// merged segment again, which on a small machine takes the CPU searches
// need for minutes; Flush does not wait for that, and Milvus 2.3 offers no
// call that tells whether a compaction is coming (ManualCompaction rewrites
// segments one by one rather than merging them). A quiet longer than the
// server's compaction interval (dataCoord.compaction.global.interval, 60 s
// by default) plus one compaction's run makes the steady state likely, not
// certain. Call it after Flush. It gives up when ctx ends.
func (ix *Index) Settle(ctx context.Context, quiet time.Duration) (SettleStats, error) {
	start := time.Now()
	var (
		stats SettleStats
		last  []int64
		since = start
	)
	err := ix.poll(ctx, "the segments of "+ix.cfg.Collection+" to settle", func(ctx context.Context) (bool, error) {
		st, err := ix.segmentState(ctx)
		if err != nil {
			return false, err
		}
		now := time.Now()
		if !slices.Equal(st.flushed, last) {
			if last != nil {
				stats.Changes++
			}
			last, since = st.flushed, now
		}
		if !st.ready {
			since = now
		}
		return now.Sub(since) >= quiet, nil
	})
	stats.Waited = time.Since(start)
	return stats, err
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
		if err != nil && ctx.Err() != nil {
			// The call failed because ctx ended: say so in the error chain.
			return fmt.Errorf("milvus: waiting for %s: %w: %w", what, ctx.Err(), err)
		}
		if err != nil && serverDeadline(ctx, err) {
			// gRPC gave Milvus ctx's deadline, and Milvus met it first.
			return fmt.Errorf("milvus: waiting for %s: %w: %w", what, context.DeadlineExceeded, err)
		}
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

// serverDeadline reports whether err is Milvus reporting that the deadline
// gRPC passed it from ctx ran out (as text in its status, e.g.
// "syncTimestamp Failed:context deadline exceeded"), which it can see a
// moment before ctx itself ends: ctx's deadline is that close.
func serverDeadline(ctx context.Context, err error) bool {
	deadline, has := ctx.Deadline()
	return has && time.Until(deadline) < time.Second && strings.Contains(err.Error(), context.DeadlineExceeded.Error())
}
