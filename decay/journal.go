package decay

import (
	"time"

	"github.com/kgmem/kgmem"
)

// journalEntry is one Enqueue call: one JSON line of the Reinforcer's
// write-ahead journal (internal/journal: group-committed appends, rewritten
// atomically once entries have been applied).
type journalEntry struct {
	NS   kgmem.Namespace `json:"ns"`
	At   time.Time       `json:"at"`
	Refs []Ref           `json:"refs"`
}

// validEntry reports whether a decoded journal line is a usable entry.
func validEntry(e journalEntry) bool {
	_, err := kgmem.ParseNamespace(string(e.NS))
	return err == nil && !e.At.IsZero() && len(e.Refs) > 0 && validateRefs(e.Refs) == nil
}
