package api

import (
	"time"

	"github.com/kgmem/kgmem"
)

// timeLayouts are the timestamp forms the API accepts; a time without a zone is UTC.
var timeLayouts = []string{time.RFC3339Nano, "2006-01-02T15:04:05", "2006-01-02 15:04:05", "2006-01-02"}

// parseTime parses an optional timestamp field; empty gives the zero time.
// A time is kept exactly as given, never replaced: the one instant kgmem
// cannot keep is 0001-01-01T00:00:00Z, which it uses for "no time" (a message
// without a timestamp is stamped now, a fact without valid_at has an unknown
// start), so it is rejected rather than silently read as absent.
func parseTime(field, s string) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	for _, layout := range timeLayouts {
		if t, err := time.Parse(layout, s); err == nil {
			if t.IsZero() || t.UTC().IsZero() {
				return time.Time{}, kgmem.Unprocessablef(field, "is %q, the zero time, which kgmem reserves for \"no time\"; leave the field out when the time is unknown", s)
			}
			return t.UTC(), nil
		}
	}
	return time.Time{}, kgmem.Invalidf(field, "is %q; use RFC 3339 like 2024-03-01T09:30:00Z, or a date like 2024-03-01", s)
}
