package longmemeval

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/bench/locomo"
	"github.com/kgmem/kgmem/episodes"
)

// NamespacePrefix is the parent of every question's namespace.
const NamespacePrefix = "bench/longmemeval"

// Message is one message to ingest, as the engine and the server read it.
type Message = episodes.Message

// Thread is one session of a haystack as the messages to ingest.
type Thread = locomo.Thread

// Namespace is the namespace of one question's haystack:
// "bench/longmemeval/<question id>".
func Namespace(questionID string) (kgmem.Namespace, error) {
	ns, err := kgmem.ParseNamespace(NamespacePrefix + "/" + questionID)
	if err != nil {
		return "", fmt.Errorf("question %q: %w", questionID, err)
	}
	return ns, nil
}

// MessageID is the message id of turn i of a session: "<session id>:<i>".
func MessageID(sessionID string, turn int) string {
	return sessionID + ":" + strconv.Itoa(turn)
}

// SessionOf is the session id of a message id made by MessageID.
func SessionOf(messageID string) string {
	if i := strings.LastIndexByte(messageID, ':'); i >= 0 {
		return messageID[:i]
	}
	return messageID
}

// Haystack is one question's haystack as threads of messages, with what
// was changed or left out on the way.
type Haystack struct {
	Namespace kgmem.Namespace
	// Threads are one per session, in haystack order.
	Threads []Thread
	// Empty counts the empty turns, which have nothing to ingest.
	Empty int
	// Truncated counts the turns longer than the engine's per-message limit,
	// cut (at a character boundary) to fit it.
	Truncated int
	// Repeated counts the sessions left out because their id repeats an
	// earlier session of the same haystack (the data repeats a few sessions
	// verbatim under another date; their message ids would be the same).
	Repeated int
}

// Messages is the number of messages in the haystack.
func (h Haystack) Messages() int {
	n := 0
	for _, th := range h.Threads {
		n += len(th.Messages)
	}
	return n
}

// BuildHaystack turns q's haystack into one thread per session (thread id =
// session id): every non-empty turn is a message with id MessageID(session,
// turn index), the turn's role as role and speaker name, and the session's
// date as timestamp. Contents over maxContentBytes (0: the engine's default
// limit) are truncated and counted.
func BuildHaystack(q Question, maxContentBytes int) (Haystack, error) {
	if maxContentBytes <= 0 {
		maxContentBytes = episodes.DefaultLimits().MaxContentBytes
	}
	ns, err := Namespace(q.ID)
	if err != nil {
		return Haystack{}, err
	}
	h := Haystack{Namespace: ns, Threads: make([]Thread, 0, len(q.Sessions))}
	seen := make(map[string]bool, len(q.Sessions))
	for i, s := range q.Sessions {
		sid := q.SessionIDs[i]
		if seen[sid] {
			h.Repeated++
			continue
		}
		seen[sid] = true
		when, err := ParseDate(q.SessionDates[i])
		if err != nil {
			return Haystack{}, fmt.Errorf("question %s session %s: %w", q.ID, sid, err)
		}
		th := Thread{Namespace: ns, ID: sid, Messages: make([]Message, 0, len(s))}
		for j, t := range s {
			if t.Content == "" {
				h.Empty++
				continue
			}
			content := t.Content
			if len(content) > maxContentBytes {
				content = truncate(content, maxContentBytes)
				h.Truncated++
			}
			th.Messages = append(th.Messages, Message{ID: MessageID(sid, j), Role: t.Role, Name: t.Role, Content: content, Timestamp: when})
		}
		if len(th.Messages) > 0 {
			h.Threads = append(h.Threads, th)
		}
	}
	return h, nil
}

// ThreadBatch is consecutive messages of one thread.
type ThreadBatch struct {
	Thread   string
	Messages []Message
}

// Packs splits the haystack into writes of at most size messages (size < 1:
// one write): consecutive threads share a write, and a thread longer than
// room left is split, its messages kept in order.
func Packs(h Haystack, size int) [][]ThreadBatch {
	if size < 1 {
		size = max(h.Messages(), 1)
	}
	var packs [][]ThreadBatch
	var cur []ThreadBatch
	n := 0
	for _, th := range h.Threads {
		rest := th.Messages
		for len(rest) > 0 {
			take := min(size-n, len(rest))
			cur = append(cur, ThreadBatch{Thread: th.ID, Messages: rest[:take:take]})
			rest, n = rest[take:], n+take
			if n == size {
				packs, cur, n = append(packs, cur), nil, 0
			}
		}
	}
	if len(cur) > 0 {
		packs = append(packs, cur)
	}
	return packs
}

// truncate cuts s to at most n bytes without splitting a character.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// Case is one scored question: a question that is not an abstention one.
type Case struct {
	QuestionID string `json:"question_id"`
	Type       string `json:"question_type"`
	// Query is the question text, searched as is.
	Query     string          `json:"query"`
	Namespace kgmem.Namespace `json:"namespace"`
	// Evidence are the message ids of the has_answer turns (none: the case
	// is left out of turn recall).
	Evidence []string `json:"evidence"`
	// AnswerSessions are the ids of the sessions holding the evidence.
	AnswerSessions []string `json:"answer_sessions"`
}

// NewCase makes q's case; ok is false for an abstention question.
func NewCase(q Question) (c Case, ok bool, err error) {
	if q.Abstention() {
		return Case{}, false, nil
	}
	ns, err := Namespace(q.ID)
	if err != nil {
		return Case{}, false, err
	}
	c = Case{QuestionID: q.ID, Type: q.Type, Query: q.Question, Namespace: ns, AnswerSessions: q.AnswerSessions}
	seen := map[string]bool{}
	for i, s := range q.Sessions {
		for j, t := range s {
			if id := MessageID(q.SessionIDs[i], j); t.HasAnswer && !seen[id] {
				seen[id] = true
				c.Evidence = append(c.Evidence, id)
			}
		}
	}
	return c, true, nil
}

// Cases are the scored questions of qs, in order.
func Cases(qs []Question) ([]Case, error) {
	var out []Case
	for _, q := range qs {
		c, ok, err := NewCase(q)
		if err != nil {
			return nil, err
		}
		if ok {
			out = append(out, c)
		}
	}
	return out, nil
}
