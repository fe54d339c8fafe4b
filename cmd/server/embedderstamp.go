package main

import (
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
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
