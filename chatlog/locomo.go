package chatlog

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/bench/locomo"
)

// locomoSample is one element of the released locomo10.json array.
type locomoSample struct {
	SampleID     string          `json:"sample_id"`
	Conversation json.RawMessage `json:"conversation"`
}

// maxLoCoMoObject caps a single-conversation LoCoMo file, which is decoded
// whole (the released files are under 300 KB each).
const maxLoCoMoObject = 64 << 20

type locomoReader struct {
	opts   Options
	array  *arrayStream
	single io.Reader
	q      queue
}

func newLoCoMo(br *bufio.Reader, opts Options) (*locomoReader, error) {
	r := &locomoReader{opts: opts}
	head, _ := br.Peek(sniffBytes)
	head = bytes.TrimLeft(head, " \t\r\n\ufeff")
	if len(head) > 0 && head[0] == '[' {
		r.array = newArrayStream(br)
	} else {
		r.single = br
	}
	return r, nil
}

// Format implements Reader.
func (r *locomoReader) Format() Format { return FormatLoCoMo }

// Next implements Reader.
func (r *locomoReader) Next() (Record, error) {
	for {
		if rec, err, ok := r.q.pop(); ok {
			return rec, err
		}
		if err := r.fill(); err != nil {
			return Record{}, err
		}
	}
}

func (r *locomoReader) fill() error {
	if r.single == nil && r.array == nil {
		return io.EOF
	}
	if r.single != nil {
		raw, err := io.ReadAll(io.LimitReader(r.single, maxLoCoMoObject+1))
		r.single = nil
		if err != nil {
			return fmt.Errorf("read LoCoMo conversation: %w", err)
		}
		if len(raw) > maxLoCoMoObject {
			return kgmem.Invalidf("input", "a single LoCoMo conversation over %d bytes; split it", maxLoCoMoObject)
		}
		id := strings.TrimSuffix(filepath.Base(r.opts.Name), filepath.Ext(r.opts.Name))
		if id == "" || id == "." || id == "-" {
			id = "conversation"
		}
		// The per-conversation files hold the conversation itself; a sample
		// object wraps it under "conversation".
		var sample locomoSample
		if json.Unmarshal(raw, &sample) == nil && len(sample.Conversation) > 0 {
			if sample.SampleID != "" {
				id = sample.SampleID
			}
			raw = sample.Conversation
		}
		r.queueConversation(Position{}, id, raw)
		return nil
	}
	var sample locomoSample
	i, err := r.array.next(&sample)
	if err != nil {
		return err
	}
	pos := Position{Item: i, HasItem: true}
	if sample.SampleID == "" || len(sample.Conversation) == 0 {
		return badRecord(pos, "sample_id", "a LoCoMo sample needs sample_id and conversation")
	}
	r.queueConversation(pos, sample.SampleID, sample.Conversation)
	return nil
}

// queueConversation reuses bench/locomo's reading of a conversation: one
// thread per session, the dia_id as message id, the session date as timestamp.
func (r *locomoReader) queueConversation(base Position, id string, raw []byte) {
	conv, err := locomo.ParseConversation(id, raw)
	if err != nil {
		r.q.push(Record{}, &RecordError{Pos: base, Err: err})
		return
	}
	threads, err := locomo.Threads(conv)
	if err != nil {
		r.q.push(Record{}, &RecordError{Pos: base, Err: err})
		return
	}
	ns := ""
	if r.opts.Namespace != "" {
		ns = string(r.opts.Namespace) + "/" + id
	}
	k := 0
	for _, th := range threads {
		for _, m := range th.Messages {
			pos := base
			pos.Message = k
			k++
			rec := Record{Namespace: th.Namespace, ThreadID: th.ID, Pos: pos}
			rec.Message.ID, rec.Message.Role, rec.Message.Name = m.ID, m.Role, m.Name
			rec.Message.Content, rec.Message.Timestamp, rec.Message.Metadata = m.Content, m.Timestamp, m.Metadata
			rec, err := r.opts.finish(rec, ns)
			r.q.push(rec, err)
		}
	}
}
