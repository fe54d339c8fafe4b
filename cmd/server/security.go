package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"time"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/api"
	"github.com/kgmem/kgmem/auth"
)

// adminKeyVar holds the admin key. It is read from the environment only, never
// a flag, so it does not show in the process list.
const adminKeyVar = "KGMEM_ADMIN_KEY"

// keyStoreFile is the key store's name inside the data directory.
const keyStoreFile = "keys.db"

// securityConfig is the authentication, rate-limit and timeout configuration
// of serve; each field is a row of the configuration table like the rest.
type securityConfig struct {
	AdminKey          string
	RateLimit         float64
	RateBurst         int
	ReadTimeout       time.Duration
	ReadHeaderTimeout time.Duration
	WriteTimeout      time.Duration
	IdleTimeout       time.Duration
	// AllowedHosts are the Host names a keyless server answers to besides
	// loopback ones; AllowedOrigins the browser origins trusted to send
	// unsafe cross-origin requests (api.Options).
	AllowedHosts   []string
	AllowedOrigins []string
}

// checkAllowedHosts accepts host names without scheme or port.
func checkAllowedHosts(hosts []string) error {
	if err := (api.Options{AllowedHosts: hosts}).Validate(); err != nil {
		return fmt.Errorf("--allowed-hosts: %w", err)
	}
	return nil
}

// checkAllowedOrigins accepts scheme://host[:port] origins.
func checkAllowedOrigins(origins []string) error {
	if err := (api.Options{AllowedOrigins: origins}).Validate(); err != nil {
		return fmt.Errorf("--allowed-origins: %w", err)
	}
	return nil
}

// checkAdminKey accepts no admin key, or one long enough not to be guessed.
func checkAdminKey(key string) error {
	if key != "" && len(key) < auth.MinAdminKeyLen {
		return fmt.Errorf("$%s is %d characters; use at least %d random characters (openssl rand -hex 32)", adminKeyVar, len(key), auth.MinAdminKeyLen)
	}
	return nil
}

// apply copies the limits into the API options.
func (s *securityConfig) apply(o *api.Options) {
	o.RateLimit, o.RateBurst = s.RateLimit, s.RateBurst
	o.ReadTimeout, o.ReadHeaderTimeout, o.WriteTimeout, o.IdleTimeout = s.ReadTimeout, s.ReadHeaderTimeout, s.WriteTimeout, s.IdleTimeout
	o.AllowedHosts, o.AllowedOrigins = s.AllowedHosts, s.AllowedOrigins
}

// openKeyRecords opens where cfg keeps API keys: <data-dir>/keys.db with
// the embedded graph store (whose file a running server owns); otherwise
// the graph store's records when it keeps them for every server on it
// (sharedKeyRecords), or else keys.db.
func openKeyRecords(ctx context.Context, cfg *config) (auth.KeyRecords, error) {
	if err := os.MkdirAll(cfg.DataDir, 0o700); err != nil {
		return nil, fmt.Errorf("create data directory: %w", err)
	}
	file := filepath.Join(cfg.DataDir, keyStoreFile)
	if cfg.graphInDataDir() {
		return auth.OpenKeyRecords(ctx, file)
	}
	graph, err := openGraph(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("API keys: %w", err)
	}
	return sharedKeyRecords(ctx, graph, file)
}

// sharedKeyRecords returns the key records graph keeps for every server on
// it (auth.SharedKeys, as Neo4j does), on graph's connection, which their
// Close closes, after copying in the keys of the keys.db at file that the
// data directory still holds from an embedded deployment (those graph
// lacks, by id: importing twice changes nothing). A graph store without
// shared keys is closed, and the keys are those of file.
func sharedKeyRecords(ctx context.Context, graph kgmem.GraphStore, file string) (auth.KeyRecords, error) {
	keys, ok := graph.(auth.SharedKeys)
	if !ok {
		if err := graph.Close(); err != nil {
			return nil, fmt.Errorf("close the graph store: %w", err)
		}
		return auth.OpenKeyRecords(ctx, file)
	}
	shared := sharedKeys{KeyRecords: keys.Keys(), store: graph}
	if _, err := os.Stat(file); err == nil {
		local, err := auth.OpenKeyRecords(ctx, file)
		if err == nil {
			err = importKeys(ctx, local, shared)
			err = errors.Join(err, local.Close())
		}
		if err != nil {
			_ = shared.Close()
			return nil, fmt.Errorf("copy the keys of %s into the shared key records: %w", file, err)
		}
	}
	return shared, nil
}

// sharedKeys are key records on a graph store connection of their own.
type sharedKeys struct {
	auth.KeyRecords
	store kgmem.GraphStore
}

// Close closes the connection.
func (k sharedKeys) Close() error { return k.store.Close() }

// importKeys copies into dst the keys of src it does not hold.
func importKeys(ctx context.Context, src, dst auth.KeyRecords) error {
	keys, err := src.All(ctx)
	if err != nil {
		return err
	}
	for _, k := range keys {
		if _, err := dst.Get(ctx, k.ID); !errors.Is(err, kgmem.ErrNotFound) {
			if err != nil {
				return err
			}
			continue
		}
		if err := dst.Insert(ctx, k); err != nil {
			return err
		}
		if k.RevokedAt != nil {
			if err := dst.Revoke(ctx, k.ID, *k.RevokedAt); err != nil {
				return err
			}
		}
	}
	return nil
}

// openAuth opens the key records of cfg and builds the authenticator.
func openAuth(ctx context.Context, cfg *config, adminKey string) (*auth.Authenticator, *auth.Store, error) {
	rec, err := openKeyRecords(ctx, cfg)
	if err != nil {
		return nil, nil, err
	}
	st := auth.NewStore(rec)
	a, err := auth.NewAuthenticator(adminKey, st)
	if err != nil {
		_ = st.Close()
		return nil, nil, err
	}
	return a, st, nil
}

// checkExposure is the secure default: a server with no key configured (no
// admin key, empty key store) answers anyone who reaches it, so it may only
// listen on a loopback address.
func checkExposure(ctx context.Context, a *auth.Authenticator, addr net.Addr, log *slog.Logger) error {
	on, err := a.Enabled(ctx)
	if err != nil {
		return err
	}
	if on {
		log.Info("API keys required on every route but /healthz, /readyz and /openapi.json")
		return nil
	}
	tcp, ok := addr.(*net.TCPAddr)
	if !ok || !tcp.IP.IsLoopback() {
		return fmt.Errorf("refusing to serve without authentication on %s, which is not a loopback address: set $%s or create a key with `server keys create`, or listen on 127.0.0.1 (--addr / $KGMEM_ADDR)", addr, adminKeyVar)
	}
	log.Warn("no API key configured: the API is open to anyone on this machine (loopback only); set $" + adminKeyVar + " or run `server keys create` to require keys")
	return nil
}
