package kgmem

import (
	"crypto/sha256"
	"encoding/hex"
	"time"
)

// Episode is one message, kept verbatim as the provenance of what was learnt from it.
type Episode struct {
	ID        string    `json:"id"`
	Namespace Namespace `json:"namespace"`
	ThreadID  string    `json:"thread_id,omitempty"`
	// MessageID is the client's id for the message; (namespace, thread, message id)
	// is unique, which makes re-posting a message idempotent.
	MessageID string `json:"message_id"`
	Role      string `json:"role,omitempty"`
	// Name is the speaker's name ("Caroline").
	Name    string `json:"name,omitempty"`
	Content string `json:"content"`
	// Timestamp is when the message was said (client time).
	Timestamp time.Time      `json:"timestamp"`
	Metadata  map[string]any `json:"metadata,omitempty"`
	// CreatedAt is when kgmem stored it.
	CreatedAt time.Time  `json:"created_at"`
	Decay     DecayState `json:"decay"`
}

// EpisodeID derives the stable id of the message (namespace, thread, message id).
// Equal inputs give equal ids, which is what makes ingestion idempotent.
func EpisodeID(ns Namespace, threadID, messageID string) string {
	return "ep_" + digest(string(ns), threadID, messageID)
}

// Mention links an episode to an entity it talks about.
type Mention struct {
	EpisodeID string `json:"episode_id"`
	EntityID  string `json:"entity_id"`
}

// digest is a short, stable, collision-resistant hex digest of parts.
func digest(parts ...string) string {
	h := sha256.New()
	for _, p := range parts {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))[:24]
}
