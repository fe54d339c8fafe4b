package chatlog_test

import (
	"errors"
	"io"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/chatlog"
)

// readAll drains a reader: the records, and the bad records as "position: field".
func readAll(t *testing.T, input string, opts chatlog.Options) (chatlog.Format, []chatlog.Record, []string, error) {
	t.Helper()
	r, err := chatlog.Open(strings.NewReader(input), opts)
	if err != nil {
		return "", nil, nil, err
	}
	var recs []chatlog.Record
	var bad []string
	for {
		rec, err := r.Next()
		if err == io.EOF {
			return r.Format(), recs, bad, nil
		}
		if err != nil {
			var re *chatlog.RecordError
			if !errors.As(err, &re) {
				return r.Format(), recs, bad, err
			}
			if !errors.Is(err, kgmem.ErrInvalid) {
				t.Errorf("record error %v does not wrap ErrInvalid", err)
			}
			field := ""
			var fe *kgmem.FieldError
			if errors.As(err, &fe) {
				field = fe.Field
			}
			bad = append(bad, re.Pos.String()+": "+field)
			continue
		}
		recs = append(recs, rec)
	}
}

// summary renders records compactly: namespace|thread|id|role|name|content|timestamp.
func summary(recs []chatlog.Record) []string {
	out := make([]string, len(recs))
	for i, r := range recs {
		ts := ""
		if !r.Message.Timestamp.IsZero() {
			ts = r.Message.Timestamp.Format(time.RFC3339)
		}
		out[i] = strings.Join([]string{string(r.Namespace), r.ThreadID, r.Message.ID, r.Message.Role, r.Message.Name, r.Message.Content, ts}, "|")
	}
	return out
}

const chatgptExport = `[
 {"title": "Trip", "conversation_id": "c1", "current_node": "n4",
  "mapping": {
   "root": {"id": "root", "message": null, "parent": null, "children": ["n0"]},
   "n0": {"id": "n0", "parent": "root", "message": {"id": "n0", "author": {"role": "system"}, "create_time": null, "content": {"content_type": "text", "parts": [""]}, "metadata": {"is_visually_hidden_from_conversation": true}}},
   "n1": {"id": "n1", "parent": "n0", "message": {"id": "n1", "author": {"role": "user", "name": null}, "create_time": 1704067200.5, "content": {"content_type": "text", "parts": ["I fly to Lisbon in May."]}, "metadata": {}}},
   "n2": {"id": "n2", "parent": "n1", "message": {"id": "n2", "author": {"role": "assistant"}, "create_time": 1704067210, "content": {"content_type": "text", "parts": ["An abandoned branch."]}, "metadata": {}}},
   "n3": {"id": "n3", "parent": "n1", "message": {"id": "n3", "author": {"role": "assistant"}, "create_time": 1704067220, "content": {"content_type": "text", "parts": ["Lisbon is lovely", {"asset_pointer": "file://x"}, "in May."]}, "metadata": {}}},
   "n4": {"id": "n4", "parent": "n3", "message": {"id": "n4", "author": {"role": "user"}, "create_time": 1704067230, "content": {"content_type": "text", "parts": ["Thanks!"]}, "metadata": {}}}
  }},
 {"title": "Broken", "conversation_id": "c2", "current_node": "zz", "mapping": {}},
 {"title": "Dangling", "conversation_id": "c3", "current_node": "a", "mapping": {"a": {"id": "a", "parent": "gone", "message": null}}}
]`

