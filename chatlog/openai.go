package chatlog

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// openaiConversation is one element of FormatOpenAI.
type openaiConversation struct {
	ID        string          `json:"id"`
	ThreadID  string          `json:"thread_id"`
	Namespace string          `json:"namespace"`
	Messages  []openaiMessage `json:"messages"`
}

// openaiMessage is a chat-completions message.
type openaiMessage struct {
	ID        string          `json:"id"`
	Role      string          `json:"role"`
	Name      string          `json:"name"`
	Content   openaiContent   `json:"content"`
	ToolCalls json.RawMessage `json:"tool_calls"`
	Timestamp flexTime        `json:"timestamp"`
}

// openaiContent is a message content: a string or an array of parts, of
// which the text parts are kept.
type openaiContent string

// UnmarshalJSON implements json.Unmarshaler.
func (c *openaiContent) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	switch {
	case bytes.Equal(b, []byte("null")):
		*c = ""
		return nil
	case len(b) > 0 && b[0] == '"':
		var s string
		err := json.Unmarshal(b, &s)
		*c = openaiContent(s)
		return err
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if err := json.Unmarshal(b, &parts); err != nil {
		return fmt.Errorf("content is neither a string nor an array of parts: %w", err)
	}
	var texts []string
	for _, p := range parts {
		if p.Text != "" {
			texts = append(texts, p.Text)
		}
	}
	*c = openaiContent(strings.Join(texts, "\n"))
	return nil
}

// openaiRole maps the API's newer roles onto the four an episode has.
func openaiRole(role string) string {
	switch role {
	case "developer":
		return "system"
	case "function":
		return "tool"
	}
	return role
}

type openaiReader struct {
	opts  Options
	bare  bool // a bare array of messages: one conversation
	array *arrayStream
	lines *lineReader
	q     queue
}

func newOpenAI(br *bufio.Reader, opts Options) (*openaiReader, error) {
	r := &openaiReader{opts: opts}
	head, _ := br.Peek(sniffBytes)
	head = bytes.TrimLeft(head, " \t\r\n\ufeff")
	if len(head) > 0 && head[0] == '[' {
		r.array = newArrayStream(br)
		keys := firstKeys(head, 2)
		r.bare = has(keys, "role") && !has(keys, "messages")
	} else {
		r.lines = &lineReader{br: br, max: opts.MaxLineBytes}
	}
	return r, nil
}

// Format implements Reader.
func (r *openaiReader) Format() Format { return FormatOpenAI }

// Next implements Reader.
func (r *openaiReader) Next() (Record, error) {
	for {
		if rec, err, ok := r.q.pop(); ok {
			return rec, err
		}
		if err := r.fill(); err != nil {
			return Record{}, err
		}
	}
}

// fill decodes the next conversation (or bare message) into the queue.
func (r *openaiReader) fill() error {
	if r.bare {
		var m openaiMessage
		i, err := r.array.next(&m)
		if err != nil {
			return err
		}
		r.push(openaiConversation{}, m, Position{Item: i, HasItem: true}, r.opts.ThreadID)
		return nil
	}
	var conv openaiConversation
	var base Position
	var thread string
	if r.array != nil {
		i, err := r.array.next(&conv)
		if err != nil {
			return err
		}
		base, thread = Position{Item: i, HasItem: true}, "conv-"+strconv.Itoa(i)
	} else {
		line, n, err := r.lines.next()
		base, thread = Position{Line: n}, "conv-line-"+strconv.Itoa(n)
		switch {
		case err == errLineTooLong:
			return badRecord(base, "line", "is longer than %d bytes; skipped", r.opts.MaxLineBytes)
		case err != nil:
			return err
		}
		if err := json.Unmarshal(line, &conv); err != nil {
			return badRecord(base, "line", "is not a {\"messages\": [...]} object: %v", err)
		}
	}
	if conv.ThreadID != "" {
		thread = conv.ThreadID
	} else if conv.ID != "" {
		thread = conv.ID
	}
	if len(conv.Messages) == 0 {
		return badRecord(base, "messages", "is missing or empty")
	}
	for i, m := range conv.Messages {
		pos := base
		pos.Message = i
		r.push(conv, m, pos, thread)
	}
	return nil
}

func (r *openaiReader) push(conv openaiConversation, m openaiMessage, pos Position, thread string) {
	if m.Content == "" && len(m.ToolCalls) > 0 && string(m.ToolCalls) != "null" {
		return // a tool call carries no text to remember
	}
	rec := Record{ThreadID: thread, Pos: pos}
	rec.Message.ID, rec.Message.Role, rec.Message.Name = m.ID, openaiRole(m.Role), m.Name
	rec.Message.Content, rec.Message.Timestamp = string(m.Content), m.Timestamp.Time
	rec, err := r.opts.finish(rec, conv.Namespace)
	r.q.push(rec, err)
}
