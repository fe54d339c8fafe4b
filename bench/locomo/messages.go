package locomo

import (
	"strconv"

	"github.com/kgmem/kgmem/episodes"

	"github.com/kgmem/kgmem"
)

// Message is one message of POST /v1/memories, as the server reads it.
type Message = episodes.Message

// Thread is one session of one conversation as the messages to ingest.
type Thread struct {
	Namespace kgmem.Namespace
	// ID is "session_<N>".
	ID       string
	Messages []Message
}

// Threads turns a conversation into one thread per session: each turn is a
// message with the dia_id as id, role "user", the speaker as name, Content()
// as content, the session's date as timestamp and {"session": N} as metadata.
func Threads(conv Conversation) ([]Thread, error) {
	ns, err := Namespace(conv.ID)
	if err != nil {
		return nil, err
	}
	threads := make([]Thread, 0, len(conv.Sessions))
	for _, s := range conv.Sessions {
		th := Thread{Namespace: ns, ID: "session_" + strconv.Itoa(s.Number), Messages: make([]Message, 0, len(s.Turns))}
		for _, t := range s.Turns {
			th.Messages = append(th.Messages, Message{
				ID:        t.DiaID,
				Role:      "user",
				Name:      t.Speaker,
				Content:   t.Content(),
				Timestamp: s.Time,
				Metadata:  map[string]any{"session": s.Number},
			})
		}
		threads = append(threads, th)
	}
	return threads, nil
}

// Batches splits msgs into consecutive batches of at most size messages
// (size < 1 means one batch).
func Batches(msgs []Message, size int) [][]Message {
	if size < 1 || size >= len(msgs) {
		if len(msgs) == 0 {
			return nil
		}
		return [][]Message{msgs}
	}
	var out [][]Message
	for len(msgs) > size {
		out = append(out, msgs[:size:size])
		msgs = msgs[size:]
	}
	return append(out, msgs)
}