func TestReaders(t *testing.T) {
	locomoFile, err := os.ReadFile("testdata/locomo_small.json")
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name   string
		input  string
		opts   chatlog.Options
		format chatlog.Format
		want   []string
		bad    []string
	}{
		{
			name: "jsonl with bad lines",
			input: `{"namespace": "acme/u1", "thread_id": "t1", "id": "m1", "role": "user", "name": "Ann", "content": "I like tea.", "timestamp": "2024-01-01T10:00:00Z"}
not json
{"namespace": "acme/u1", "thread_id": "t1", "content": ""}

{"namespace": "bad//ns", "thread_id": "t1", "content": "x"}
{"thread_id": "t2", "role": "assistant", "content": "Noted.", "timestamp": 1704103200}
{"namespace": "acme/u1", "thread_id": "t1", "role": "robot", "content": "x"}
`,
			opts:   chatlog.Options{Namespace: "acme/default"},
			format: chatlog.FormatJSONL,
			want: []string{
				"acme/u1|t1|m1|user|Ann|I like tea.|2024-01-01T10:00:00Z",
				"acme/default|t2|" + chatlog.StableID("acme/default", "t2", chatlog.Position{Line: 6}, "Noted.") + "|assistant||Noted.|2024-01-01T10:00:00Z",
			},
			bad: []string{"line 2: line", "line 3: messages[0].content", "line 5: namespace", "line 7: messages[0].role"},
		},
		{
			name:   "jsonl without namespace anywhere",
			input:  `{"thread_id": "t", "content": "hi"}`,
			format: chatlog.FormatJSONL,
			bad:    []string{"line 1: namespace"},
		},
		{
			name: "openai array of conversations",
			input: `[{"id": "chat-a", "messages": [{"role": "developer", "content": "Be brief."}, {"role": "user", "content": [{"type": "text", "text": "My dog is Rex."}, {"type": "image_url", "image_url": {"url": "x"}}]}, {"role": "assistant", "content": null, "tool_calls": [{"id": "c"}]}, {"role": "assistant", "content": "Hi Rex!"}]},
			 {"messages": []},
			 {"messages": [{"role": "user", "content": "second"}]}]`,
			opts:   chatlog.Options{Namespace: "u"},
			format: chatlog.FormatOpenAI,
			want: []string{
				"u|chat-a|" + chatlog.StableID("u", "chat-a", chatlog.Position{Item: 0, HasItem: true, Message: 0}, "Be brief.") + "|system||Be brief.|",
				"u|chat-a|" + chatlog.StableID("u", "chat-a", chatlog.Position{Item: 0, HasItem: true, Message: 1}, "My dog is Rex.") + "|user||My dog is Rex.|",
				"u|chat-a|" + chatlog.StableID("u", "chat-a", chatlog.Position{Item: 0, HasItem: true, Message: 3}, "Hi Rex!") + "|assistant||Hi Rex!|",
				"u|conv-2|" + chatlog.StableID("u", "conv-2", chatlog.Position{Item: 2, HasItem: true, Message: 0}, "second") + "|user||second|",
			},
			bad: []string{"item 1, message 0: messages"},
		},
		{
			name: "openai jsonl",
			input: `{"thread_id": "x", "messages": [{"role": "user", "content": "a", "id": "1"}, {"role": "assistant", "content": "b", "id": "2"}]}
{"messages": "nope"}
`,
			opts:   chatlog.Options{Namespace: "u"},
			format: chatlog.FormatOpenAI,
			want:   []string{"u|x|1|user||a|", "u|x|2|assistant||b|"},
			bad:    []string{"line 2: line"},
		},
		{
			name:   "openai bare message array",
			input:  `[{"role": "user", "content": "hello", "id": "m1"}, {"role": "assistant", "content": "hey", "id": "m2"}]`,
			opts:   chatlog.Options{Namespace: "u", ThreadID: "th"},
			format: chatlog.FormatOpenAI,
			want:   []string{"u|th|m1|user||hello|", "u|th|m2|assistant||hey|"},
		},
		{
			name:   "chatgpt export: current branch only, hidden and bad conversations",
			input:  chatgptExport,
			opts:   chatlog.Options{Namespace: "me"},
			format: chatlog.FormatChatGPT,
			want: []string{
				"me|c1|n1|user||I fly to Lisbon in May.|2024-01-01T00:00:00Z",
				"me|c1|n3|assistant||Lisbon is lovely\nin May.|2024-01-01T00:00:20Z",
				"me|c1|n4|user||Thanks!|2024-01-01T00:00:30Z",
			},
			bad: []string{"item 1, message 0: current_node", "item 2, message 0: mapping"},
		},
		{
			name:   "chatgpt export needs a namespace",
			input:  chatgptExport,
			format: chatlog.FormatChatGPT,
			bad: []string{"item 0, message 0: namespace", "item 0, message 1: namespace", "item 0, message 2: namespace",
				"item 1, message 0: current_node", "item 2, message 0: mapping"},
		},
		{
			name:   "locomo conversation file",
			input:  string(locomoFile),
			opts:   chatlog.Options{Name: "/data/77.json"},
			format: chatlog.FormatLoCoMo,
			want: []string{
				"bench/locomo/77|session_1|D1:1|user|Ann|Hi Bo!|2023-05-08T13:56:00Z",
				"bench/locomo/77|session_1|D1:2|user|Bo|Look [photo: a cat on a mat]|2023-05-08T13:56:00Z",
				"bench/locomo/77|session_2|D2:1|user|Ann|Back again.|2023-05-09T10:00:00Z",
			},
		},
		{
			name:   "locomo sample array under a namespace prefix",
			input:  `[{"sample_id": "conv-1", "conversation": ` + string(locomoFile) + `}, {"sample_id": "x"}]`,
			opts:   chatlog.Options{Namespace: "imports"},
			format: chatlog.FormatLoCoMo,
			want: []string{
				"imports/conv-1|session_1|D1:1|user|Ann|Hi Bo!|2023-05-08T13:56:00Z",
				"imports/conv-1|session_1|D1:2|user|Bo|Look [photo: a cat on a mat]|2023-05-08T13:56:00Z",
				"imports/conv-1|session_2|D2:1|user|Ann|Back again.|2023-05-09T10:00:00Z",
			},
			bad: []string{"item 1, message 0: sample_id"},
		},
		{
			name:   "format forced",
			input:  `{"messages": [{"role": "user", "content": "a"}]}`,
			opts:   chatlog.Options{Format: chatlog.FormatJSONL, Namespace: "u"},
			format: chatlog.FormatJSONL,
			bad:    []string{"line 1: messages[0].content"},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			format, recs, bad, err := readAll(t, tc.input, tc.opts)
			if err != nil {
				t.Fatalf("read: %v", err)
			}
			if format != tc.format {
				t.Errorf("format %q, want %q", format, tc.format)
			}
			if got := summary(recs); strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("records:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
			if strings.Join(bad, "\n") != strings.Join(tc.bad, "\n") {
				t.Errorf("bad records:\n%s\nwant:\n%s", strings.Join(bad, "\n"), strings.Join(tc.bad, "\n"))
			}
		})
	}
}

