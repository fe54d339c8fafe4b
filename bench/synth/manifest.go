package synth

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/kgmem/kgmem"
)

// ManifestFile is the file in a data directory that says which memory it holds.
const ManifestFile = "synth.json"

// Manifest records a built memory, so a later run can reuse it.
type Manifest struct {
	Version  int        `json:"version"`
	Config   Config     `json:"config"`
	Embedder string     `json:"embedder"`
	Build    BuildStats `json:"build"`
	BuiltAt  time.Time  `json:"built_at"`
}

// Matches reports whether m describes the memory cfg generates, embedded by embedder.
func (m Manifest) Matches(cfg Config, embedder string) bool {
	return m.Version == Version && m.Embedder == embedder && m.Config.Seed == cfg.Seed &&
		m.Config.Facts == cfg.Facts && m.Config.Entities == cfg.Entities && m.Config.Namespaces == cfg.Namespaces &&
		m.Config.Prefix == cfg.Prefix && m.Config.FactsPerEpisode == cfg.FactsPerEpisode && m.Config.Skew == cfg.Skew &&
		m.Config.UniformShare == cfg.UniformShare && m.Config.HistoryShare == cfg.HistoryShare &&
		m.Config.Start.Equal(cfg.Start) && m.Config.Span == cfg.Span
}

// ReadManifest reads the manifest of dir; an error wrapping kgmem.ErrNotFound
// when there is none.
func ReadManifest(dir string) (Manifest, error) {
	var m Manifest
	buf, err := os.ReadFile(filepath.Join(dir, ManifestFile))
	if errors.Is(err, os.ErrNotExist) {
		return m, fmt.Errorf("no %s in %s: %w", ManifestFile, dir, kgmem.ErrNotFound)
	}
	if err != nil {
		return m, fmt.Errorf("read manifest: %w", err)
	}
	if err := json.Unmarshal(buf, &m); err != nil {
		return m, fmt.Errorf("parse %s: %w", filepath.Join(dir, ManifestFile), err)
	}
	return m, nil
}

// WriteManifest writes m into dir.
func WriteManifest(dir string, m Manifest) error {
	buf, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return fmt.Errorf("encode manifest: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, ManifestFile), append(buf, '\n'), 0o644); err != nil {
		return fmt.Errorf("write manifest: %w", err)
	}
	return nil
}
