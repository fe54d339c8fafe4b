package neo4j

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"net/url"
	"syscall"
	"time"

	"github.com/kgmem/kgmem"
	"github.com/neo4j/neo4j-go-driver/v5/neo4j"
)

// Retries of managed transactions. The driver's own retry loop sleeps
// through a server that refuses connections until its whole budget is spent
// (30 s by default), so every request, /readyz included, waited that long
// for its 503. The store turns the driver's retries off (one attempt per
// call) and retries here what the driver judged retryable, within the same
// budget (Config.MaxRetryTime) and with the driver's backoff, except that
// after a connection failure it dials the server once: a refused dial fails
// the call at once with kgmem.ErrUnavailable. A server that accepts the dial
// (the pooled connection had died: a restart) is retried at once, as the
// driver does, up to the pool's size; one that does not answer the dial is
// waited for with backoff. Only direct (bolt://) URIs are dialled: behind a
// neo4j:// routing URI other members may serve.

// Backoff between retries, as the driver's: 1 s doubled each time, ±20 %.
const (
	firstRetryWait = time.Second
	retryJitter    = 0.2
	// probeTimeout bounds the dial that tells a refusing server from a
	// dead connection.
	probeTimeout = time.Second
)

// probeResult is what a dial of the server found.
type probeResult int

const (
	probeSkipped probeResult = iota // not a direct URI, or the dial timed out
	probeRefused
	probeAccepted
)

// directAddr is the host:port of a direct Bolt URI, or "" for a routing URI.
func directAddr(uri string) string {
	u, err := url.Parse(uri)
	if err != nil {
		return ""
	}
	switch u.Scheme {
	case "bolt", "bolt+s", "bolt+ssc":
	default:
		return ""
	}
	port := u.Port()
	if port == "" {
		port = "7687"
	}
	return net.JoinHostPort(u.Hostname(), port)
}

// probe dials the server once.
func (s *Store) probe(ctx context.Context) probeResult {
	if s.addr == "" {
		return probeSkipped
	}
	ctx, cancel := context.WithTimeout(ctx, min(probeTimeout, s.cfg.ConnectTimeout))
	defer cancel()
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", s.addr)
	switch {
	case err == nil:
		_ = conn.Close()
		return probeAccepted
	case errors.Is(err, syscall.ECONNREFUSED):
		return probeRefused
	}
	return probeSkipped
}

// execute runs work in a managed transaction of mode, retrying as the
// package comment above says. The error is the driver's (mapErr applies).
func execute[T any](ctx context.Context, s *Store, mode neo4j.AccessMode, work neo4j.ManagedTransactionWorkT[T]) (T, error) {
	return retrying(ctx, s, mode, func(sess neo4j.SessionWithContext) (T, error) {
		if mode == neo4j.AccessModeRead {
			return neo4j.ExecuteRead(ctx, sess, work)
		}
		return neo4j.ExecuteWrite(ctx, sess, work)
	})
}

// readAutoCommit runs one read query in an auto-commit transaction, retrying as
// execute does. A managed transaction costs the server a BEGIN and a COMMIT
// around the query, each a message it schedules and answers; a single read
// query needs neither, and the searches send several per request.
func readAutoCommit(ctx context.Context, s *Store, query string, params map[string]any) ([]*neo4j.Record, error) {
	return retrying(ctx, s, neo4j.AccessModeRead, func(sess neo4j.SessionWithContext) ([]*neo4j.Record, error) {
		res, err := sess.Run(ctx, query, params)
		if err != nil {
			return nil, err
		}
		return res.Collect(ctx)
	})
}

// retrying runs attempt in one session of mode until it succeeds, fails for
// good, or the retry budget is spent (the package comment above). A
// failure is retried when it is a managed transaction's
// TransactionExecutionLimit (with no retry budget, the driver ends a
// retryable failure with one, holding the attempt's error, and returns any
// other error as it is) or, from an auto-commit query, an error the driver
// judges retryable.
func retrying[T any](ctx context.Context, s *Store, mode neo4j.AccessMode, attempt func(neo4j.SessionWithContext) (T, error)) (T, error) {
	sess := s.session(ctx, mode)
	defer func() { _ = sess.Close(ctx) }()
	var (
		start = time.Now()
		wait  = firstRetryWait
		dead  int
	)
	for {
		v, err := attempt(sess)
		if err != nil && ctx.Err() != nil {
			return v, deadlineError(ctx, err)
		}
		if err == nil {
			return v, nil
		}
		cause := retryCause(err)
		if cause == nil {
			return v, err
		}
		if time.Since(start) >= s.cfg.MaxRetryTime {
			return v, err
		}
		var server *neo4j.Neo4jError
		if !errors.As(cause, &server) { // the connection failed, not the query
			switch s.probe(ctx) {
			case probeRefused:
				return v, fmt.Errorf("%w: %s refuses connections: %w", kgmem.ErrUnavailable, s.addr, cause)
			case probeAccepted:
				if dead < s.maxDead() {
					dead++
					continue
				}
			}
		}
		pause := wait - time.Duration(float64(wait)*retryJitter) + time.Duration(rand.Float64()*2*retryJitter*float64(wait))
		pause = min(pause, s.cfg.MaxRetryTime-time.Since(start))
		t := time.NewTimer(max(pause, 0))
		select {
		case <-ctx.Done():
			t.Stop()
			return v, fmt.Errorf("%w (retrying after: %w)", ctx.Err(), cause)
		case <-t.C:
		}
		wait *= 2
	}
}

// retryCause is the error of the failed attempt that err reports when it
// is worth another attempt, or nil when err is final.
func retryCause(err error) error {
	var (
		limit *neo4j.TransactionExecutionLimit
		lost  *neo4j.ConnectivityError
	)
	switch {
	case errors.As(err, &limit):
		if len(limit.Errors) == 0 {
			return nil
		}
		return limit.Errors[len(limit.Errors)-1]
	case neo4j.IsRetryable(err):
		return err
	case errors.As(err, &lost) && neo4j.IsRetryable(lost):
		// The driver asserts the type, so a wrapped one reads as final.
		return err
	}
	return nil
}

// maxDead is how many dead pooled connections a call may meet in a row (the
// driver's rule: the pool's size).
func (s *Store) maxDead() int {
	if s.cfg.MaxConnectionPoolSize > 0 {
		return s.cfg.MaxConnectionPoolSize
	}
	return 100 // the driver's default pool size
}

// deadlineError is the error of work its context ended: the driver reports
// a deadline or a cancellation met while it waited on the server as a
// connectivity error or a cancelled read that wrap nothing, which would
// read as an outage (or an internal error) where the caller's own time ran
// out.
func deadlineError(ctx context.Context, err error) error {
	if errors.Is(err, ctx.Err()) {
		return err
	}
	return fmt.Errorf("%w: %w", ctx.Err(), err)
}
