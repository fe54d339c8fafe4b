package auth_test

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/auth"
)

func TestCovers(t *testing.T) {
	tests := []struct {
		prefix, ns string
		want       bool
	}{
		{"acme", "acme", true},
		{"acme", "acme/users/u42", true},
		{"acme", "acmex", false},
		{"acme", "acmex/users", false},
		{"acme/users", "acme", false},
		{"acme/users", "acme/users/u1", true},
		{"acme/users", "acme/usersx/u1", false},
		{"", "acme", false},
	}
	for _, tt := range tests {
		if got := auth.Covers(kgmem.Namespace(tt.prefix), kgmem.Namespace(tt.ns)); got != tt.want {
			t.Errorf("Covers(%q, %q) = %v, want %v", tt.prefix, tt.ns, got, tt.want)
		}
	}
}

func TestPrincipalAllows(t *testing.T) {
	reader := auth.Principal{KeyID: "r", Right: auth.Read, Prefixes: []kgmem.Namespace{"acme", "beta/x"}}
	writer := auth.Principal{KeyID: "w", Right: auth.Write, Prefixes: []kgmem.Namespace{"acme"}}
	admin := auth.Principal{KeyID: auth.AdminID, Right: auth.Admin}
	tests := []struct {
		p    auth.Principal
		ns   string
		want auth.Right
		ok   bool
	}{
		{reader, "acme/u1", auth.Read, true},
		{reader, "acme/u1", auth.Write, false},
		{reader, "beta/x/y", auth.Read, true},
		{reader, "beta", auth.Read, false},
		{writer, "acme", auth.Read, true},
		{writer, "acme", auth.Write, true},
		{writer, "acme", auth.Admin, false},
		{writer, "other", auth.Read, false},
		{admin, "anything/at/all", auth.Admin, true},
		{auth.Principal{Right: "bogus", Prefixes: []kgmem.Namespace{"acme"}}, "acme", auth.Read, false},
		{writer, "acme", "", false},
	}
	for _, tt := range tests {
		if got := tt.p.Allows(kgmem.Namespace(tt.ns), tt.want); got != tt.ok {
			t.Errorf("%s Allows(%q, %s) = %v, want %v", tt.p.KeyID, tt.ns, tt.want, got, tt.ok)
		}
	}
}

func TestParseKey(t *testing.T) {
	ctx := context.Background()
	st := openStore(t)
	k, plain, err := st.Create(ctx, auth.CreateRequest{Name: "bot", Right: auth.Read, Prefixes: []kgmem.Namespace{"acme"}})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(plain, auth.KeyPrefix) {
		t.Fatalf("key %q lacks the %q prefix", plain, auth.KeyPrefix)
	}
	id, err := auth.ParseKey(plain)
	if err != nil || id != k.ID {
		t.Fatalf("ParseKey(new key) = %q, %v; want %q", id, err, k.ID)
	}
	bad := []string{
		"", "kgm_", "kgm_abc", "sk-" + plain[4:], "kgm_" + k.ID, "kgm_" + k.ID + "_short",
		"kgm_" + strings.ToUpper(k.ID) + plain[len("kgm_")+12:],
		plain + "a", strings.ToUpper(plain[:4]) + plain[4:], plain[:len(plain)-1] + "1",
	}
	for _, s := range bad {
		if _, err := auth.ParseKey(s); !errors.Is(err, kgmem.ErrInvalid) {
			t.Errorf("ParseKey(%q) = %v, want ErrInvalid", s, err)
		}
		if _, err := auth.ParseKey(s); err != nil && s != "" && strings.Contains(err.Error(), s) {
			t.Errorf("ParseKey error %q echoes the key", err)
		}
	}
}

