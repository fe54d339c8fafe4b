package kgmem

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"time"
	"unicode/utf8"
)

// Item is a JSON document addressed by a key within a namespace: the record
// LangGraph's stores keep (BaseStore items). Unlike an episode, which is a
// message kept verbatim, an item is overwritten by a put with the same key
// and can be deleted or given a TTL; like every record kind it is
// searchable (BM25 and vector over Text), and the forgetting curve weighs it
// in search and is reinforced when it is recalled, but the forgetting sweep
// never forgets it: an item lives until it is deleted or expires.
type Item struct {
	// ID is ItemID(Namespace, Key).
	ID        string    `json:"id"`
	Namespace Namespace `json:"namespace"`
	// Key is the client's key, unique within the namespace.
	Key string `json:"key"`
	// Value is a JSON object, stored as given.
	Value json.RawMessage `json:"value"`
	// Text is what search indexes: the texts of the value's index fields
	// (ItemText). Empty means the item is not searched, only listed.
	Text string `json:"text"`
	// FactIDs are the facts extracted from the item's text (their
	// provenance cites the item's id), for the rewrite or deletion of the
	// item to update them.
	FactIDs []string `json:"fact_ids,omitempty"`
	// CreatedAt is when the key was first put; UpdatedAt when it was last put.
	CreatedAt time.Time  `json:"created_at"`
	UpdatedAt time.Time  `json:"updated_at"`
	Decay     DecayState `json:"decay"`
	// TTL is the item's time to live in minutes, as LangGraph's stores take
	// it: the item expires TTL minutes after it was put, or after a read
	// that refreshed it. Zero with a nil ExpiresAt means it never expires.
	TTL float64 `json:"ttl,omitempty"`
	// ExpiresAt is when the item expires (nil: never). An expired item is
	// hidden from reads and deleted by the TTL sweeper.
	ExpiresAt *time.Time `json:"expires_at,omitempty"`
}

// Expired reports whether the item has expired at t.
func (it Item) Expired(t time.Time) bool {
	return it.ExpiresAt != nil && !t.Before(*it.ExpiresAt)
}

// ExpiryAfter returns when an item with this TTL expires if put or
// refreshed at t: nil when it has none.
func ExpiryAfter(ttl *float64, t time.Time) *time.Time {
	if ttl == nil {
		return nil
	}
	at := t.Add(time.Duration(*ttl * float64(time.Minute))).Truncate(time.Millisecond)
	return &at
}

// ItemExpiry sets one item's expiry (GraphStore.RefreshItems).
type ItemExpiry struct {
	ID        string
	ExpiresAt time.Time
}

// MaxItemTTL bounds an item's TTL in minutes (100 years).
const MaxItemTTL = 100 * 365 * 24 * 60

// CheckItemTTL validates a TTL in minutes: nil (no expiry) or a number
// from 0 (expires at once) to MaxItemTTL.
func CheckItemTTL(field string, ttl *float64) error {
	switch {
	case ttl == nil:
		return nil
	case math.IsNaN(*ttl) || math.IsInf(*ttl, 0):
		return Invalidf(field, "must be a finite number of minutes")
	case *ttl < 0:
		return Invalidf(field, "is %v, must be a number of minutes >= 0 (0 expires the item at once), or null for no expiry", *ttl)
	case *ttl > MaxItemTTL:
		return Invalidf(field, "is %v minutes, at most %d (100 years) allowed", *ttl, MaxItemTTL)
	}
	return nil
}

// Item limits.
const (
	// MaxItemKeyBytes bounds an item's key.
	MaxItemKeyBytes = 1024
	// MaxItemIndexFields bounds the index fields of one put.
	MaxItemIndexFields = 32
)

// ItemID derives the stable id of the item (namespace, key): putting the
// same key again addresses the same record.
func ItemID(ns Namespace, key string) string {
	return "it_" + digest(string(ns), "item", key)
}

// CheckItemKey validates an item key: 1 to MaxItemKeyBytes bytes of valid
// UTF-8 without NUL.
func CheckItemKey(field, key string) error {
	switch {
	case key == "":
		return Invalidf(field, "is required")
	case !utf8.ValidString(key):
		return Invalidf(field, "is not valid UTF-8")
	case strings.ContainsRune(key, 0):
		return Invalidf(field, "contains a NUL character")
	case len(key) > MaxItemKeyBytes:
		return TooLong(field, key, MaxItemKeyBytes)
	}
	return nil
}

