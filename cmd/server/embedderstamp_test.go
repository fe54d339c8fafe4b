package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/embed"
	"github.com/kgmem/kgmem/episodes"
	"github.com/kgmem/kgmem/memory"
)

// TestEmbedderStamp checks that a data directory remembers the embedder of
// its vector index: another embedder of the same dimension is refused (its
// vectors would mix with the old ones), reindex with the new embedder
// rebuilds the index and records it, and the old one is then refused.
func TestEmbedderStamp(t *testing.T) {
	ctx := context.Background()
	dir, cfg, b := embeddedBackends(t)
	const ns = kgmem.Namespace("stamp/a")
	if _, err := b.engine.Ingest(ctx, memory.IngestRequest{Namespace: ns, ThreadID: "t", Messages: []episodes.Message{{
		ID: "m1", Role: "user", Content: "The dog sleeps.", Timestamp: time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)}}}); err != nil {
		t.Fatal(err)
	}
	b.close(cfg.logger())
	hashName := embed.NewHashing(cfg.EmbedDim).Name()
	if raw, err := os.ReadFile(filepath.Join(dir, embedderStampFile)); err != nil || strings.TrimSpace(string(raw)) != hashName {
		t.Fatalf("recorded embedder %q, %v; want %q", raw, err, hashName)
	}

	// A static model of the same dimension as the hashing embedder.
	model := t.TempDir()
	vocab := []string{"[PAD]", "[UNK]", "the", "dog", "sleeps", "."}
	rows := make([][]float32, len(vocab))
	for i := range rows {
		rows[i] = make([]float32, cfg.EmbedDim)
		rows[i][i] = 1
	}
	if err := embed.WriteStatic(model, embed.StaticConfig{Name: "tiny-static", Dimension: cfg.EmbedDim}, vocab, rows); err != nil {
		t.Fatal(err)
	}
	runCmd := func(args ...string) error {
		return run(ctx, append(args, "--data-dir", dir, "--log-level", "error"), io.Discard, io.Discard)
	}
	static := []string{"--embedder", "static", "--embed-static-model", model}

	err := runCmd(append([]string{"check"}, static...)...)
	if !errors.Is(err, errEmbedderChanged) || !strings.Contains(err.Error(), hashName) || !strings.Contains(err.Error(), "reindex") {
		t.Fatalf("check with another embedder: %v, want errEmbedderChanged naming %s and reindex", err, hashName)
	}
	var out bytes.Buffer
	if err := run(ctx, append(append([]string{"reindex"}, static...), "--data-dir", dir, "--log-level", "error"), &out, io.Discard); err != nil {
		t.Fatalf("reindex with the static embedder: %v", err)
	}
	if !strings.Contains(out.String(), `"upserted": 1`) && !strings.Contains(out.String(), `"upserted":1`) {
		t.Errorf("reindex summary %s; want one vector upserted", out.String())
	}
	if err := runCmd(append([]string{"check"}, static...)...); err != nil {
		t.Errorf("check with the static embedder after reindex: %v", err)
	}
	if err := runCmd("check"); !errors.Is(err, errEmbedderChanged) {
		t.Errorf("check with the hashing embedder after reindex: %v, want errEmbedderChanged", err)
	}
}