func openStore(t *testing.T) *auth.Store {
	t.Helper()
	st, err := auth.OpenStore(context.Background(), filepath.Join(t.TempDir(), "keys.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	return st
}

func TestStoreAndAuthenticate(t *testing.T) {
	ctx := context.Background()
	st := openStore(t)
	a, err := auth.NewAuthenticator("", st)
	if err != nil {
		t.Fatal(err)
	}
	if on, err := a.Enabled(ctx); err != nil || on {
		t.Fatalf("empty store: Enabled = %v, %v; want false", on, err)
	}
	k, plain, err := st.Create(ctx, auth.CreateRequest{Name: "assistant", Right: auth.Write, Prefixes: []kgmem.Namespace{"acme", "beta"}})
	if err != nil {
		t.Fatal(err)
	}
	if on, _ := a.Enabled(ctx); !on {
		t.Fatal("a store with a key must enable authentication")
	}
	p, err := a.Authenticate(ctx, plain)
	if err != nil {
		t.Fatal(err)
	}
	if p.KeyID != k.ID || p.Right != auth.Write || len(p.Prefixes) != 2 || p.Prefixes[1] != "beta" || p.Name != "assistant" {
		t.Fatalf("principal %+v", p)
	}
	// Wrong secret with a real id, garbage, empty: all unauthenticated.
	forged := plain[:len(plain)-1] + map[bool]string{true: "b", false: "a"}[plain[len(plain)-1] == 'a']
	for _, s := range []string{forged, "nonsense", ""} {
		if _, err := a.Authenticate(ctx, s); !errors.Is(err, auth.ErrUnauthenticated) {
			t.Errorf("Authenticate(%q) = %v, want ErrUnauthenticated", s, err)
		}
	}
	// Revocation applies at once; the store stays closed afterwards.
	if err := st.Revoke(ctx, k.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Authenticate(ctx, plain); !errors.Is(err, auth.ErrUnauthenticated) {
		t.Fatalf("revoked key: %v, want ErrUnauthenticated", err)
	}
	fresh, _ := auth.NewAuthenticator("", st)
	if on, _ := fresh.Enabled(ctx); !on {
		t.Fatal("a store whose keys are all revoked must keep authentication on")
	}
	if err := st.Revoke(ctx, "0123456789ab"); !errors.Is(err, kgmem.ErrNotFound) {
		t.Errorf("revoke unknown: %v, want ErrNotFound", err)
	}
	if err := st.Revoke(ctx, "x"); !errors.Is(err, kgmem.ErrInvalid) {
		t.Errorf("revoke malformed id: %v, want ErrInvalid", err)
	}
	keys, err := st.List(ctx)
	if err != nil || len(keys) != 1 || keys[0].RevokedAt == nil || keys[0].ID != k.ID {
		t.Fatalf("List = %+v, %v", keys, err)
	}
}

func TestCreateRejects(t *testing.T) {
	st := openStore(t)
	tests := []struct {
		name  string
		req   auth.CreateRequest
		field string
	}{
		{"no name", auth.CreateRequest{Right: auth.Read, Prefixes: []kgmem.Namespace{"a"}}, "name"},
		{"admin right", auth.CreateRequest{Name: "x", Right: auth.Admin, Prefixes: []kgmem.Namespace{"a"}}, "right"},
		{"no prefixes", auth.CreateRequest{Name: "x", Right: auth.Read}, "prefixes"},
		{"bad prefix", auth.CreateRequest{Name: "x", Right: auth.Read, Prefixes: []kgmem.Namespace{"a//b"}}, "namespace"},
	}
	for _, tt := range tests {
		_, _, err := st.Create(context.Background(), tt.req)
		var fe *kgmem.FieldError
		if !errors.As(err, &fe) || fe.Field != tt.field {
			t.Errorf("%s: %v, want a FieldError on %q", tt.name, err, tt.field)
		}
	}
	if n, _ := st.Count(context.Background()); n != 0 {
		t.Errorf("rejected creates stored %d keys", n)
	}
}

func TestAdminKey(t *testing.T) {
	ctx := context.Background()
	if _, err := auth.NewAuthenticator("short", nil); err == nil {
		t.Fatal("a short admin key must be refused")
	}
	admin := strings.Repeat("k", auth.MinAdminKeyLen)
	a, err := auth.NewAuthenticator(admin, nil)
	if err != nil {
		t.Fatal(err)
	}
	if on, _ := a.Enabled(ctx); !on {
		t.Fatal("an admin key enables authentication")
	}
	p, err := a.Authenticate(ctx, admin)
	if err != nil || !p.IsAdmin() || !p.Allows("any/ns", auth.Admin) {
		t.Fatalf("admin principal %+v, %v", p, err)
	}
	if _, err := a.Authenticate(ctx, admin+"x"); !errors.Is(err, auth.ErrUnauthenticated) {
		t.Fatalf("near-miss admin key: %v", err)
	}
}

func TestParsePrefixes(t *testing.T) {
	got, err := auth.ParsePrefixes("acme, beta/x")
	if err != nil || len(got) != 2 || got[0] != "acme" || got[1] != "beta/x" {
		t.Fatalf("ParsePrefixes = %v, %v", got, err)
	}
	for _, s := range []string{"", "acme,", "a/../b"} {
		if _, err := auth.ParsePrefixes(s); !errors.Is(err, kgmem.ErrInvalid) {
			t.Errorf("ParsePrefixes(%q) = %v, want ErrInvalid", s, err)
		}
	}
	if r, err := auth.ParseRight("write"); err != nil || r != auth.Write {
		t.Errorf("ParseRight(write) = %v, %v", r, err)
	}
	if _, err := auth.ParseRight("admin"); !errors.Is(err, kgmem.ErrInvalid) {
		t.Errorf("ParseRight(admin) = %v, want ErrInvalid", err)
	}
}
