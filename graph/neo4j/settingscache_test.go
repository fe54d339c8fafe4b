package neo4j

import (
	"strings"
	"testing"
	"time"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/internal/polltest"
	"github.com/kgmem/kgmem/internal/testenv"
)

// TestSettingsCache: settings read are held for settingsMaxAge, and never
// kept when a change of their namespace began or ended while they were
// read, nor served while one runs.
func TestSettingsCache(t *testing.T) {
	var c settingsCache
	_, ok, gen := c.get("a")
	if ok {
		t.Fatal("an empty cache held settings")
	}
	c.put("a", `{"search_recipe":"keyword"}`, gen, time.Now())
	if got, ok, _ := c.get("a"); !ok || got != `{"search_recipe":"keyword"}` {
		t.Fatalf("fresh settings: %q, %v", got, ok)
	}
	c.put("old", "{}", gen, time.Now().Add(-settingsMaxAge))
	if _, ok, _ := c.get("old"); ok {
		t.Fatal("settings read settingsMaxAge ago were served")
	}

	// A read that a change overtook keeps nothing.
	_, _, gen = c.get("b")
	done := c.change("b")
	if _, ok, _ := c.get("a"); !ok {
		t.Fatal("a change of b dropped a's settings")
	}
	c.put("b", "{}", gen, time.Now())
	if _, ok, _ := c.get("b"); ok {
		t.Fatal("a read that began before a change was kept")
	}
	// Nor is a read during the change, or one that began during it.
	_, _, gen = c.get("b")
	c.put("b", "{}", gen, time.Now())
	if _, ok, _ := c.get("b"); ok {
		t.Fatal("a read during a change was kept")
	}
	done()
	c.put("b", "{}", gen, time.Now())
	if _, ok, _ := c.get("b"); ok {
		t.Fatal("a read that began during a change was kept after it")
	}
	_, _, gen = c.get("b")
	c.put("b", "{}", gen, time.Now())
	if _, ok, _ := c.get("b"); !ok {
		t.Fatal("a read after the change was not kept")
	}
}

// TestSettingsChangedElsewhereTakeEffect: a change made through another
// store (another server) is read within settingsMaxAge; one made through
// this store at once.
func TestSettingsChangedElsewhereTakeEffect(t *testing.T) {
	uri := testenv.Neo4jURI(t)
	scope := "settings" + strings.ReplaceAll(kgmem.NewID("t"), "_", "")
	open := func() *Store {
		s, err := Open(t.Context(), Config{URI: uri, Scope: scope})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = s.Close() })
		return s
	}
	a, b := open(), open()
	ctx, ns := t.Context(), kgmem.Namespace("settings/ns")
	read := func(s *Store) string {
		set, err := s.Settings(ctx, ns)
		if err != nil {
			t.Fatal(err)
		}
		return set.SearchRecipe
	}
	if got := read(a); got != "" {
		t.Fatalf("fresh namespace: recipe %q", got)
	}
	if err := b.PutSettings(ctx, ns, kgmem.NamespaceSettings{SearchRecipe: "keyword"}); err != nil {
		t.Fatal(err)
	}
	if got := read(b); got != "keyword" {
		t.Fatalf("the store that changed the settings reads %q", got)
	}
	polltest.Until(t, settingsMaxAge+10*time.Second, "the other store reads the change", func() bool { return read(a) == "keyword" })
	if _, err := b.PurgeNamespace(ctx, ns); err != nil {
		t.Fatal(err)
	}
	if got := read(b); got != "" {
		t.Fatalf("after its purge the store reads recipe %q", got)
	}
	polltest.Until(t, settingsMaxAge+10*time.Second, "the other store reads the purge", func() bool { return read(a) == "" })
}
