package main

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/spf13/cobra"
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

// serveWith runs `server serve args…`.
func serveWith(ctx context.Context, args []string) error {
	return run(ctx, append([]string{"serve"}, args...), io.Discard, io.Discard)
}

// keysWith runs `server keys args…`, printing on stdout.
func keysWith(ctx context.Context, args []string, stdout io.Writer) error {
	return run(ctx, append([]string{"keys"}, args...), stdout, io.Discard)
}

// parseConfig parses args as the command on does and validates the
// configuration.
func parseConfig(on commands, args ...string) (*config, error) {
	cmd := &cobra.Command{Use: "test"}
	cfg := tableFlags(cmd, on)
	if err := cmd.ParseFlags(args); err != nil {
		return nil, err
	}
	if err := cfg.loadFile(cmd.Flags()); err != nil {
		return nil, err
	}
	return cfg, cfg.validate()
}
