package episodes

import (
	"time"

	"github.com/kgmem/kgmem/api/wire"
)

// WireMessages turns messages into those of a REST request
// (wire.MemoriesRequest): times as RFC 3339, a zero time left out, so the
// server stamps it.
func WireMessages(msgs []Message) []wire.Message {
	out := make([]wire.Message, 0, len(msgs))
	for _, m := range msgs {
		w := wire.Message{ID: m.ID, Role: m.Role, Name: m.Name, Content: m.Content, Metadata: m.Metadata}
		if !m.Timestamp.IsZero() {
			w.Timestamp = m.Timestamp.UTC().Format(time.RFC3339Nano)
		}
		out = append(out, w)
	}
	return out
}
