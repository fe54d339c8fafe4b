package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/api"
	"github.com/kgmem/kgmem/auth"
	"github.com/kgmem/kgmem/internal/testenv"
)

func TestCheckExposure(t *testing.T) {
	ctx := context.Background()
	quiet := slog.New(slog.DiscardHandler)
	admin := strings.Repeat("a", auth.MinAdminKeyLen)
	tests := []struct {
		name     string
		ip       string
		adminKey string
		storeKey bool
		wantErr  bool
	}{
		{"open on 127.0.0.1", "127.0.0.1", "", false, false},
		{"open on ::1", "::1", "", false, false},
		{"open on 0.0.0.0", "0.0.0.0", "", false, true},
		{"open on a LAN address", "192.168.1.10", "", false, true},
		{"admin key on 0.0.0.0", "0.0.0.0", admin, false, false},
		{"stored key on 0.0.0.0", "0.0.0.0", "", true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			if tt.storeKey {
				var out bytes.Buffer
				if err := keysWith(ctx, []string{"create", "--data-dir", dir, "--name", "x", "--prefix", "acme"}, &out); err != nil {
					t.Fatal(err)
				}
			}
			a, st, err := openAuth(ctx, &config{DataDir: dir, Graph: "sqlite"}, tt.adminKey)
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			err = checkExposure(ctx, a, &net.TCPAddr{IP: net.ParseIP(tt.ip), Port: 8080}, quiet)
			if (err != nil) != tt.wantErr {
				t.Fatalf("checkExposure = %v, want error %v", err, tt.wantErr)
			}
			if err != nil && !strings.Contains(err.Error(), adminKeyVar) {
				t.Errorf("error %q does not say how to fix it", err)
			}
		})
	}
}

// TestServeRefusesOpenNonLoopback runs the real serve path: no key, a
// wildcard address, and it must not start.
func TestServeRefusesOpenNonLoopback(t *testing.T) {
	t.Setenv(adminKeyVar, "")
	err := serveWith(context.Background(), []string{"--addr", "0.0.0.0:0", "--data-dir", t.TempDir(), "--log-level", "error"})
	if err == nil || !strings.Contains(err.Error(), "refusing to serve without authentication") {
		t.Fatalf("serve on 0.0.0.0 with no key: %v, want a refusal", err)
	}
	t.Setenv(adminKeyVar, "short")
	if err := serveWith(context.Background(), []string{"--addr", "127.0.0.1:0", "--data-dir", t.TempDir()}); err == nil || !strings.Contains(err.Error(), adminKeyVar) {
		t.Fatalf("a short admin key: %v, want a refusal naming %s", err, adminKeyVar)
	}
}

func TestKeysCommand(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	var out bytes.Buffer
	if err := keysWith(ctx, []string{"create", "--data-dir", dir, "--name", "assistant", "--prefix", "acme,beta/x", "--right", "read", "--json"}, &out); err != nil {
		t.Fatal(err)
	}
	var created struct {
		ID       string   `json:"id"`
		Key      string   `json:"key"`
		Right    string   `json:"right"`
		Prefixes []string `json:"prefixes"`
	}
	if err := json.Unmarshal(out.Bytes(), &created); err != nil {
		t.Fatalf("create output %q: %v", out.String(), err)
	}
	if id, err := auth.ParseKey(created.Key); err != nil || id != created.ID || created.Right != "read" || len(created.Prefixes) != 2 {
		t.Fatalf("created %+v (%v)", created, err)
	}
	out.Reset()
	if err := keysWith(ctx, []string{"list", "--data-dir", dir}, &out); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), created.ID) || strings.Contains(out.String(), created.Key) {
		t.Fatalf("list %q: want the id and never the key", out.String())
	}
	if err := keysWith(ctx, []string{"revoke", "--data-dir", dir, created.ID}, io.Discard); err != nil {
		t.Fatal(err)
	}
	st, err := auth.OpenStore(ctx, filepath.Join(dir, keyStoreFile))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	a, _ := auth.NewAuthenticator("", st)
	if _, err := a.Authenticate(ctx, created.Key); err == nil {
		t.Fatal("a revoked key still authenticates")
	}
	bad := [][]string{
		{},
		{"create", "--data-dir", dir, "--name", "x"},
		{"create", "--data-dir", dir, "--name", "x", "--prefix", "a", "--right", "admin"},
		{"create", "--data-dir", dir, "--prefix", "a"},
		{"revoke", "--data-dir", dir},
		{"revoke", "--data-dir", dir, "0123456789ab"},
		{"rotate"},
	}
	for _, args := range bad {
		if err := keysWith(ctx, args, io.Discard); err == nil {
			t.Errorf("keys %q succeeded, want an error", args)
		}
	}
}

