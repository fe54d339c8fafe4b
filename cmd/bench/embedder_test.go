package main

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/embed"
	"github.com/kgmem/kgmem/memory"
)

// TestEmbedderFlag checks --embedder on every in-process benchmark: an
// unknown name is invalid, a missing static model names the script that
// installs it, and the hashing embedder keeps the server's options.
func TestEmbedderFlag(t *testing.T) {
	missing := t.TempDir()
	for _, cmd := range []string{"locomo-cv", "longmemeval", "cv"} {
		err := run(context.Background(), []string{cmd, "--embedder", "bert"}, io.Discard, io.Discard)
		if !errors.Is(err, kgmem.ErrInvalid) || !strings.Contains(err.Error(), "embedder") {
			t.Errorf("bench %s --embedder bert = %v, want ErrInvalid naming embedder", cmd, err)
		}
		err = run(context.Background(), []string{cmd, "--embedder", "static", "--embed-static-model", missing}, io.Discard, io.Discard)
		if !errors.Is(err, embed.ErrNoModel) || !strings.Contains(err.Error(), "scripts/embedder.sh install") {
			t.Errorf("bench %s without a static model = %v, want ErrNoModel naming the script", cmd, err)
		}
	}
	for _, name := range []string{"hash", "hashing"} {
		ef := embedderFlags{name: name}
		e, opts, err := ef.open()
		if err != nil {
			t.Fatal(err)
		}
		if e.Name() != embed.NewHashing(0).Name() || opts != memory.HashingSearchOptions() {
			t.Errorf("--embedder %s: %s with %+v", name, e.Name(), opts)
		}
	}
}
