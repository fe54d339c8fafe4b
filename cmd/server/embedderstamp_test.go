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

// TestAutoEmbedder: --embedder auto keeps the embedder that built a data
// directory's vector index, takes static for a new one when its model is
// installed and hash otherwise, and hash with a shared vector index.
func TestAutoEmbedder(t *testing.T) {
	model := t.TempDir()
	if err := embed.WriteStatic(model, embed.StaticConfig{Name: "tiny-static", Dimension: 8}, []string{"[PAD]", "[UNK]", "dog"}, [][]float32{make([]float32, 8), make([]float32, 8), make([]float32, 8)}); err != nil {
		t.Fatal(err)
	}
	noModel := filepath.Join(t.TempDir(), "none")
	for _, tc := range []struct {
		name    string
		vector  string
		stamp   string // recorded embedder ("": none)
		vectors bool   // an index file exists
		model   string
		want    string // "" : an error
	}{
		{"new directory, model installed", "hnsw", "", false, model, "static"},
		{"new directory, no model", "hnsw", "", false, noModel, "hash"},
		{"built by hash", "hnsw", "hash-v1-256", true, model, "hash"},
		{"built by the installed static model", "hnsw", "tiny-static", true, model, "static"},
		{"built by a static model not installed", "hnsw", "tiny-static", true, noModel, ""},
		{"built by an endpoint's model", "hnsw", "text-embedding-3-small-256", true, model, ""},
		{"an index from before the record", "hnsw", "", true, model, "hash"},
		{"a shared vector index", "milvus", "", false, model, "hash"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			if tc.stamp != "" {
				if err := writeEmbedderStamp(dir, tc.stamp); err != nil {
					t.Fatal(err)
				}
			}
			if tc.vectors {
				if err := os.WriteFile(filepath.Join(dir, "vectors.db"), nil, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			got, note, err := resolveAutoEmbedder(tc.vector, dir, tc.model)
			switch {
			case tc.want == "" && !errors.Is(err, errEmbedderChanged):
				t.Errorf("got %q, %v; want errEmbedderChanged", got, err)
			case tc.want != "" && (err != nil || got != tc.want || note == ""):
				t.Errorf("got %q (%q), %v; want %q", got, note, err, tc.want)
			}
		})
	}
	// Through the flags: a new data directory with the model installed
	// runs the static embedder at its vector weight.
	t.Setenv("KGMEM_EMBED_STATIC_MODEL", model)
	cfg, err := parse(t, "--data-dir", t.TempDir())
	if err != nil || cfg.Embedder != "static" || cfg.VectorWeight != embed.StaticVectorWeight {
		t.Errorf("auto with the model installed: %v, embedder %q, vector weight %v", err, cfg.Embedder, cfg.VectorWeight)
	}
}
