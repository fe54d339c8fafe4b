package kgmem

import (
	"fmt"
	"strings"
)

// Namespace labels: clients whose namespaces are tuples of free-text
// labels (LangGraph's stores: ("memories", "user 42")) map them to kgmem
// namespaces one label per segment, reversibly. Letters, digits, '_' and
// '-' stay as they are; every other byte of the label's UTF-8 becomes '.'
// and two upper-case hex digits ("user 42" → "user.2042", "ü" → ".C3.BC").
// '.' is free to be the escape because it is only ever written escaped
// (LangGraph forbids it in labels anyway). Every namespace built this way
// is valid, and each has exactly one spelling, so Labels inverts
// NamespaceFromLabels and refuses anything else.

// NamespaceFromLabels encodes labels (1 to MaxNamespaceDepth, none empty) as
// a namespace. A label whose encoding is longer than MaxNamespaceSegment is
// an error wrapping ErrInvalid on field "namespace".
func NamespaceFromLabels(labels ...string) (Namespace, error) {
	if len(labels) == 0 || len(labels) > MaxNamespaceDepth {
		return "", Invalidf("namespace", "has %d labels, 1 to %d allowed", len(labels), MaxNamespaceDepth)
	}
	segs := make([]string, len(labels))
	for i, label := range labels {
		if label == "" {
			return "", Invalidf("namespace", "label %d is empty", i+1)
		}
		var b strings.Builder
		for j := 0; j < len(label); j++ {
			if c := label[j]; keptInLabel(c) {
				b.WriteByte(c)
			} else {
				fmt.Fprintf(&b, ".%02X", c)
			}
		}
		if b.Len() > MaxNamespaceSegment {
			return "", Invalidf("namespace", "label %d is %d characters once encoded, at most %d allowed (each byte other than a letter, digit, '_' or '-' takes 3)", i+1, b.Len(), MaxNamespaceSegment)
		}
		segs[i] = b.String()
	}
	return ParseNamespace(strings.Join(segs, "/"))
}

// Labels decodes a namespace written by NamespaceFromLabels back into its
// labels; a namespace not spelled that way (a '.' not followed by two
// upper-case hex digits of a byte that needed escaping) is an error
// wrapping ErrInvalid on field "namespace".
func (n Namespace) Labels() ([]string, error) {
	if _, err := ParseNamespace(string(n)); err != nil {
		return nil, err
	}
	segs := strings.Split(string(n), "/")
	labels := make([]string, len(segs))
	for i, seg := range segs {
		var b strings.Builder
		for j := 0; j < len(seg); j++ {
			c := seg[j]
			if c != '.' {
				b.WriteByte(c)
				continue
			}
			if j+2 >= len(seg) {
				return nil, Invalidf("namespace", "segment %d: '.' must start an escape like .2F", i+1)
			}
			hi, okHi := upperHex(seg[j+1])
			lo, okLo := upperHex(seg[j+2])
			if !okHi || !okLo {
				return nil, Invalidf("namespace", "segment %d: %q is not an escape (two upper-case hex digits)", i+1, seg[j:j+3])
			}
			v := hi<<4 | lo
			if keptInLabel(v) {
				return nil, Invalidf("namespace", "segment %d: %q escapes %q, which is written as itself", i+1, seg[j:j+3], string(rune(v)))
			}
			b.WriteByte(v)
			j += 2
		}
		labels[i] = b.String()
	}
	return labels, nil
}

// keptInLabel reports whether a label byte is written as itself.
func keptInLabel(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-'
}

func upperHex(c byte) (byte, bool) {
	switch {
	case c >= '0' && c <= '9':
		return c - '0', true
	case c >= 'A' && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}
