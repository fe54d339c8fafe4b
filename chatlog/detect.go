package chatlog

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/kgmem/kgmem"
)

// Format names a chat-log format.
type Format string

// The formats Open reads.
const (
	// FormatAuto sniffs the format from the first bytes.
	FormatAuto Format = ""
	// FormatJSONL is one message object per line: namespace, thread_id, id,
	// role, name, content, timestamp, metadata.
	FormatJSONL Format = "jsonl"
	// FormatOpenAI is OpenAI-style conversations, {"messages": [...]}, as a
	// JSON array or one per line, or a bare array of messages.
	FormatOpenAI Format = "openai"
	// FormatChatGPT is a ChatGPT data export's conversations.json.
	FormatChatGPT Format = "chatgpt"
	// FormatLoCoMo is a LoCoMo conversation object or an array of samples.
	FormatLoCoMo Format = "locomo"
)

// Formats lists the formats a user may name.
var Formats = []Format{FormatJSONL, FormatOpenAI, FormatChatGPT, FormatLoCoMo}

// ParseFormat parses a --format value ("auto" or empty: FormatAuto).
func ParseFormat(s string) (Format, error) {
	if s == "" || s == "auto" {
		return FormatAuto, nil
	}
	if f := Format(s); slices.Contains(Formats, f) {
		return f, nil
	}
	names := make([]string, len(Formats))
	for i, f := range Formats {
		names[i] = string(f)
	}
	return "", kgmem.Invalidf("format", "is %q; use auto, %s", s, strings.Join(names, ", "))
}

// Reader yields the records of one chat log.
type Reader interface {
	// Next returns the next record; io.EOF at the end; a *RecordError for one
	// bad record (call Next again); any other error ends the stream.
	Next() (Record, error)
	// Format is the format being read.
	Format() Format
}

// sniffBytes is how much of the input detection looks at.
const sniffBytes = 64 << 10

// Open returns a Reader of r in opts.Format, or in the format sniffed from
// r's first bytes. It reads r once, front to back.
func Open(r io.Reader, opts Options) (Reader, error) {
	opts = opts.withDefaults()
	br := bufio.NewReaderSize(r, sniffBytes)
	f := opts.Format
	if f == FormatAuto {
		var err error
		if f, err = Detect(br); err != nil {
			return nil, err
		}
	}
	switch f {
	case FormatJSONL:
		return newJSONL(br, opts), nil
	case FormatOpenAI:
		return newOpenAI(br, opts)
	case FormatChatGPT:
		return newChatGPT(br, opts)
	case FormatLoCoMo:
		return newLoCoMo(br, opts)
	}
	_, err := ParseFormat(string(f))
	return nil, err
}

// Detect sniffs the format from the first bytes of br without consuming them:
// the first top-level object's keys (or those of an array's first element).
func Detect(br *bufio.Reader) (Format, error) {
	head, err := br.Peek(sniffBytes)
	if err != nil && err != io.EOF && err != bufio.ErrBufferFull {
		return "", fmt.Errorf("read input: %w", err)
	}
	trimmed := bytes.TrimLeft(head, " \t\r\n\ufeff")
	if len(trimmed) == 0 {
		return "", kgmem.Invalidf("input", "is empty")
	}
	var keys []string
	switch trimmed[0] {
	case '[':
		keys = firstKeys(trimmed, 2)
		switch {
		case has(keys, "mapping"), has(keys, "current_node"):
			return FormatChatGPT, nil
		case has(keys, "messages"), has(keys, "role") && has(keys, "content"):
			return FormatOpenAI, nil
		case has(keys, "conversation"), has(keys, "sample_id"):
			return FormatLoCoMo, nil
		}
		return "", kgmem.Invalidf("format", "cannot tell the format of a JSON array whose first element has keys %v; give --format", keys)
	case '{':
		keys = firstKeys(trimmed, 1)
		switch {
		case has(keys, "speaker_a"), has(keys, "session_1"), has(keys, "conversation") && has(keys, "qa"):
			return FormatLoCoMo, nil
		case has(keys, "messages"):
			return FormatOpenAI, nil
		case has(keys, "mapping"):
			return FormatChatGPT, nil
		}
		return FormatJSONL, nil
	}
	return "", kgmem.Invalidf("format", "input starts with %q, not JSON; give --format", string(trimmed[:min(len(trimmed), 16)]))
}

func has(keys []string, k string) bool { return slices.Contains(keys, k) }

// firstKeys lists the keys of the first object at nesting depth (1: the top
// level object, 2: the first object inside a top-level array) found in head,
// which may be cut anywhere.
func firstKeys(head []byte, depth int) []string {
	dec := json.NewDecoder(bytes.NewReader(head))
	type frame struct{ obj, expectKey bool }
	var stack []frame
	var keys []string
	seen := false
	for {
		tok, err := dec.Token()
		if err != nil {
			return keys
		}
		// A scalar value or a closed container completes a value of its parent.
		valueDone := func() {
			if n := len(stack); n > 0 && stack[n-1].obj {
				stack[n-1].expectKey = true
			}
		}
		switch t := tok.(type) {
		case json.Delim:
			switch t {
			case '{', '[':
				if n := len(stack); n > 0 && stack[n-1].obj {
					stack[n-1].expectKey = false
				}
				stack = append(stack, frame{obj: t == '{', expectKey: t == '{'})
				if t == '{' && len(stack) == depth {
					if seen {
						return keys
					}
					seen = true
				}
			default:
				if len(stack) == depth && seen {
					return keys
				}
				stack = stack[:len(stack)-1]
				valueDone()
			}
		default:
			n := len(stack)
			if n > 0 && stack[n-1].obj && stack[n-1].expectKey {
				if s, ok := t.(string); ok && n == depth {
					keys = append(keys, s)
				}
				stack[n-1].expectKey = false
				continue
			}
			valueDone()
		}
	}
}
