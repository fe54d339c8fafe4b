package chatlog

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/kgmem/kgmem"
)

// arrayStream token-streams a top-level JSON array: one element decoded at a
// time, so memory is bounded by the largest element, not the file.
type arrayStream struct {
	dec     *json.Decoder
	started bool
	index   int
}

func newArrayStream(r io.Reader) *arrayStream {
	return &arrayStream{dec: json.NewDecoder(r), index: -1}
}

// next decodes the next element into dst, returning its 0-based index; io.EOF
// after the closing bracket. A syntax error ends the stream; an element of
// the wrong shape is a *RecordError and the stream goes on.
func (a *arrayStream) next(dst any) (int, error) {
	if !a.started {
		tok, err := a.dec.Token()
		if err != nil {
			return 0, fmt.Errorf("read JSON array: %w", syntaxErr(err))
		}
		if d, ok := tok.(json.Delim); !ok || d != '[' {
			return 0, kgmem.Invalidf("input", "is not a JSON array (starts with %v)", tok)
		}
		a.started = true
	}
	if !a.dec.More() {
		if _, err := a.dec.Token(); err != nil { // the closing bracket
			return 0, fmt.Errorf("read JSON array: %w", syntaxErr(err))
		}
		return 0, io.EOF
	}
	a.index++
	var raw json.RawMessage
	if err := a.dec.Decode(&raw); err != nil {
		return a.index, fmt.Errorf("item %d: %w", a.index, syntaxErr(err))
	}
	if err := json.Unmarshal(raw, dst); err != nil {
		return a.index, badRecord(Position{Item: a.index, HasItem: true}, "item", "has the wrong shape: %v", err)
	}
	return a.index, nil
}

// syntaxErr marks malformed JSON as invalid input; I/O errors pass through.
func syntaxErr(err error) error {
	var se *json.SyntaxError
	if errors.As(err, &se) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		return fmt.Errorf("%w: malformed or truncated JSON: %v", kgmem.ErrInvalid, err)
	}
	return err
}
