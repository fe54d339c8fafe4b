package neo4j

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/graph/topology"
	"github.com/kgmem/kgmem/internal/nscache"
	"github.com/neo4j/neo4j-go-driver/v5/neo4j"
	"github.com/neo4j/neo4j-go-driver/v5/neo4j/config"
)

// Store is a kgmem.GraphStore on Neo4j. It is safe for concurrent use.
type Store struct {
	driver neo4j.DriverWithContext
	cfg    Config
	// addr is the server's host:port for a direct URI, dialled to tell a
	// refusing server from a dead connection (retry.go); "" for routing.
	addr string
	// topo caches namespaces' topologies for FactsOnly walks (topology.go).
	topo *nscache.Cache[*topology.Topology]
	// background counts the lock releases and outbox deletes still
	// running after their caller returned; Close waits for them.
	background sync.WaitGroup
	// applied holds the vector outbox's applied ops whose nodes are still
	// to be deleted (applied.go).
	applied appliedOps
	// settings holds namespaces' settings for settingsMaxAge
	// (settingscache.go).
	settings settingsCache
	// writes counts the write transactions run (tests read it).
	writes atomic.Int64
}

var _ kgmem.GraphStore = (*Store)(nil)

// Open connects to Neo4j, verifies connectivity and creates or migrates the
// schema (constraints, indexes, full-text indexes), which is idempotent.
// An unreachable server is an error wrapping kgmem.ErrUnavailable.
func Open(ctx context.Context, cfg Config) (*Store, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, fmt.Errorf("neo4j: open: %w", err)
	}
	auth := neo4j.NoAuth()
	if cfg.Username != "" {
		auth = neo4j.BasicAuth(cfg.Username, cfg.Password, "")
	}
	driver, err := neo4j.NewDriverWithContext(cfg.URI, auth, func(c *config.Config) {
		c.SocketConnectTimeout = cfg.ConnectTimeout
		// One attempt per call: execute (retry.go) retries, failing fast
		// on a refused connection.
		c.MaxTransactionRetryTime = 0
		if cfg.MaxConnectionPoolSize > 0 {
			c.MaxConnectionPoolSize = cfg.MaxConnectionPoolSize
		}
	})
	if err != nil {
		return nil, fmt.Errorf("neo4j: open %s: %w: %w", cfg.URI, kgmem.ErrInvalid, err)
	}
	s := &Store{driver: driver, cfg: cfg, addr: directAddr(cfg.URI), topo: topology.NewCache()}
	if err := driver.VerifyConnectivity(ctx); err != nil {
		_ = driver.Close(ctx)
		return nil, fmt.Errorf("neo4j: open %s: %w", cfg.URI, mapErr(err))
	}
	if err := s.migrate(ctx); err != nil {
		_ = driver.Close(ctx)
		return nil, fmt.Errorf("neo4j: open %s: %w", cfg.URI, err)
	}
	return s, nil
}

// Ping checks that the server answers a query.
func (s *Store) Ping(ctx context.Context) error {
	if _, err := s.read(ctx, "RETURN 1", nil); err != nil {
		return fmt.Errorf("neo4j: ping: %w", err)
	}
	return nil
}

// Close waits for the namespace lock releases still running, then releases
// the driver's connections.
func (s *Store) Close() error {
	s.background.Wait()
	if err := s.driver.Close(context.Background()); err != nil {
		return fmt.Errorf("neo4j: close: %w", mapErr(err))
	}
	return nil
}

// key is the stored namespace of ns: ns itself, or "Scope:ns".
func (s *Store) key(ns kgmem.Namespace) string {
	if s.cfg.Scope == "" {
		return string(ns)
	}
	return s.cfg.Scope + ":" + string(ns)
}

// unkey is the inverse of key; ok is false for a stored namespace outside
// this store's scope.
func (s *Store) unkey(stored string) (kgmem.Namespace, bool) {
	if s.cfg.Scope == "" {
		return kgmem.Namespace(stored), !strings.Contains(stored, ":")
	}
	rest, ok := strings.CutPrefix(stored, s.cfg.Scope+":")
	return kgmem.Namespace(rest), ok
}

