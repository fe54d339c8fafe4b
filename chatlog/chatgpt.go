package chatlog

import (
	"bufio"
	"encoding/json"
	"strings"
)

// chatgptConversation is one conversation of a ChatGPT export's
// conversations.json: a tree of message nodes, of which the branch ending at
// current_node is the conversation as the user last saw it.
type chatgptConversation struct {
	ID             string                 `json:"id"`
	ConversationID string                 `json:"conversation_id"`
	Title          string                 `json:"title"`
	CurrentNode    string                 `json:"current_node"`
	Mapping        map[string]chatgptNode `json:"mapping"`
}

type chatgptNode struct {
	ID      string          `json:"id"`
	Parent  *string         `json:"parent"`
	Message *chatgptMessage `json:"message"`
}

type chatgptMessage struct {
	ID     string `json:"id"`
	Author struct {
		Role string  `json:"role"`
		Name *string `json:"name"`
	} `json:"author"`
	CreateTime flexTime `json:"create_time"`
	Content    struct {
		ContentType string            `json:"content_type"`
		Parts       []json.RawMessage `json:"parts"`
		Text        string            `json:"text"`
	} `json:"content"`
	Metadata map[string]any `json:"metadata"`
}

// text joins the string parts (images and other attachments are skipped).
func (m *chatgptMessage) text() string {
	var texts []string
	for _, p := range m.Content.Parts {
		var s string
		if json.Unmarshal(p, &s) == nil && strings.TrimSpace(s) != "" {
			texts = append(texts, s)
		}
	}
	if len(texts) == 0 && m.Content.Text != "" {
		texts = append(texts, m.Content.Text)
	}
	return strings.Join(texts, "\n")
}

// hidden reports a message ChatGPT does not show: system prompts and context
// it injects, empty nodes.
func (m *chatgptMessage) hidden() bool {
	if v, ok := m.Metadata["is_visually_hidden_from_conversation"].(bool); ok && v {
		return true
	}
	return strings.TrimSpace(m.text()) == ""
}

type chatgptReader struct {
	opts  Options
	array *arrayStream
	q     queue
}

func newChatGPT(br *bufio.Reader, opts Options) (*chatgptReader, error) {
	return &chatgptReader{opts: opts, array: newArrayStream(br)}, nil
}

// Format implements Reader.
func (r *chatgptReader) Format() Format { return FormatChatGPT }

// Next implements Reader.
func (r *chatgptReader) Next() (Record, error) {
	for {
		if rec, err, ok := r.q.pop(); ok {
			return rec, err
		}
		var conv chatgptConversation
		i, err := r.array.next(&conv)
		if err != nil {
			return Record{}, err
		}
		r.queueConversation(i, conv)
	}
}

// queueConversation walks the current branch from current_node up through
// the parents and queues its visible messages oldest first.
func (r *chatgptReader) queueConversation(i int, conv chatgptConversation) {
	base := Position{Item: i, HasItem: true}
	thread := conv.ConversationID
	if thread == "" {
		thread = conv.ID
	}
	if thread == "" {
		r.q.push(Record{}, badRecord(base, "conversation_id", "is missing"))
		return
	}
	if _, ok := conv.Mapping[conv.CurrentNode]; !ok {
		r.q.push(Record{}, badRecord(base, "current_node", "%q is not a node of mapping", conv.CurrentNode))
		return
	}
	var branch []*chatgptMessage
	for id, steps := conv.CurrentNode, 0; id != ""; steps++ {
		node, ok := conv.Mapping[id]
		if !ok {
			r.q.push(Record{}, badRecord(base, "mapping", "node %q of the current branch is not in mapping", id))
			return
		}
		if steps > len(conv.Mapping) {
			r.q.push(Record{}, badRecord(base, "mapping", "the parents of node %q form a cycle", conv.CurrentNode))
			return
		}
		if node.Message != nil && !node.Message.hidden() {
			branch = append(branch, node.Message)
		}
		id = ""
		if node.Parent != nil {
			id = *node.Parent
		}
	}
	for k := len(branch) - 1; k >= 0; k-- {
		m := branch[k]
		pos := base
		pos.Message = len(branch) - 1 - k
		rec := Record{ThreadID: thread, Pos: pos}
		rec.Message.ID, rec.Message.Role, rec.Message.Content = m.ID, m.Author.Role, m.text()
		if m.Author.Name != nil {
			rec.Message.Name = *m.Author.Name
		}
		rec.Message.Timestamp = m.CreateTime.Time
		if conv.Title != "" {
			rec.Message.Metadata = map[string]any{"title": conv.Title}
		}
		rec, err := r.opts.finish(rec, "")
		r.q.push(rec, err)
	}
}
