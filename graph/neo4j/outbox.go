package neo4j

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"slices"
	"sync"
	"time"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/outbox"
	"github.com/neo4j/neo4j-go-driver/v5/neo4j"
)

// Node labels of the shared vector outbox.
const (
	// labelVectorOp is a vector write journaled before its graph write and
	// not yet applied (kgmem.VectorOp), with the server that owns it.
	labelVectorOp = "KgmemVectorOp"
	// labelOutboxOwner is a server's heartbeat: while it beats, nobody
	// takes its ops over.
	labelOutboxOwner = "KgmemOutboxOwner"
	// DefaultOutboxLease is how long a server's heartbeat holds its ops.
	DefaultOutboxLease = 15 * time.Second
)

// VectorOutbox is a kgmem.VectorOutbox kept in the database, so that the
// outbox's guarantee (every graph write reaches the vector index) holds
// when a server and its disk are gone for good: an op is a node written
// before its graph write and deleted once applied. Each server owns the ops
// it added and keeps them in memory too (Pending and Len are exact and
// cost no query); it beats a heartbeat every third of the lease, and takes
// over, every third of the lease, the ops of servers whose heartbeat is
// older than the lease. Adopted ops are drained by the engine's next round.
type VectorOutbox struct {
	s     *Store
	owner string
	lease time.Duration
	log   *slog.Logger

	mu      sync.Mutex
	pending []kgmem.QueuedVectorOp
	adopted chan struct{}

	cancel context.CancelFunc
	done   chan struct{}
}

// VectorOutbox opens the shared vector outbox as owner (a stable server
// id): it loads the ops owner left queued, beats its heartbeat and starts
// taking over the ops of servers that stopped beating theirs. lease 0
// means DefaultOutboxLease; log nil, slog.Default(). Close stops it.
func (s *Store) VectorOutbox(ctx context.Context, owner string, lease time.Duration, log *slog.Logger) (*VectorOutbox, error) {
	if owner == "" {
		return nil, fmt.Errorf("neo4j: vector outbox: %w", kgmem.Invalidf("owner", "a server id is required"))
	}
	if lease <= 0 {
		lease = DefaultOutboxLease
	}
	if log == nil {
		log = slog.Default()
	}
	o := &VectorOutbox{s: s, owner: owner, lease: lease, log: log, adopted: make(chan struct{}, 1), done: make(chan struct{})}
	if err := o.beat(ctx); err != nil {
		return nil, err
	}
	own, err := o.take(ctx, whereOwn)
	if err != nil {
		return nil, err
	}
	o.pending = own
	loop, cancel := context.WithCancel(context.Background())
	o.cancel = cancel
	go o.run(loop)
	return o, nil
}

// Adopted is signalled when ops of another server were taken over.
func (o *VectorOutbox) Adopted() <-chan struct{} { return o.adopted }

// Close stops the heartbeat and the takeover; the ops stay in the database
// for this owner's next start, or for another server once the heartbeat
// is older than the lease.
func (o *VectorOutbox) Close() error {
	o.cancel()
	<-o.done
	return nil
}

func (o *VectorOutbox) run(ctx context.Context) {
	defer close(o.done)
	tick := time.NewTicker(o.lease / 3)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		if err := o.beat(ctx); err != nil && ctx.Err() == nil {
			o.log.Warn("vector outbox heartbeat failed; other servers may take this one's queued vector writes over", "error", err)
		}
		n, err := o.adopt(ctx)
		switch {
		case err != nil && ctx.Err() == nil:
			o.log.Warn("looking for vector writes left by stopped servers failed", "error", err)
		case n > 0:
			o.log.Info("took over queued vector writes of a server that stopped", "ops", n)
			select {
			case o.adopted <- struct{}{}:
			default:
			}
		}
	}
}

func (o *VectorOutbox) params(p map[string]any) map[string]any {
	p["scope"], p["owner"] = o.s.cfg.Scope, o.owner
	return p
}

// beat records that the owner is alive, in Neo4j's clock.
func (o *VectorOutbox) beat(ctx context.Context) error {
	err := o.s.write(ctx, func(tx neo4j.ManagedTransaction) error {
		_, err := run(ctx, tx, stablePlan+`MERGE (h:`+labelOutboxOwner+` {scope: $scope, owner: $owner}) SET h.seen = timestamp()`, o.params(map[string]any{}))
		return err
	})
	if err != nil {
		return fmt.Errorf("neo4j: vector outbox heartbeat: %w", err)
	}
	return nil
}

