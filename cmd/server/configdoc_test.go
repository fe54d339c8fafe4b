package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestConfigReferenceIsCurrent regenerates the configuration reference and
// compares it with the committed page; regenerate it with
// `go run ./cmd/server config --markdown > docs/operations/configuration-reference.md`.
// The environment (this test binary sets KGMEM_EMBED_STATIC_MODEL) must
// not leak into the page's defaults.
func TestConfigReferenceIsCurrent(t *testing.T) {
	t.Setenv("KGMEM_ADDR", "0.0.0.0:1")
	var out bytes.Buffer
	if err := run(t.Context(), []string{"config", "--markdown"}, &out, &out); err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile(filepath.Join("..", "..", configReferencePath))
	if err != nil {
		t.Fatal(err)
	}
	if out.String() != string(want) {
		t.Errorf("%s is stale: regenerate it with `go run ./cmd/server config --markdown > %s`", configReferencePath, configReferencePath)
	}
	for _, s := range []string{"| `--addr` | `KGMEM_ADDR` | `127.0.0.1:8080` |", "| `--search-recipe` | `KGMEM_SEARCH_RECIPE` | `default` |", "| `--embedder` | `KGMEM_EMBEDDER` | `auto` |"} {
		if !strings.Contains(out.String(), s) {
			t.Errorf("the reference lacks %q", s)
		}
	}
	if err := run(t.Context(), []string{"config"}, &out, &out); err == nil {
		t.Error("config without --markdown succeeded")
	}
}
