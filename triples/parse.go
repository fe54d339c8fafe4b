package triples

import (
	"bytes"
	"encoding/json"
	"errors"
	"regexp"
	"strings"
)

// thinkBlock matches the reasoning preamble some models emit before the answer.
var thinkBlock = regexp.MustCompile(`(?s)<think>.*?</think>`)

// codeFence matches a Markdown code fence around the answer.
var codeFence = regexp.MustCompile("(?s)```[a-zA-Z0-9_-]*\\s*\n?(.*?)```")

// errNoJSON is returned when the output holds no JSON object at all.
var errNoJSON = errors.New("no JSON object in the output")

// extractJSON finds the JSON object in a model's answer and returns it as
// valid JSON text. It strips reasoning blocks and code fences, takes the first
// complete outermost object, and otherwise repairs what is safe to repair:
// trailing commas, and truncation (the answer is cut back to the last complete
// value and the open brackets are closed; a half-written value is dropped, never
// guessed). repaired describes a repair ("" when none was needed).
func extractJSON(s string) (raw string, repaired string, err error) {
	s = thinkBlock.ReplaceAllString(s, "")
	if m := codeFence.FindStringSubmatch(s); m != nil && strings.Contains(m[1], "{") {
		s = m[1]
	} else if i := strings.Index(s, "```"); i >= 0 && !strings.Contains(s[i+3:], "```") {
		// An opening fence whose closing fence was truncated away.
		s = s[i+3:]
		if nl := strings.IndexByte(s, '\n'); nl >= 0 && !strings.Contains(s[:nl], "{") {
			s = s[nl+1:]
		}
	}
	start := strings.IndexByte(s, '{')
	if start < 0 {
		return "", "", errNoJSON
	}
	s = s[start:]
	dec := json.NewDecoder(strings.NewReader(s))
	var probe json.RawMessage
	if err := dec.Decode(&probe); err == nil {
		return string(probe), "", nil
	}
	fixed := removeTrailingCommas(s)
	dec = json.NewDecoder(strings.NewReader(fixed))
	if err := dec.Decode(&probe); err == nil {
		return string(probe), "had trailing commas (repaired)", nil
	}
	cut, ok := closeTruncated(fixed)
	if !ok {
		return "", "", errors.New("malformed JSON that cannot be repaired safely")
	}
	if !json.Valid([]byte(cut)) {
		return "", "", errors.New("malformed JSON that cannot be repaired safely")
	}
	return cut, "was truncated; kept the complete part", nil
}

// removeTrailingCommas drops commas that directly precede a closing bracket,
// outside strings.
func removeTrailingCommas(s string) string {
	var b strings.Builder
	inStr, esc := false, false
	for i := 0; i < len(s); i++ {
		ch := s[i]
		if inStr {
			b.WriteByte(ch)
			switch {
			case esc:
				esc = false
			case ch == '\\':
				esc = true
			case ch == '"':
				inStr = false
			}
			continue
		}
		if ch == '"' {
			inStr = true
		}
		if ch == ',' {
			j := i + 1
			for j < len(s) && (s[j] == ' ' || s[j] == '\n' || s[j] == '\r' || s[j] == '\t') {
				j++
			}
			if j < len(s) && (s[j] == '}' || s[j] == ']') {
				continue
			}
		}
		b.WriteByte(ch)
	}
	return b.String()
}

// closeTruncated cuts s back to the last point where every value so far is
// complete (just after an opening bracket, just before a comma, or just after a
// closing bracket) and appends the closers of the brackets still open.
func closeTruncated(s string) (string, bool) {
	var stack []byte
	bestCut, bestStack := -1, []byte(nil)
	mark := func(pos int) {
		bestCut = pos
		bestStack = append(bestStack[:0], stack...)
	}
	inStr, esc := false, false
	for i := 0; i < len(s); i++ {
		ch := s[i]
		if inStr {
			switch {
			case esc:
				esc = false
			case ch == '\\':
				esc = true
			case ch == '"':
				inStr = false
			}
			continue
		}
		switch ch {
		case '"':
			inStr = true
		case '{', '[':
			stack = append(stack, ch)
			mark(i + 1)
		case '}', ']':
			if len(stack) == 0 {
				return "", false
			}
			stack = stack[:len(stack)-1]
			if len(stack) == 0 {
				return s[:i+1], true
			}
			mark(i + 1)
		case ',':
			mark(i)
		}
	}
	if bestCut < 0 {
		return "", false
	}
	var b bytes.Buffer
	b.WriteString(strings.TrimRight(s[:bestCut], " \t\r\n"))
	// A cut just after "key": { is fine; a cut after "key": with nothing is not
	// produced because colons are never cut points.
	for i := len(bestStack) - 1; i >= 0; i-- {
		if bestStack[i] == '{' {
			b.WriteByte('}')
		} else {
			b.WriteByte(']')
		}
	}
	return b.String(), true
}