// ItemText is the text search indexes for value: the text of every
// string, number and boolean found at the index fields, one per line. A
// field is a path of object members separated by '.', where a member may be
// followed by "[n]" (one element of an array) or "[*]" (every element), as
// in LangGraph's index fields ("content", "profile.name", "tags[*]"); the
// path "$" is the whole value. Fields that are absent contribute nothing.
// A nil fields slice means the whole value; an empty one means no text.
func ItemText(value json.RawMessage, fields []string) (string, error) {
	if fields == nil {
		fields = []string{"$"}
	}
	if len(fields) > MaxItemIndexFields {
		return "", Invalidf("index", "has %d fields, at most %d allowed", len(fields), MaxItemIndexFields)
	}
	root, err := decodeJSON(value)
	if err != nil {
		return "", Invalidf("value", "is not valid JSON: %v", err)
	}
	var lines []string
	for i, f := range fields {
		steps, err := parseFieldPath(f)
		if err != nil {
			return "", Unprocessablef(fmt.Sprintf("index[%d]", i), "%v", err)
		}
		for _, v := range walkPath(root, steps) {
			lines = appendLeaves(lines, v)
		}
	}
	return strings.Join(lines, "\n"), nil
}

// pathStep is one step of an index field: a member, then optionally an
// array element (index ≥ 0) or every element (all).
type pathStep struct {
	member string
	index  int
	hasIdx bool
	all    bool
}

// parseFieldPath splits an index field into steps.
func parseFieldPath(f string) ([]pathStep, error) {
	if f == "$" {
		return nil, nil
	}
	if f == "" {
		return nil, fmt.Errorf("is empty")
	}
	var steps []pathStep
	for part := range strings.SplitSeq(f, ".") {
		st := pathStep{member: part}
		if open := strings.IndexByte(part, '['); open >= 0 {
			if !strings.HasSuffix(part, "]") {
				return nil, fmt.Errorf("%q: '[' without a closing ']' at the end of the member", f)
			}
			st.member = part[:open]
			inner := part[open+1 : len(part)-1]
			if inner == "*" {
				st.all = true
			} else {
				n, err := parseIndex(inner)
				if err != nil {
					return nil, fmt.Errorf("%q: %v", f, err)
				}
				st.index, st.hasIdx = n, true
			}
		}
		if st.member == "" {
			return nil, fmt.Errorf("%q: has an empty member", f)
		}
		steps = append(steps, st)
	}
	return steps, nil
}

// parseIndex reads a non-negative array index.
func parseIndex(s string) (int, error) {
	if s == "" || len(s) > 9 {
		return 0, fmt.Errorf("array index %q: want \"*\" or a number", s)
	}
	n := 0
	for _, c := range s {
		if c < '0' || c > '9' {
			return 0, fmt.Errorf("array index %q: want \"*\" or a number", s)
		}
		n = n*10 + int(c-'0')
	}
	return n, nil
}

// walkPath returns the values at steps in v.
func walkPath(v any, steps []pathStep) []any {
	cur := []any{v}
	for _, st := range steps {
		var next []any
		for _, c := range cur {
			obj, ok := c.(map[string]any)
			if !ok {
				continue
			}
			m, ok := obj[st.member]
			if !ok {
				continue
			}
			arr, isArr := m.([]any)
			switch {
			case st.all && isArr:
				next = append(next, arr...)
			case st.hasIdx && isArr && st.index < len(arr):
				next = append(next, arr[st.index])
			case !st.all && !st.hasIdx:
				next = append(next, m)
			}
		}
		cur = next
	}
	return cur
}

// appendLeaves appends the scalar texts in v, depth first, members in key order.
func appendLeaves(lines []string, v any) []string {
	switch x := v.(type) {
	case string:
		if strings.TrimSpace(x) != "" {
			lines = append(lines, x)
		}
	case json.Number:
		lines = append(lines, x.String())
	case bool:
		lines = append(lines, fmt.Sprint(x))
	case []any:
		for _, e := range x {
			lines = appendLeaves(lines, e)
		}
	case map[string]any:
		for _, k := range slices.Sorted(maps.Keys(x)) {
			lines = appendLeaves(lines, x[k])
		}
	}
	return lines
}

// decodeJSON decodes raw keeping numbers exact (json.Number).
func decodeJSON(raw json.RawMessage) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, fmt.Errorf("trailing data after the value")
	}
	return v, nil
}

// CheckItemValue validates an item value: a JSON object at most
// MaxMetadataDepth levels deep and MaxItemValueBytes as compact JSON.
func CheckItemValue(field string, value json.RawMessage) error {
	v, err := decodeJSON(value)
	if err != nil {
		return Invalidf(field, "is not valid JSON: %v", err)
	}
	if _, ok := v.(map[string]any); !ok {
		return Invalidf(field, "must be a JSON object")
	}
	return checkItemBounds(field, value, v)
}
