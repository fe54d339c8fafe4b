package episodes

import (
	"fmt"
	"time"
	"unicode/utf8"

	"github.com/kgmem/kgmem"
)

// Message is one chat message as a client posts it.
type Message struct {
	// ID is the client's message id; re-posting the same (namespace, thread, id)
	// is idempotent. When empty and a timestamp is given, the id is derived from
	// role, name, content and timestamp, so an identical re-post is still
	// recognised; with neither, every post is a new message.
	ID   string `json:"id,omitempty"`
	Role string `json:"role,omitempty"`
	// Name is the speaker's name.
	Name    string `json:"name,omitempty"`
	Content string `json:"content"`
	// Timestamp is when the message was said; zero means "now".
	Timestamp time.Time      `json:"timestamp,omitzero"`
	Metadata  map[string]any `json:"metadata,omitempty"`
}

// Limits bound what one batch of messages may contain.
type Limits struct {
	// MaxMessages per batch.
	MaxMessages int
	// MaxContentBytes per message.
	MaxContentBytes int
	// MaxFieldBytes for ids, thread ids, roles and names.
	MaxFieldBytes int
}

// DefaultLimits are generous for chat and still keep one request bounded.
func DefaultLimits() Limits {
	return Limits{MaxMessages: 1000, MaxContentBytes: 32 << 10, MaxFieldBytes: 256}
}

// The roles a message may have.
const (
	RoleUser      = "user"
	RoleAssistant = "assistant"
	RoleSystem    = "system"
	RoleTool      = "tool"
)

// validRole reports whether role is one a message may have.
func validRole(role string) bool {
	switch role {
	case RoleUser, RoleAssistant, RoleSystem, RoleTool:
		return true
	}
	return false
}

// Build validates msgs and turns them into episodes of thread threadID in ns,
// stamped with now. It fails with a *kgmem.FieldError naming the first bad field.
func Build(ns kgmem.Namespace, threadID string, msgs []Message, now time.Time, lim Limits) ([]kgmem.Episode, error) {
	if len(msgs) == 0 {
		return nil, kgmem.Invalidf("messages", "must hold at least one message")
	}
	if len(msgs) > lim.MaxMessages {
		return nil, kgmem.Invalidf("messages", "holds %d messages, at most %d allowed per request", len(msgs), lim.MaxMessages)
	}
	if err := checkField("thread_id", threadID, lim); err != nil {
		return nil, err
	}
	out := make([]kgmem.Episode, 0, len(msgs))
	seen := make(map[string]int, len(msgs))
	for i, m := range msgs {
		ep, err := buildOne(ns, threadID, m, now, lim, fmt.Sprintf("messages[%d]", i))
		if err != nil {
			return nil, err
		}
		if j, dup := seen[ep.ID]; dup {
			return nil, kgmem.Unprocessablef(fmt.Sprintf("messages[%d].id", i), "repeats the id of messages[%d] in the same request", j)
		}
		seen[ep.ID] = i
		out = append(out, ep)
	}
	return out, nil
}

func buildOne(ns kgmem.Namespace, threadID string, m Message, now time.Time, lim Limits, path string) (kgmem.Episode, error) {
	switch {
	case m.Content == "":
		return kgmem.Episode{}, kgmem.Invalidf(path+".content", "is empty")
	case !utf8.ValidString(m.Content):
		return kgmem.Episode{}, kgmem.Invalidf(path+".content", "is not valid UTF-8")
	case len(m.Content) > lim.MaxContentBytes:
		return kgmem.Episode{}, kgmem.TooLong(path+".content", m.Content, lim.MaxContentBytes)
	}
	for _, f := range []struct{ name, value string }{{"id", m.ID}, {"role", m.Role}, {"name", m.Name}} {
		if err := checkField(path+"."+f.name, f.value, lim); err != nil {
			return kgmem.Episode{}, err
		}
	}
	role := m.Role
	if role == "" {
		role = "user"
	}
	if !validRole(role) {
		return kgmem.Episode{}, kgmem.Invalidf(path+".role", "is %q; use user, assistant, system or tool", m.Role)
	}
	ts := m.Timestamp.UTC()
	if m.Timestamp.IsZero() {
		ts = now
	}
	msgID := m.ID
	switch {
	case msgID != "":
	case !m.Timestamp.IsZero():
		// Same speaker, words and instant: the same message posted again.
		msgID = "auto_" + contentKey(role, m.Name, m.Content, m.Timestamp)
	default:
		// Without id or timestamp two identical messages ("ok") may well be two
		// messages; never merge them.
		msgID = kgmem.NewID("auto")
	}
	return kgmem.Episode{
		ID:        kgmem.EpisodeID(ns, threadID, msgID),
		Namespace: ns,
		ThreadID:  threadID,
		MessageID: msgID,
		Role:      role,
		Name:      m.Name,
		Content:   m.Content,
		Timestamp: ts,
		Metadata:  m.Metadata,
		CreatedAt: now,
	}, nil
}

func checkField(path, v string, lim Limits) error {
	if len(v) > lim.MaxFieldBytes {
		return kgmem.TooLong(path, v, lim.MaxFieldBytes)
	}
	if !utf8.ValidString(v) {
		return kgmem.Invalidf(path, "is not valid UTF-8")
	}
	return nil
}
