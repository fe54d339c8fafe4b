package main

import (
	"os"
	"path/filepath"
	"testing"
)

// TestMain points the static embedder's model at a directory that holds
// none, so that --embedder auto means hash in every test whatever this
// machine has installed under ~/.cache/kgmem; a test that wants the static
// embedder names a model of its own.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "kgmem-no-model-")
	if err != nil {
		panic(err)
	}
	os.Setenv("KGMEM_EMBED_STATIC_MODEL", filepath.Join(dir, "none"))
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}