func TestReadersFatal(t *testing.T) {
	cases := []struct {
		name  string
		input string
		opts  chatlog.Options
	}{
		{"empty input", "  \n", chatlog.Options{}},
		{"not json", "hello world", chatlog.Options{}},
		{"unknown array", `[{"foo": 1}]`, chatlog.Options{}},
		{"truncated chatgpt array", `[{"conversation_id": "c", "mapping": {}, "current_node": "a"}, {"mapp`, chatlog.Options{Namespace: "u"}},
		{"unknown format flag", `{}`, chatlog.Options{Format: "yaml"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, _, _, err := readAll(t, tc.input, tc.opts)
			if !errors.Is(err, kgmem.ErrInvalid) || chatlog.IsRecordError(err) {
				t.Errorf("error %v, want a fatal ErrInvalid", err)
			}
		})
	}
}

func TestLineTooLong(t *testing.T) {
	long := `{"namespace": "u", "content": "` + strings.Repeat("x", 5000) + `"}`
	input := long + "\n" + `{"namespace": "u", "id": "ok", "content": "fine"}` + "\n"
	_, recs, bad, err := readAll(t, input, chatlog.Options{Format: chatlog.FormatJSONL, MaxLineBytes: 1000})
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 1 || recs[0].Message.ID != "ok" || recs[0].Pos.Line != 2 {
		t.Errorf("records %v, want only line 2", summary(recs))
	}
	if strings.Join(bad, ",") != "line 1: line" {
		t.Errorf("bad %v, want line 1", bad)
	}
}

func TestStableIDsAcrossReads(t *testing.T) {
	input := `{"namespace": "u", "thread_id": "t", "content": "same"}
{"namespace": "u", "thread_id": "t", "content": "same"}
`
	_, a, _, err := readAll(t, input, chatlog.Options{})
	if err != nil {
		t.Fatal(err)
	}
	_, b, _, err := readAll(t, input, chatlog.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if a[0].Message.ID != b[0].Message.ID || a[1].Message.ID != b[1].Message.ID {
		t.Error("ids differ between two reads of the same input")
	}
	if a[0].Message.ID == a[1].Message.ID {
		t.Error("two identical lines at different positions got the same id")
	}
}
