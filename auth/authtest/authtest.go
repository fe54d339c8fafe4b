// Package authtest is the conformance suite of auth.KeyRecords. Every
// backend (the SQLite key file, graph/neo4j's shared key records) runs it
// from its own tests:
//
//	authtest.Run(t, func(t *testing.T) (auth.KeyRecords, auth.KeyRecords) { … })
//
// The opener returns two handles on the same, initially empty, records —
// two processes of one deployment — so the suite checks that what one
// writes the other reads at once.
package authtest

import (
	"context"
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/auth"
)

// Opener returns two handles on the same empty records and registers their
// cleanup with t.Cleanup.
type Opener func(t *testing.T) (auth.KeyRecords, auth.KeyRecords)

// Run runs the suite.
func Run(t *testing.T, open Opener) {
	t.Run("Records", func(t *testing.T) { testRecords(t, open) })
	t.Run("SharedByServers", func(t *testing.T) { testShared(t, open) })
}

func stored(id, name string, created time.Time, prefixes ...kgmem.Namespace) auth.StoredKey {
	return auth.StoredKey{
		Key:    auth.Key{ID: id, Name: name, Right: auth.Write, Prefixes: prefixes, CreatedAt: created},
		Digest: auth.DigestOf("kgm_secret_of_" + id),
	}
}

func testRecords(t *testing.T, open Opener) {
	ctx := context.Background()
	rec, _ := open(t)
	if n, err := rec.Count(ctx); err != nil || n != 0 {
		t.Fatalf("Count of empty records = %d, %v", n, err)
	}
	if _, err := rec.Get(ctx, "0123456789ab"); !errors.Is(err, kgmem.ErrNotFound) {
		t.Errorf("Get unknown: %v, want ErrNotFound", err)
	}
	if err := rec.Revoke(ctx, "0123456789ab", time.Now()); !errors.Is(err, kgmem.ErrNotFound) {
		t.Errorf("Revoke unknown: %v, want ErrNotFound", err)
	}
	t0 := time.Date(2026, 3, 1, 9, 30, 0, 0, time.UTC)
	newer := stored("bbbbbbbbbbbb", "ci, nightly", t0.Add(time.Hour), "acme/users", "acme/teams")
	older := stored("cccccccccccc", "Jürgen's agent", t0, "solo")
	for _, k := range []auth.StoredKey{newer, older} {
		if err := rec.Insert(ctx, k); err != nil {
			t.Fatalf("Insert %s: %v", k.ID, err)
		}
	}
	if err := rec.Insert(ctx, stored("bbbbbbbbbbbb", "again", t0)); err == nil {
		t.Error("Insert of an id already stored succeeded")
	}
	got, err := rec.Get(ctx, newer.ID)
	if err != nil || !reflect.DeepEqual(got, newer) {
		t.Errorf("Get = %+v, %v; want %+v", got, err, newer)
	}
	all, err := rec.All(ctx)
	if err != nil || len(all) != 2 || all[0].ID != older.ID || all[1].ID != newer.ID {
		t.Errorf("All = %+v, %v; want the older key first", all, err)
	}
	if n, err := rec.Count(ctx); err != nil || n != 2 {
		t.Errorf("Count = %d, %v; want 2", n, err)
	}
	first, second := t0.Add(2*time.Hour), t0.Add(3*time.Hour)
	for _, at := range []time.Time{first, second} {
		if err := rec.Revoke(ctx, older.ID, at); err != nil {
			t.Fatalf("Revoke: %v", err)
		}
	}
	got, err = rec.Get(ctx, older.ID)
	if err != nil || got.RevokedAt == nil || !got.RevokedAt.Equal(first) {
		t.Errorf("after two revocations RevokedAt = %v, %v; want the first, %v", got.RevokedAt, err, first)
	}
	if n, _ := rec.Count(ctx); n != 2 {
		t.Errorf("Count after a revocation = %d; revoked keys still count", n)
	}
}

// testShared: a key created through one handle authenticates through the
// other, and a revocation through the other takes effect on the first at
// once — what replicas of one deployment need.
func testShared(t *testing.T, open Opener) {
	ctx := context.Background()
	recA, recB := open(t)
	a, b := auth.NewStore(recA), auth.NewStore(recB)
	authnA, err := auth.NewAuthenticator("", a)
	if err != nil {
		t.Fatal(err)
	}
	authnB, err := auth.NewAuthenticator("", b)
	if err != nil {
		t.Fatal(err)
	}
	k, plain, err := a.Create(ctx, auth.CreateRequest{Name: "shared", Right: auth.Read, Prefixes: []kgmem.Namespace{"tenant"}})
	if err != nil {
		t.Fatal(err)
	}
	if on, err := authnB.Enabled(ctx); err != nil || !on {
		t.Errorf("B's authentication after a key was created through A: %v, %v; want enabled", on, err)
	}
	if p, err := authnB.Authenticate(ctx, plain); err != nil || p.KeyID != k.ID || !p.Allows("tenant/x", auth.Read) {
		t.Fatalf("B authenticates A's key: %+v, %v", p, err)
	}
	if err := b.Revoke(ctx, k.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := authnA.Authenticate(ctx, plain); !errors.Is(err, auth.ErrUnauthenticated) {
		t.Errorf("A after B revoked the key: %v, want ErrUnauthenticated", err)
	}
	keys, err := a.List(ctx)
	if err != nil || len(keys) != 1 || keys[0].RevokedAt == nil {
		t.Errorf("A lists %+v, %v; want the key, revoked", keys, err)
	}
}
