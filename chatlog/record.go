package chatlog

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/episodes"
)

// Record is one message of a chat log with where it goes and where it came from.
type Record struct {
	Namespace kgmem.Namespace
	ThreadID  string
	Message   episodes.Message
	Pos       Position
}

// Position locates a record in its source. Line is set for line-oriented
// input (JSONL, 1-based); Item is the 0-based index of the top-level array
// element (a conversation) and Message the 0-based ordinal of the message in
// it, for formats with several messages per element.
type Position struct {
	Line    int `json:"line,omitempty"`
	Item    int `json:"item,omitempty"`
	Message int `json:"message,omitempty"`
	// HasItem tells an Item of 0 from no item.
	HasItem bool `json:"-"`
}

// String renders the position for error reports ("line 12", "item 3, message 5").
func (p Position) String() string {
	var parts []string
	if p.Line > 0 {
		parts = append(parts, "line "+strconv.Itoa(p.Line))
	}
	if p.HasItem {
		parts = append(parts, "item "+strconv.Itoa(p.Item))
	}
	if p.HasItem || p.Message > 0 {
		parts = append(parts, "message "+strconv.Itoa(p.Message))
	}
	if len(parts) == 0 {
		return "start of input"
	}
	return strings.Join(parts, ", ")
}

// RecordError is one bad record: the stream goes on after it. It unwraps to
// the cause, which wraps kgmem.ErrInvalid.
type RecordError struct {
	Pos Position
	Err error
}

// Error implements error.
func (e *RecordError) Error() string { return e.Pos.String() + ": " + e.Err.Error() }

// Unwrap returns the cause.
func (e *RecordError) Unwrap() error { return e.Err }

// IsRecordError reports whether err is one bad record (skip it and go on)
// rather than the end of the stream.
func IsRecordError(err error) bool {
	var re *RecordError
	return errors.As(err, &re)
}

func badRecord(pos Position, field, format string, args ...any) error {
	return &RecordError{Pos: pos, Err: kgmem.Invalidf(field, format, args...)}
}

// Options tune a Reader.
type Options struct {
	// Format forces a format; FormatAuto (the zero value) sniffs it.
	Format Format
	// Namespace is used for records whose source names none (every format but
	// JSONL of messages has no namespace field). For LoCoMo it is the prefix of
	// one namespace per conversation (default "bench/locomo").
	Namespace kgmem.Namespace
	// ThreadID is used for JSONL messages without thread_id (default "default").
	ThreadID string
	// Name names the input, for formats that need an id from it (a LoCoMo
	// conversation file "26.json" is conversation "26").
	Name string
	// MaxLineBytes caps one JSONL line (default 16 MiB); longer lines are
	// skipped as bad records.
	MaxLineBytes int
	// Limits validate each message (default episodes.DefaultLimits), so a bad
	// message is reported alone instead of failing the batch it lands in.
	Limits episodes.Limits
}

func (o Options) withDefaults() Options {
	if o.ThreadID == "" {
		o.ThreadID = "default"
	}
	if o.MaxLineBytes <= 0 {
		o.MaxLineBytes = 16 << 20
	}
	if o.Limits.MaxMessages <= 0 {
		o.Limits = episodes.DefaultLimits()
	}
	return o
}

// finish resolves the record's namespace and id and validates the message
// as the engine will, so a bad message surfaces here with its position.
func (o Options) finish(rec Record, ns string) (Record, error) {
	switch {
	case ns != "":
		parsed, err := kgmem.ParseNamespace(ns)
		if err != nil {
			return Record{}, &RecordError{Pos: rec.Pos, Err: err}
		}
		rec.Namespace = parsed
	case rec.Namespace == "":
		if o.Namespace == "" {
			return Record{}, badRecord(rec.Pos, "namespace", "is missing; give it in the record or with --namespace")
		}
		rec.Namespace = o.Namespace
	}
	if rec.ThreadID == "" {
		rec.ThreadID = o.ThreadID
	}
	if rec.Message.ID == "" {
		rec.Message.ID = StableID(rec.Namespace, rec.ThreadID, rec.Pos, rec.Message.Content)
	}
	if _, err := episodes.Build(rec.Namespace, rec.ThreadID, []episodes.Message{rec.Message}, time.Time{}, o.Limits); err != nil {
		return Record{}, &RecordError{Pos: rec.Pos, Err: fmt.Errorf("invalid message: %w", err)}
	}
	return rec, nil
}

// StableID derives the id of a message whose source has none from its
// namespace, thread, position and content, so re-importing the same file
// finds the same ids and the server stores nothing twice.
func StableID(ns kgmem.Namespace, thread string, pos Position, content string) string {
	h := sha256.New()
	for _, p := range []string{string(ns), thread, pos.String(), content} {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	return "h_" + hex.EncodeToString(h.Sum(nil))[:24]
}