// adopt takes over the ops of owners whose heartbeat is older than the
// lease (or missing) and queues them here.
func (o *VectorOutbox) adopt(ctx context.Context) (int, error) {
	ops, err := o.take(ctx, whereAdoptable)
	if err != nil {
		return 0, err
	}
	o.mu.Lock()
	o.pending = append(o.pending, ops...)
	o.mu.Unlock()
	return len(ops), nil
}

// Queries of the outbox's ops. Each seeks the (scope, owner) index (every
// op has an owner): matching the scope alone scans every op of every scope,
// and a Milvus outage queues an op per record written. An index of (scope,
// seq) would let a delete seek its ops alone, but updating it on every
// op's creation and deletion cost a mixed load more throughput than the
// seek saves.
const (
	// whereOwn selects this owner's ops.
	whereOwn = `WHERE v.owner = $owner`
	// whereAdoptable selects the ops of owners whose heartbeat is older than
	// the lease, or missing.
	whereAdoptable = `WHERE v.owner IS NOT NULL AND v.owner <> $owner AND NOT EXISTS {
			MATCH (h:` + labelOutboxOwner + ` {scope: $scope, owner: v.owner}) WHERE h.seen > timestamp() - $lease }`
	// qDeleteApplied deletes the ops of $seqs.
	qDeleteApplied = stablePlan + `MATCH (v:` + labelVectorOp + ` {scope: $scope}) WHERE v.owner IS NOT NULL AND v.seq IN $seqs DELETE v`
	// qQueuedOps counts the ops of every owner by namespace.
	qQueuedOps = stablePlan + `MATCH (v:` + labelVectorOp + ` {scope: $scope}) WHERE v.owner IS NOT NULL RETURN v.ns AS ns, count(v) AS ops`
)

// qTake makes the ops that where selects this owner's and returns them
// (take).
func qTake(where string) string {
	return stablePlan + `MATCH (v:` + labelVectorOp + ` {scope: $scope}) ` + where + `
			SET v.taking = true REMOVE v.taking
			WITH v ` + where + `
			SET v.owner = $owner
			RETURN v.seq, v.ns, v.kind, v.id, v.op ORDER BY v.at, v.seq`
}