// TestKeysSharedThroughNeo4j: with --graph neo4j the keys live in Neo4j, so
// servers with different data directories (replicas) share them: a key
// created through one works on the other, a revocation through the other
// holds on the first at its next request; the keys of an embedded
// deployment's keys.db are copied in, revocations included. (The test's
// keys stay in Neo4j under a scope of their own, which no server uses.)
func TestKeysSharedThroughNeo4j(t *testing.T) {
	uri := testenv.Neo4jURI(t)
	ctx := t.Context()
	scope := "keys" + strings.ReplaceAll(kgmem.NewID(""), "_", "")
	cfg := func(dir string) *config {
		return &config{DataDir: dir, Graph: "neo4j", Neo4jURI: uri, Neo4jScope: scope}
	}
	flags := func(dir string) []string {
		return []string{"--data-dir", dir, "--graph", "neo4j", "--neo4j-uri", uri, "--neo4j-scope", scope}
	}
	// create runs `keys create` with flags and returns the key's id and secret.
	create := func(flags ...string) (created struct{ ID, Key string }) {
		t.Helper()
		var out bytes.Buffer
		if err := keysWith(ctx, append([]string{"create", "--name", "agent", "--prefix", "acme", "--json"}, flags...), &out); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(out.Bytes(), &created); err != nil {
			t.Fatal(err)
		}
		return created
	}
	dirA, dirB := t.TempDir(), t.TempDir()
	created := create(flags(dirA)...)
	authA, stA, err := openAuth(ctx, cfg(dirA), "")
	if err != nil {
		t.Fatal(err)
	}
	defer stA.Close()
	authB, stB, err := openAuth(ctx, cfg(dirB), "")
	if err != nil {
		t.Fatal(err)
	}
	defer stB.Close()
	if p, err := authB.Authenticate(ctx, created.Key); err != nil || p.KeyID != created.ID {
		t.Fatalf("B authenticates the key created through A: %+v, %v", p, err)
	}
	if err := keysWith(ctx, append(append([]string{"revoke"}, flags(dirB)...), created.ID), io.Discard); err != nil {
		t.Fatal(err)
	}
	if _, err := authA.Authenticate(ctx, created.Key); !errors.Is(err, auth.ErrUnauthenticated) {
		t.Errorf("A after the revocation through B: %v, want ErrUnauthenticated", err)
	}

	// An embedded deployment's keys.db moves in with its revocations.
	dirC := t.TempDir()
	old := create("--data-dir", dirC, "--graph", "sqlite")
	for range 2 { // importing twice changes nothing
		authC, stC, err := openAuth(ctx, cfg(dirC), "")
		if err != nil {
			t.Fatal(err)
		}
		if p, err := authC.Authenticate(ctx, old.Key); err != nil || p.KeyID != old.ID {
			t.Errorf("the keys.db key on Neo4j: %+v, %v", p, err)
		}
		_ = stC.Close()
	}
	if p, err := authA.Authenticate(ctx, old.Key); err != nil || p.KeyID != old.ID {
		t.Errorf("the imported key through A: %+v, %v", p, err)
	}
	listed, err := stA.List(ctx)
	if err != nil || len(listed) != 2 {
		t.Errorf("keys in the scope: %+v, %v; want the two keys once each", listed, err)
	}
}

// TestAllowedHostsAndOrigins: --allowed-hosts and --allowed-origins (and
// their KGMEM_* variables, the flag winning) reach the API options, and a
// malformed entry stops the server at start.
func TestAllowedHostsAndOrigins(t *testing.T) {
	tests := []struct {
		name                 string
		env                  map[string]string
		args                 []string
		wantHosts, wantOrigs []string
		wantErr              bool
	}{
		{name: "none"},
		{name: "environment", env: map[string]string{"KGMEM_ALLOWED_HOSTS": "kgmem.internal, box.lan", "KGMEM_ALLOWED_ORIGINS": "http://localhost:5173"},
			wantHosts: []string{"kgmem.internal", "box.lan"}, wantOrigs: []string{"http://localhost:5173"}},
		{name: "flags win", env: map[string]string{"KGMEM_ALLOWED_HOSTS": "a.lan"}, args: []string{"--allowed-hosts", "b.lan,", "--allowed-origins", "https://app.example"},
			wantHosts: []string{"b.lan"}, wantOrigs: []string{"https://app.example"}},
		{name: "a host with a scheme", args: []string{"--allowed-hosts", "http://a.lan"}, wantErr: true},
		{name: "an origin with a path", args: []string{"--allowed-origins", "http://a.lan/app"}, wantErr: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for _, k := range []string{"KGMEM_ALLOWED_HOSTS", "KGMEM_ALLOWED_ORIGINS"} {
				t.Setenv(k, tc.env[k])
			}
			cfg, err := parseConfig(cmdServe, tc.args...)
			if (err != nil) != tc.wantErr {
				t.Fatalf("validate: %v, want error %v", err, tc.wantErr)
			}
			if tc.wantErr {
				return
			}
			var o api.Options
			cfg.Security.apply(&o)
			if !slices.Equal(o.AllowedHosts, tc.wantHosts) || !slices.Equal(o.AllowedOrigins, tc.wantOrigs) {
				t.Errorf("hosts %q origins %q, want %q %q", o.AllowedHosts, o.AllowedOrigins, tc.wantHosts, tc.wantOrigs)
			}
		})
	}
}
