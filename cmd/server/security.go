package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strings"
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
// of serve; each field is a flag and a KGMEM_* variable like the rest.
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

// splitList parses a comma-separated list, dropping empty entries.
func splitList(s string) ([]string, error) {
	var out []string
	for _, v := range strings.Split(s, ",") {
		if v = strings.TrimSpace(v); v != "" {
			out = append(out, v)
		}
	}
	return out, nil
}

// bind registers the flags on fs; malformed environment values land in c.
func (s *securityConfig) bind(fs *flag.FlagSet, c *config) {
	if !c.ignoreEnv {
		s.AdminKey = os.Getenv(adminKeyVar)
	}
	fs.Float64Var(&s.RateLimit, "rate-limit", c.envFloat("KGMEM_RATE_LIMIT", 20), "requests per second each API key may make, 0: unlimited (the admin key and an open loopback server are never limited) ($KGMEM_RATE_LIMIT)")
	fs.IntVar(&s.RateBurst, "rate-burst", c.envInt("KGMEM_RATE_BURST", 40), "requests an API key may make at once above its rate ($KGMEM_RATE_BURST)")
	fs.DurationVar(&s.ReadTimeout, "read-timeout", c.envDuration("KGMEM_READ_TIMEOUT", 60*time.Second), "deadline for reading a whole request, body included ($KGMEM_READ_TIMEOUT)")
	fs.DurationVar(&s.ReadHeaderTimeout, "read-header-timeout", c.envDuration("KGMEM_READ_HEADER_TIMEOUT", 10*time.Second), "deadline for reading request headers ($KGMEM_READ_HEADER_TIMEOUT)")
	fs.DurationVar(&s.WriteTimeout, "write-timeout", c.envDuration("KGMEM_WRITE_TIMEOUT", 0), "deadline for writing a response (default: --request-timeout + 10s) ($KGMEM_WRITE_TIMEOUT)")
	s.AllowedHosts = envValue(c, "KGMEM_ALLOWED_HOSTS", []string(nil), splitList)
	fs.Func("allowed-hosts", "comma-separated host names a server without API keys answers to in the Host header, besides localhost, 127.0.0.0/8 and [::1] (a name you point at this machine); others get 403 ($KGMEM_ALLOWED_HOSTS)", func(v string) error {
		s.AllowedHosts, _ = splitList(v)
		return nil
	})
	s.AllowedOrigins = envValue(c, "KGMEM_ALLOWED_ORIGINS", []string(nil), splitList)
	fs.Func("allowed-origins", "comma-separated browser origins (scheme://host[:port]) trusted to send POST, PUT and DELETE from another origin; other cross-origin browser requests get 403 ($KGMEM_ALLOWED_ORIGINS)", func(v string) error {
		s.AllowedOrigins, _ = splitList(v)
		return nil
	})
	fs.DurationVar(&s.IdleTimeout, "idle-timeout", c.envDuration("KGMEM_IDLE_TIMEOUT", 120*time.Second), "how long an idle keep-alive connection stays open ($KGMEM_IDLE_TIMEOUT)")
}

// validate rejects negative limits and a weak admin key.
func (s *securityConfig) validate() error {
	if s.RateLimit < 0 || s.RateBurst < 0 {
		return fmt.Errorf("--rate-limit and --rate-burst must be >= 0")
	}
	if s.ReadTimeout < 0 || s.ReadHeaderTimeout < 0 || s.WriteTimeout < 0 || s.IdleTimeout < 0 {
		return fmt.Errorf("--read-timeout, --read-header-timeout, --write-timeout and --idle-timeout must be >= 0")
	}
	if err := (api.Options{AllowedHosts: s.AllowedHosts, AllowedOrigins: s.AllowedOrigins}).Validate(); err != nil {
		return fmt.Errorf("--allowed-hosts / --allowed-origins: %w", err)
	}
	if s.AdminKey != "" && len(s.AdminKey) < auth.MinAdminKeyLen {
		return fmt.Errorf("$%s is %d characters; use at least %d random characters (openssl rand -hex 32)", adminKeyVar, len(s.AdminKey), auth.MinAdminKeyLen)
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