// take makes the ops matching where (over v) this owner's and returns them
// in the order they were added. Setting the owner takes each node's write
// lock, and the check after it reads what a concurrent taker committed, so
// no two servers take one op.
func (o *VectorOutbox) take(ctx context.Context, where string) ([]kgmem.QueuedVectorOp, error) {
	var out []kgmem.QueuedVectorOp
	err := o.s.write(ctx, func(tx neo4j.ManagedTransaction) error {
		recs, err := run(ctx, tx, qTake(where), o.params(map[string]any{"lease": o.lease.Milliseconds()}))
		if err != nil {
			return err
		}
		out = make([]kgmem.QueuedVectorOp, 0, len(recs))
		for _, r := range recs {
			str := func(i int) string { s, _ := r.Values[i].(string); return s }
			seq, _ := r.Values[0].(int64)
			out = append(out, kgmem.QueuedVectorOp{Seq: uint64(seq), VectorOp: kgmem.VectorOp{
				Namespace: kgmem.Namespace(str(1)), Kind: kgmem.Kind(str(2)), ID: str(3), Op: kgmem.VectorOpKind(str(4))}})
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("neo4j: read queued vector writes: %w", err)
	}
	return out, nil
}

// Add writes ops to the database (committed, hence durable, when it
// returns) and queues them here.
func (o *VectorOutbox) Add(ctx context.Context, ops []kgmem.VectorOp) ([]uint64, error) {
	queued := o.Reserve(ops)
	rows, err := opRows(queued)
	if err != nil {
		return nil, err
	}
	err = o.s.write(ctx, func(tx neo4j.ManagedTransaction) error { return o.journal(ctx, tx, rows) })
	if err != nil {
		return nil, fmt.Errorf("neo4j: journal vector writes: %w", err)
	}
	o.queue(queued)
	seqs := make([]uint64, len(queued))
	for i, q := range queued {
		seqs[i] = q.Seq
	}
	return seqs, nil
}

// Reserve implements kgmem.JournalingOutbox: it numbers ops with random
// ids, unique across servers without a shared counter.
func (o *VectorOutbox) Reserve(ops []kgmem.VectorOp) []kgmem.QueuedVectorOp {
	queued := make([]kgmem.QueuedVectorOp, len(ops))
	for i, op := range ops {
		queued[i] = kgmem.QueuedVectorOp{Seq: uint64(rand.Int64N(1<<62) + 1), VectorOp: op}
	}
	return queued
}

// ApplyJournaled implements kgmem.JournalingOutbox: it applies cs to the
// outbox's store (as Store.Apply) and creates the nodes of ops in the same
// transaction. The ops are queued here when it commits, and when its
// outcome is unknown (the drain then makes the vectors match whatever the
// graph holds).
func (o *VectorOutbox) ApplyJournaled(ctx context.Context, cs kgmem.ChangeSet, ops []kgmem.QueuedVectorOp) error {
	if err := validate(cs); err != nil {
		return fmt.Errorf("neo4j: apply: %w", err)
	}
	rows, err := opRows(ops)
	if err != nil {
		return err
	}
	w, err := encodeChangeSet(o.s.key(cs.Namespace), cs)
	if err != nil {
		return fmt.Errorf("neo4j: apply: %w", err)
	}
	err = o.s.write(ctx, func(tx neo4j.ManagedTransaction) error {
		if !cs.Empty() {
			if err := w.apply(ctx, tx, cs); err != nil {
				return err
			}
		}
		return o.journal(ctx, tx, rows)
	})
	if err == nil || errors.Is(err, kgmem.ErrUnavailable) || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		o.queue(ops)
	}
	if err != nil {
		return fmt.Errorf("neo4j: apply to %s with its vector writes journaled: %w", cs.Namespace, err)
	}
	return nil
}

// opRows are ops as query parameters, or an error naming the first invalid one.
func opRows(ops []kgmem.QueuedVectorOp) ([]map[string]any, error) {
	rows := make([]map[string]any, len(ops))
	for i, q := range ops {
		if !outbox.ValidOp(q.VectorOp) {
			return nil, fmt.Errorf("outbox add: %w", kgmem.Invalidf(fmt.Sprintf("ops[%d]", i), "%+v is not a valid vector op", q.VectorOp))
		}
		rows[i] = map[string]any{"seq": int64(q.Seq), "ns": string(q.Namespace), "kind": string(q.Kind), "id": q.ID, "op": string(q.Op)}
	}
	return rows, nil
}

// journal creates the nodes of rows in tx.
func (o *VectorOutbox) journal(ctx context.Context, tx neo4j.ManagedTransaction, rows []map[string]any) error {
	_, err := run(ctx, tx, stablePlan+`UNWIND $rows AS r
		CREATE (:`+labelVectorOp+` {scope: $scope, owner: $owner, seq: r.seq, ns: r.ns, kind: r.kind, id: r.id, op: r.op, at: timestamp()})`,
		o.params(map[string]any{"rows": rows}))
	return err
}

// queue adds ops, written to the database, to those queued here.
func (o *VectorOutbox) queue(ops []kgmem.QueuedVectorOp) {
	o.mu.Lock()
	o.pending = append(o.pending, ops...)
	o.mu.Unlock()
}

// Sync is a no-op: Add returns once its transaction is committed.
func (o *VectorOutbox) Sync(context.Context) error { return nil }

// Pending returns up to limit (0: all) of the ops queued here, oldest first.
func (o *VectorOutbox) Pending(limit int) []kgmem.QueuedVectorOp {
	o.mu.Lock()
	defer o.mu.Unlock()
	n := len(o.pending)
	if limit > 0 {
		n = min(n, limit)
	}
	return slices.Clone(o.pending[:n])
}

// Len is the number of ops queued here.
func (o *VectorOutbox) Len() int {
	o.mu.Lock()
	defer o.mu.Unlock()
	return len(o.pending)
}

// Done deletes the applied ops from the queue here at once, and from the
// database later, off the caller's path (appliedOps): with the release of
// a namespace lock this store holds, or else in the background, within
// outboxDoneLimit (Close waits for it). The caller, a request that has
// written its vectors, is not held by a stalled server past its deadline.
// Ops whose delete fails stay in the database and are applied again later,
// which is harmless; the failure is logged.
func (o *VectorOutbox) Done(seqs []uint64) error {
	if len(seqs) == 0 {
		return nil
	}
	gone := make(map[uint64]bool, len(seqs))
	for _, s := range seqs {
		gone[s] = true
	}
	var ids []int64
	o.mu.Lock()
	o.pending = slices.DeleteFunc(o.pending, func(q kgmem.QueuedVectorOp) bool {
		if gone[q.Seq] {
			ids = append(ids, int64(q.Seq))
			return true
		}
		return false
	})
	o.mu.Unlock()
	// Only ops queued here were written: the others (a write that failed
	// before its commit) have no node to delete.
	o.s.applied.add(o.s, ids, o.log)
	return nil
}

// outboxDoneLimit bounds deleting applied ops from the database.
const outboxDoneLimit = 10 * time.Second
