package chatlog_test

import (
	"bytes"
	"errors"
	"io"
	"testing"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/chatlog"
)

// FuzzReader feeds arbitrary bytes to every chat-log reader (and to format
// detection): none may panic or loop; each ends with io.EOF or an error, a
// bad record is a *RecordError wrapping ErrInvalid, and every record it
// yields has a valid namespace and a thread id.
func FuzzReader(f *testing.F) {
	seeds := []string{
		`{"namespace":"acme","thread_id":"t1","id":"m1","role":"user","content":"hi","timestamp":"2024-01-01T00:00:00Z"}` + "\n" + `{"content":"second"}`,
		`[{"messages":[{"role":"user","content":"hello"},{"role":"assistant","content":[{"type":"text","text":"hi"}]}]}]`,
		`{"messages":[{"role":"user","content":"one per line"}]}` + "\n",
		`[{"title":"t","mapping":{"a":{"id":"a","message":{"author":{"role":"user"},"content":{"content_type":"text","parts":["hi"]},"create_time":1700000000},"parent":null,"children":[]}},"current_node":"a"}]`,
		`{"sample_id":"conv-1","conversation":{"speaker_a":"A","speaker_b":"B","session_1_date_time":"1:56 pm on 8 May, 2023","session_1":[{"speaker":"A","dia_id":"D1:1","text":"hi"}]}}`,
		``, `[`, `{`, "\x00\xff", `[{"messages":[`,
	}
	for _, s := range seeds {
		f.Add([]byte(s), uint8(0))
	}
	formats := append([]chatlog.Format{chatlog.FormatAuto}, chatlog.Formats...)
	f.Fuzz(func(t *testing.T, data []byte, pick uint8) {
		format := formats[int(pick)%len(formats)]
		r, err := chatlog.Open(bytes.NewReader(data), chatlog.Options{Format: format, Namespace: "fuzz"})
		if err != nil {
			return
		}
		// A record needs at least a few input bytes; more iterations than
		// bytes means the reader loops.
		for i := 0; ; i++ {
			if i > len(data)+10 {
				t.Fatalf("%s reader yielded more than %d records from %d bytes", format, i, len(data))
			}
			rec, err := r.Next()
			if errors.Is(err, io.EOF) {
				return
			}
			var re *chatlog.RecordError
			if errors.As(err, &re) {
				if !errors.Is(err, kgmem.ErrInvalid) {
					t.Fatalf("record error %v does not wrap ErrInvalid", err)
				}
				continue
			}
			if err != nil {
				return
			}
			if _, err := kgmem.ParseNamespace(string(rec.Namespace)); err != nil {
				t.Fatalf("%s record at %s has namespace %q: %v", format, rec.Pos, rec.Namespace, err)
			}
			if rec.ThreadID == "" {
				t.Fatalf("%s record at %s has no thread id", format, rec.Pos)
			}
		}
	})
}
