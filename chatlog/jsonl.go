package chatlog

import (
	"bufio"
	"encoding/json"
	"io"
)

// jsonlMessage is one line of FormatJSONL.
type jsonlMessage struct {
	Namespace string         `json:"namespace"`
	ThreadID  string         `json:"thread_id"`
	ID        string         `json:"id"`
	Role      string         `json:"role"`
	Name      string         `json:"name"`
	Content   string         `json:"content"`
	Timestamp flexTime       `json:"timestamp"`
	Metadata  map[string]any `json:"metadata"`
}

type jsonlReader struct {
	lines lineReader
	opts  Options
}

func newJSONL(br *bufio.Reader, opts Options) *jsonlReader {
	return &jsonlReader{lines: lineReader{br: br, max: opts.MaxLineBytes}, opts: opts}
}

// Format implements Reader.
func (r *jsonlReader) Format() Format { return FormatJSONL }

// Next implements Reader.
func (r *jsonlReader) Next() (Record, error) {
	line, n, err := r.lines.next()
	pos := Position{Line: n}
	switch {
	case err == errLineTooLong:
		return Record{}, badRecord(pos, "line", "is longer than %d bytes; skipped", r.opts.MaxLineBytes)
	case err == io.EOF:
		return Record{}, io.EOF
	case err != nil:
		return Record{}, err
	}
	var m jsonlMessage
	if err := json.Unmarshal(line, &m); err != nil {
		return Record{}, badRecord(pos, "line", "is not a JSON message object: %v", err)
	}
	rec := Record{ThreadID: m.ThreadID, Pos: pos}
	rec.Message.ID, rec.Message.Role, rec.Message.Name, rec.Message.Content = m.ID, m.Role, m.Name, m.Content
	rec.Message.Timestamp, rec.Message.Metadata = m.Timestamp.Time, m.Metadata
	return r.opts.finish(rec, m.Namespace)
}
