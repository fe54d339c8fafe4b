package main

import (
	"log/slog"

	"github.com/kgmem/kgmem/internal/gcheadroom"
)

// defaultGCHeadroomMiB is --gc-headroom-mib's default: a loaded server's
// live heap is tens of MiB, which GOGC=100 alone collects several times a
// second.
const defaultGCHeadroomMiB = 64

// maxGCHeadroomMiB bounds --gc-headroom-mib (1 TiB).
const maxGCHeadroomMiB = 1 << 20

// startGCHeadroom starts adjusting the collector for the configured headroom
// (internal/gcheadroom); the caller stops it when the command ends.
func (c *config) startGCHeadroom(log *slog.Logger) *gcheadroom.Tuner {
	t := gcheadroom.Start(gcheadroom.Config{Headroom: uint64(c.GCHeadroomMiB) << 20})
	if c.GCHeadroomMiB > 0 {
		log.Info("gc headroom", "mib", c.GCHeadroomMiB, "gogc", t.Base())
	}
	return t
}
