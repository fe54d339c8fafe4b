package neo4j

import (
	"fmt"
	"strings"
	"time"

	"github.com/kgmem/kgmem"
)

// Defaults for zero Config fields.
const (
	DefaultURI                = "bolt://127.0.0.1:7687"
	DefaultMaxTraversalDepth  = 6
	DefaultMaxTraversalFanOut = 1000
	DefaultConnectTimeout     = 10 * time.Second
	DefaultMaxRetryTime       = 30 * time.Second
)

// Config says how to reach Neo4j and how far reads may go.
type Config struct {
	// URI is the Bolt address, for example "bolt://127.0.0.1:7687" or
	// "neo4j://cluster:7687" (DefaultURI when empty).
	URI string
	// Username and Password authenticate with basic auth; an empty Username
	// connects without authentication (dbms.security.auth_enabled=false).
	Username string
	Password string
	// Database is the database name; empty means the server's default.
	Database string
	// Scope isolates this store inside a database shared with other stores
	// (Community edition has a single database): records are stored under
	// the namespace "Scope:namespace" and Namespaces lists only this scope.
	// Empty means no scope. 1–64 characters of [A-Za-z0-9_.-].
	Scope string
	// MaxTraversalDepth caps NeighborhoodQuery.Depth (DefaultMaxTraversalDepth when 0).
	MaxTraversalDepth int
	// MaxTraversalFanOut caps NeighborhoodQuery.FanOut (DefaultMaxTraversalFanOut when 0).
	MaxTraversalFanOut int
	// MaxConnectionPoolSize bounds open connections (the driver's default of 100 when 0).
	MaxConnectionPoolSize int
	// ConnectTimeout bounds establishing one connection (DefaultConnectTimeout when 0).
	ConnectTimeout time.Duration
	// MaxRetryTime bounds the retries of a transaction that failed with a
	// transient error or a lost connection (DefaultMaxRetryTime when 0). A
	// server refusing connections (a direct bolt:// URI) fails at once.
	MaxRetryTime time.Duration
}

// withDefaults validates c and fills its zero fields.
func (c Config) withDefaults() (Config, error) {
	if c.URI == "" {
		c.URI = DefaultURI
	}
	if c.Scope != "" {
		// A scope is one namespace segment: no "/", and never ":" (the separator).
		if _, err := kgmem.ParseNamespace(c.Scope); err != nil || strings.Contains(c.Scope, "/") {
			return c, kgmem.Invalidf("scope", "must be 1-64 characters of [A-Za-z0-9_.-], got %q", c.Scope)
		}
	}
	for _, v := range []struct {
		field string
		n     int
	}{{"max_traversal_depth", c.MaxTraversalDepth}, {"max_traversal_fan_out", c.MaxTraversalFanOut}, {"max_connection_pool_size", c.MaxConnectionPoolSize}} {
		if v.n < 0 {
			return c, kgmem.Invalidf(v.field, "must not be negative, got %d", v.n)
		}
	}
	if c.ConnectTimeout < 0 || c.MaxRetryTime < 0 {
		return c, fmt.Errorf("%w: timeouts must not be negative", kgmem.ErrInvalid)
	}
	if c.MaxTraversalDepth == 0 {
		c.MaxTraversalDepth = DefaultMaxTraversalDepth
	}
	if c.MaxTraversalFanOut == 0 {
		c.MaxTraversalFanOut = DefaultMaxTraversalFanOut
	}
	if c.ConnectTimeout == 0 {
		c.ConnectTimeout = DefaultConnectTimeout
	}
	if c.MaxRetryTime == 0 {
		c.MaxRetryTime = DefaultMaxRetryTime
	}
	return c, nil
}
