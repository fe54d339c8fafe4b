package main

import (
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"github.com/kgmem/kgmem/embed"
)

// embedderStampFile names, in the data directory, the embedder whose
// vectors the embedded vector index holds. Two embedders of one dimension
// (hash and static both have 256) would otherwise mix their vectors in one
// index without an error.
const embedderStampFile = "embedder"

// errEmbedderChanged is returned when the server's embedder is not the one
// that built the embedded vector index.
var errEmbedderChanged = errors.New("the vector index was built by another embedder")

// checkEmbedderStamp compares the embedder recorded in dir with name. With
// none recorded it records name (an index from before the record is taken
// to be name's, with a warning when vectors already exist).
func checkEmbedderStamp(dir, name string, log *slog.Logger) error {
	raw, err := os.ReadFile(filepath.Join(dir, embedderStampFile))
	if errors.Is(err, fs.ErrNotExist) {
		if _, serr := os.Stat(filepath.Join(dir, "vectors.db")); serr == nil {
			log.Warn("recording the embedder of an existing vector index; if another built it, run reindex", "embedder", name, "data_dir", dir)
		}
		return writeEmbedderStamp(dir, name)
	}
	if err != nil {
		return fmt.Errorf("read the vector index's embedder: %w", err)
	}
	if built := strings.TrimSpace(string(raw)); built != name {
		return fmt.Errorf("%w: %s holds %s vectors and this server embeds with %s; start it with the embedder that built the index, or rebuild the index with `reindex` and the new embedder's flags (server stopped)",
			errEmbedderChanged, dir, built, name)
	}
	return nil
}

// writeEmbedderStamp records name as the embedder of dir's vector index.
func writeEmbedderStamp(dir, name string) error {
	if err := os.WriteFile(filepath.Join(dir, embedderStampFile), []byte(name+"\n"), 0o644); err != nil {
		return fmt.Errorf("record the vector index's embedder: %w", err)
	}
	return nil
}

// resolveAutoEmbedder is what --embedder auto (the default) means for a
// server whose vector index is dir's embedded one (hnsw): the embedder
// recorded there when there is one, hash for an index from before the
// record (the default then), else static when its model is installed at
// staticDir, else hash. With another vector index it is hash: every server
// sharing a collection must embed alike, so a deployment names its
// embedder. note says why, for the log.
func resolveAutoEmbedder(vector, dir, staticDir string) (embedder, note string, err error) {
	if vector != "hnsw" {
		return "hash", "auto: hash, the default with a shared vector index (set --embedder static on every server to change it)", nil
	}
	raw, err := os.ReadFile(filepath.Join(dir, embedderStampFile))
	switch {
	case err == nil:
		built := strings.TrimSpace(string(raw))
		if strings.HasPrefix(built, "hash-") {
			return "hash", "auto: hash, which built the vector index in " + dir, nil
		}
		if cfg, err := embed.ReadStaticConfig(staticDir); err == nil && cfg.Name == built {
			return "static", "auto: static, which built the vector index in " + dir, nil
		}
		return "", "", fmt.Errorf("%w: %s holds %s vectors; start the server with the --embedder (and its model) that built them, or rebuild with `reindex`", errEmbedderChanged, dir, built)
	case !errors.Is(err, fs.ErrNotExist):
		return "", "", fmt.Errorf("read the vector index's embedder: %w", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "vectors.db")); err == nil {
		return "hash", "auto: hash, the default when the vector index in " + dir + " was built", nil
	}
	if embed.StaticInstalled(staticDir) {
		return "static", "auto: static, its model is installed in " + staticDir, nil
	}
	return "hash", "auto: hash; for semantic recall install the static model (scripts/embedder.sh install) before the first start of a data directory", nil
}
