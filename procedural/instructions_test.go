package procedural_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/api"
	"github.com/kgmem/kgmem/client"
	"github.com/kgmem/kgmem/embed"
	"github.com/kgmem/kgmem/graph/sqlite"
	"github.com/kgmem/kgmem/internal/apitest"
	"github.com/kgmem/kgmem/memory"
	"github.com/kgmem/kgmem/procedural"
	"github.com/kgmem/kgmem/vector/hnsw"
)

// engineStore returns a store on a real engine (SQLite + HNSW).
func engineStore(t *testing.T) procedural.Store {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	g, err := sqlite.Open(ctx, filepath.Join(dir, "graph.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = g.Close() })
	emb := embed.NewHashing(64)
	v, err := hnsw.Open(ctx, filepath.Join(dir, "vectors.db"), emb.Dimension(), hnsw.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = v.Close() })
	e, err := memory.New(memory.Config{Graph: g, Vectors: v, Embedder: emb})
	if err != nil {
		t.Fatal(err)
	}
	return procedural.EngineStore(e)
}

// clientStore returns a store on the complete REST API through the Go client.
func clientStore(t *testing.T) procedural.Store {
	t.Helper()
	srv, closeAPI, err := apitest.New(t.TempDir(), api.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(closeAPI)
	c, err := client.New("http://kgmem.in-process", client.WithHandler(srv.InProcess()))
	if err != nil {
		t.Fatal(err)
	}
	return procedural.ClientStore(c)
}

// keyLayout is a version's item key: the write's time to the nanosecond,
// then 12 random hex digits.
var keyLayout = regexp.MustCompile(`^\d{8}T\d{6}\.\d{9}Z-[0-9a-f]{12}$`)

var stores = []struct {
	name string
	open func(*testing.T) procedural.Store
}{{"engine", engineStore}, {"client", clientStore}}

func open(t *testing.T, s procedural.Store, ns kgmem.Namespace, name string) *procedural.Instructions {
	t.Helper()
	in, err := procedural.Open(s, ns, name)
	if err != nil {
		t.Fatal(err)
	}
	return in
}

func prompts(t *testing.T, in *procedural.Instructions) []string {
	t.Helper()
	vs, err := in.Versions(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	out := make([]string, 0, len(vs))
	for i, v := range vs {
		if v.Number != i+1 {
			t.Fatalf("version %d is numbered %d", i+1, v.Number)
		}
		out = append(out, v.Prompt)
	}
	return out
}

// TestHistoryAndRestore updates instructions twice, reads each version and
// restores the first: every version is kept, the restore is a new version.
func TestHistoryAndRestore(t *testing.T) {
	for _, st := range stores {
		t.Run(st.name, func(t *testing.T) {
			ctx := context.Background()
			s := st.open(t)
			in := open(t, s, "acme/agents/support", "")
			if in.Name != procedural.DefaultName || in.Namespace != "acme/agents/support/instructions/agent" {
				t.Fatalf("opened %q in %q", in.Name, in.Namespace)
			}
			if _, err := in.Current(ctx); !errors.Is(err, procedural.ErrNoInstructions) || !errors.Is(err, kgmem.ErrNotFound) {
				t.Fatalf("current of new instructions: %v, want ErrNoInstructions", err)
			}
			v1, err := in.Update(ctx, "Answer briefly.", "first")
			if err != nil {
				t.Fatal(err)
			}
			v2, err := in.Update(ctx, "Answer briefly. Always cite the order number.", "feedback: missing order numbers")
			if err != nil {
				t.Fatal(err)
			}
			if v1.Number != 1 || v2.Number != 2 || v2.Note != "feedback: missing order numbers" {
				t.Fatalf("updates: %+v, %+v", v1, v2)
			}
			// The key layout the Python package (kgmem.instructions) shares.
			if !keyLayout.MatchString(v1.Key) {
				t.Fatalf("version key %q does not match %s", v1.Key, keyLayout)
			}
			got, err := in.Version(ctx, 1)
			if err != nil || got.Prompt != "Answer briefly." || got.Note != "first" {
				t.Fatalf("version 1: %+v, %v", got, err)
			}
			v3, err := in.Restore(ctx, 1, "")
			if err != nil {
				t.Fatal(err)
			}
			if v3.Number != 3 || v3.Prompt != v1.Prompt || v3.RestoredFrom != 1 || v3.Note != "restored version 1" {
				t.Fatalf("restore: %+v", v3)
			}
			cur, err := in.Current(ctx)
			if err != nil || cur.Key != v3.Key {
				t.Fatalf("current after restore: %+v, %v", cur, err)
			}
			want := []string{"Answer briefly.", "Answer briefly. Always cite the order number.", "Answer briefly."}
			if got := prompts(t, in); strings.Join(got, "|") != strings.Join(want, "|") {
				t.Fatalf("history %q, want %q", got, want)
			}
			// Other instructions of the namespace keep their own history.
			other := open(t, s, "acme/agents/support", "triage")
			if _, err := other.Update(ctx, "Route billing questions to finance.", ""); err != nil {
				t.Fatal(err)
			}
			if n := len(prompts(t, in)); n != 3 {
				t.Fatalf("agent has %d versions after an update of triage, want 3", n)
			}
		})
	}
}

// TestBadInput checks each client mistake is an error naming its field
// that writes nothing.
func TestBadInput(t *testing.T) {
	ctx := context.Background()
	for _, st := range stores {
		t.Run(st.name, func(t *testing.T) {
			s := st.open(t)
			in := open(t, s, "acme/agents/a", "")
			if _, err := in.Update(ctx, "Be kind.", ""); err != nil {
				t.Fatal(err)
			}
			tests := []struct {
				name, field string
				kind        error
				do          func() error
			}{
				{"bad name", "name", kgmem.ErrInvalid, func() error { _, err := procedural.Open(s, "acme/agents/a", "a/b"); return err }},
				{"bad namespace", "namespace", kgmem.ErrInvalid, func() error { _, err := procedural.Open(s, "../x", ""); return err }},
				{"too deep", "namespace", kgmem.ErrInvalid, func() error { _, err := procedural.Open(s, "a/b/c/d/e/f/g", ""); return err }},
				{"empty prompt", "prompt", kgmem.ErrInvalid, func() error { _, err := in.Update(ctx, "  ", ""); return err }},
				{"long prompt", "prompt", kgmem.ErrInvalid, func() error {
					_, err := in.Update(ctx, strings.Repeat("x", procedural.MaxPromptBytes+1), "")
					return err
				}},
				{"NUL in prompt", "prompt", kgmem.ErrInvalid, func() error { _, err := in.Update(ctx, "a\x00b", ""); return err }},
				{"long note", "note", kgmem.ErrInvalid, func() error {
					_, err := in.Update(ctx, "ok", strings.Repeat("n", procedural.MaxNoteBytes+1))
					return err
				}},
				{"restore 0", "version", kgmem.ErrInvalid, func() error { _, err := in.Restore(ctx, 0, ""); return err }},
				{"restore missing", "version", kgmem.ErrNotFound, func() error { _, err := in.Restore(ctx, 9, ""); return err }},
				{"read negative", "version", kgmem.ErrInvalid, func() error { _, err := in.Version(ctx, -1); return err }},
				{"read missing", "version", kgmem.ErrNotFound, func() error { _, err := in.Version(ctx, 2); return err }},
				{"restore with no version", "version", kgmem.ErrNotFound, func() error {
					_, err := open(t, s, "acme/agents/a", "empty").Restore(ctx, 1, "")
					return err
				}},
			}
			for _, tc := range tests {
				err := tc.do()
				var fe *kgmem.FieldError
				if !errors.As(err, &fe) || fe.Field != tc.field || !errors.Is(err, tc.kind) {
					t.Errorf("%s: %v, want a %v error naming %q", tc.name, err, tc.kind, tc.field)
				}
			}
			if got := prompts(t, in); len(got) != 1 || got[0] != "Be kind." {
				t.Fatalf("bad input changed the history: %q", got)
			}
		})
	}
}

// TestConcurrentUpdatesKeepEveryVersion updates one agent's instructions
// from many goroutines at once: no update overwrites another's version.
func TestConcurrentUpdatesKeepEveryVersion(t *testing.T) {
	ctx := context.Background()
	in := open(t, engineStore(t), "acme/agents/busy", "")
	const n = 12
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Go(func() {
			_, err := in.Update(ctx, fmt.Sprintf("rule %d", i), "")
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	seen := map[string]bool{}
	for _, p := range prompts(t, in) {
		seen[p] = true
	}
	if len(seen) != n {
		t.Fatalf("%d distinct versions kept of %d concurrent updates", len(seen), n)
	}
}

// TestManyVersions reads a history longer than one listing page.
func TestManyVersions(t *testing.T) {
	ctx := context.Background()
	in := open(t, engineStore(t), "acme/agents/long", "")
	const n = 130
	for i := range n {
		if _, err := in.Update(ctx, fmt.Sprintf("rule %d", i), ""); err != nil {
			t.Fatal(err)
		}
	}
	got := prompts(t, in)
	if len(got) != n {
		t.Fatalf("%d versions, want %d", len(got), n)
	}
	for i, p := range got {
		if p != fmt.Sprintf("rule %d", i) {
			t.Fatalf("version %d is %q, want rule %d", i+1, p, i)
		}
	}
}
