package neo4j

import (
	"context"
	crand "crypto/rand"
	"encoding/hex"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"time"

	"github.com/kgmem/kgmem"
	"github.com/neo4j/neo4j-go-driver/v5/neo4j"
)

// labelLock is the node of a namespace's write lock.
const labelLock = "KgmemLock"

// Namespace lock timing.
const (
	// DefaultLockLease is how long a write lock holds without renewal: a
	// server that dies holding one blocks the namespace's writes for at
	// most this long.
	DefaultLockLease = 15 * time.Second
	lockPollMin      = 5 * time.Millisecond
	lockPollMax      = 50 * time.Millisecond
	lockReleaseLimit = 5 * time.Second
)

// NamespaceLocks returns the write locks of this store's database (and
// scope), which every server on it shares: a lock is a lease on a
// (:KgmemLock {scope, namespace}) node, taken when free or expired and
// renewed every third of lease while held, in Neo4j's clock (timestamp()),
// so the servers' clocks do not matter. A holder that dies releases it by
// expiry after at most lease; one that cannot renew it for a whole lease
// (a pause, a partition) loses it, and then two writes may overlap — the
// bound of every lease. lease 0 means DefaultLockLease; log (nil:
// slog.Default()) reports failed renewals and releases.
func (s *Store) NamespaceLocks(lease time.Duration, log *slog.Logger) kgmem.NamespaceLocker {
	if lease <= 0 {
		lease = DefaultLockLease
	}
	if log == nil {
		log = slog.Default()
	}
	return leaseLocks{s: s, lease: lease, log: log}
}

type leaseLocks struct {
	s     *Store
	lease time.Duration
	log   *slog.Logger
}

// qTakeLock takes the lease when free or expired. Setting a property first
// takes the node's write lock, so the check below reads the state the
// previous holder committed (no two takers both see it free).
const qTakeLock = stablePlan + `MERGE (l:` + labelLock + ` {scope: $scope, namespace: $ns})
	SET l.touched = true
	WITH l, timestamp() AS now
	WITH l, now, (l.owner IS NULL OR l.expires < now) AS free
	SET l.owner = CASE WHEN free THEN $token ELSE l.owner END,
	    l.expires = CASE WHEN free THEN now + $lease ELSE l.expires END
	RETURN free`

// Lock implements kgmem.NamespaceLocker: it polls until the lease is free
// (backing off from 5 ms to 50 ms, with jitter), or ctx ends.
func (l leaseLocks) Lock(ctx context.Context, ns kgmem.Namespace) (func(), error) {
	var b [16]byte
	_, _ = crand.Read(b[:]) // crypto/rand never fails
	token := hex.EncodeToString(b[:])
	params := map[string]any{"scope": l.s.cfg.Scope, "ns": string(ns), "token": token, "lease": l.lease.Milliseconds()}
	for wait := lockPollMin; ; wait = min(2*wait, lockPollMax) {
		var free bool
		err := l.s.write(ctx, func(tx neo4j.ManagedTransaction) error {
			recs, err := run(ctx, tx, qTakeLock, params)
			if err == nil && len(recs) == 1 {
				free, _ = recs[0].Values[0].(bool)
			}
			return err
		})
		if err != nil {
			if ctx.Err() != nil {
				// The driver reports a deadline met mid-query as a
				// connectivity error; the caller's context ended.
				return nil, fmt.Errorf("neo4j: wait for the write lock of %q: %w (%v)", ns, ctx.Err(), err)
			}
			return nil, fmt.Errorf("neo4j: take the write lock of %q: %w", ns, err)
		}
		if free {
			break
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("neo4j: wait for the write lock of %q: %w", ns, ctx.Err())
		case <-time.After(wait/2 + rand.N(wait/2+1)):
		}
	}
	l.s.applied.hold()
	stop, done := make(chan struct{}), make(chan struct{})
	go l.renew(ns, params, stop, done)
	return func() {
		close(stop)
		// The release outlives the caller's deadline (the lock must not
		// wait for its lease to expire), but the caller does not: a write
		// that ran into its deadline against a stalled server would
		// otherwise hold its request up to lockReleaseLimit longer. Close
		// waits for the releases still running.
		released := make(chan struct{})
		l.s.background.Add(1)
		go func() {
			defer l.s.background.Done()
			defer close(released)
			<-done
			l.release(context.WithoutCancel(ctx), ns, params)
		}()
		select {
		case <-released:
		case <-ctx.Done():
		}
	}, nil
}

// release gives the lock of ns up, within lockReleaseLimit, and deletes
// in the same transaction the vector outbox's ops applied meanwhile
// (appliedOps), which are usually the ops of the write the lock guarded.
func (l leaseLocks) release(ctx context.Context, ns kgmem.Namespace, params map[string]any) {
	ctx, cancel := context.WithTimeout(ctx, lockReleaseLimit)
	defer cancel()
	applied := l.s.applied.take()
	err := l.s.write(ctx, func(tx neo4j.ManagedTransaction) error {
		_, err := run(ctx, tx, stablePlan+`MATCH (l:`+labelLock+` {scope: $scope, namespace: $ns}) WHERE l.owner = $token
			REMOVE l.owner, l.expires`, params)
		if err != nil || len(applied) == 0 {
			return err
		}
		return deleteApplied(ctx, tx, l.s.cfg.Scope, applied)
	})
	if err != nil {
		// The lease expires by itself; the next writer waits that long.
		l.log.Warn("releasing a namespace write lock failed; it expires by itself", "namespace", ns, "lease", l.lease, "error", err)
		l.s.applied.released(l.s, applied, l.log)
		return
	}
	l.s.applied.released(l.s, nil, l.log)
}

// renew extends the lease every third of it until stop closes.
func (l leaseLocks) renew(ns kgmem.Namespace, params map[string]any, stop <-chan struct{}, done chan<- struct{}) {
	defer close(done)
	t := time.NewTicker(l.lease / 3)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
		}
		ctx, cancel := context.WithTimeout(context.Background(), l.lease/3)
		err := l.s.write(ctx, func(tx neo4j.ManagedTransaction) error {
			_, err := run(ctx, tx, stablePlan+`MATCH (l:`+labelLock+` {scope: $scope, namespace: $ns}) WHERE l.owner = $token
				SET l.expires = timestamp() + $lease`, params)
			return err
		})
		cancel()
		if err != nil {
			l.log.Warn("renewing a namespace write lock failed; it is lost if this lasts a whole lease", "namespace", ns, "lease", l.lease, "error", err)
		}
	}
}