// checkNamespace validates ns for a read or write.
func checkNamespace(ns kgmem.Namespace) error {
	_, err := kgmem.ParseNamespace(string(ns))
	return err
}

// session opens a session on the configured database.
func (s *Store) session(ctx context.Context, mode neo4j.AccessMode) neo4j.SessionWithContext {
	return s.driver.NewSession(ctx, neo4j.SessionConfig{DatabaseName: s.cfg.Database, AccessMode: mode})
}

// read runs one read query in an auto-commit transaction and returns its
// records.
func (s *Store) read(ctx context.Context, query string, params map[string]any) ([]*neo4j.Record, error) {
	recs, err := readAutoCommit(ctx, s, query, params)
	if err != nil {
		return nil, mapErr(err)
	}
	return recs, nil
}

// write runs fn in one managed write transaction, retried on transient
// errors (execute), so fn must not have effects outside the transaction.
func (s *Store) write(ctx context.Context, fn func(tx neo4j.ManagedTransaction) error) error {
	s.writes.Add(1)
	_, err := execute(ctx, s, neo4j.AccessModeWrite, func(tx neo4j.ManagedTransaction) (struct{}, error) {
		return struct{}{}, fn(tx)
	})
	if err != nil {
		return mapErr(err)
	}
	return nil
}

// run runs one query inside tx and returns its records.
func run(ctx context.Context, tx neo4j.ManagedTransaction, query string, params map[string]any) ([]*neo4j.Record, error) {
	res, err := tx.Run(ctx, query, params)
	if err != nil {
		return nil, err
	}
	return res.Collect(ctx)
}

// autoCommit runs one query in an implicit transaction, as CALL { } IN
// TRANSACTIONS requires.
func (s *Store) autoCommit(ctx context.Context, query string, params map[string]any) error {
	sess := s.session(ctx, neo4j.AccessModeWrite)
	defer func() { _ = sess.Close(ctx) }()
	res, err := sess.Run(ctx, query, params)
	if err != nil {
		return mapErr(err)
	}
	if _, err := res.Consume(ctx); err != nil {
		return mapErr(err)
	}
	return nil
}

// mapErr marks errors that mean "the server cannot be reached or cannot
// serve right now" with kgmem.ErrUnavailable; the store's own kinds pass.
func mapErr(err error) error {
	if err == nil {
		return nil
	}
	for _, kind := range []error{kgmem.ErrInvalid, kgmem.ErrNotFound, kgmem.ErrConflict, kgmem.ErrUnavailable, context.Canceled, context.DeadlineExceeded} {
		if errors.Is(err, kind) {
			return err
		}
	}
	// The driver's IsConnectivityError and IsTransactionExecutionLimit do
	// not look through wrapping, and a connection lost inside a transaction
	// function comes back wrapped by the query that met it.
	var lost *neo4j.ConnectivityError
	var limit *neo4j.TransactionExecutionLimit
	if errors.As(err, &lost) || errors.As(err, &limit) {
		return fmt.Errorf("%w: %w", kgmem.ErrUnavailable, err)
	}
	var nerr *neo4j.Neo4jError
	if errors.As(err, &nerr) {
		switch {
		case strings.HasPrefix(nerr.Code, "Neo.TransientError."),
			nerr.Code == "Neo.ClientError.Database.DatabaseNotFound",
			strings.HasPrefix(nerr.Code, "Neo.ClientError.Security."):
			return fmt.Errorf("%w: %w", kgmem.ErrUnavailable, err)
		}
	}
	var uerr *neo4j.UsageError
	if errors.As(err, &uerr) && strings.Contains(uerr.Message, "closed") {
		return fmt.Errorf("%w: %w", kgmem.ErrUnavailable, err)
	}
	return err
}
