package kgmem

import "encoding/json"

// Bounds on the free-form JSON a client stores with a record. A record is
// read back by every list and search that returns it, by clients whose JSON
// parsers have their own limits (Python's recursion limit is about 1,000
// levels), so the bounds are checked at write time.
const (
	// MaxMetadataDepth is how deeply the metadata of a message or fact may
	// nest: the metadata object itself is level 1, each object or array
	// inside it one more. 32 leaves room for any real document shape and
	// stays far below every mainstream parser's limit.
	MaxMetadataDepth = 32
	// MaxMetadataBytes bounds the metadata of one message or fact, encoded
	// as compact JSON: 16 KiB, half a message's content limit (32 KiB), so
	// a search page of 100 results carries at most 1.6 MB of metadata.
	MaxMetadataBytes = 16 << 10
	// MaxItemValueBytes bounds an item's value, encoded as compact JSON:
	// 64 KiB, a document of twice a message's content limit. Its depth is
	// bounded by MaxMetadataDepth.
	MaxItemValueBytes = 64 << 10
)

// CheckMetadata validates the metadata of one record: at most
// MaxMetadataDepth levels deep and MaxMetadataBytes as compact JSON. It
// fails with a *FieldError naming field (422).
func CheckMetadata(field string, m map[string]any) error {
	if m == nil {
		return nil
	}
	return checkJSONBounds(field, m, MaxMetadataBytes)
}

// checkJSONBounds checks the depth of a decoded JSON value and the size of
// its compact encoding.
func checkJSONBounds(field string, v any, maxBytes int) error {
	if d := jsonDepth(v, 0); d > MaxMetadataDepth {
		return Unprocessablef(field, "nests deeper than %d levels, at most %d allowed", MaxMetadataDepth, MaxMetadataDepth)
	}
	raw, err := json.Marshal(v)
	if err != nil {
		return Invalidf(field, "cannot be encoded as JSON: %v", err)
	}
	if len(raw) > maxBytes {
		return Unprocessablef(field, "is %d bytes as compact JSON, at most %d allowed", len(raw), maxBytes)
	}
	return nil
}

// jsonDepth returns the nesting depth of v (a scalar is 0, an object or
// array one more than its deepest member), stopping once past the limit.
func jsonDepth(v any, depth int) int {
	if depth > MaxMetadataDepth {
		return depth
	}
	deepest := depth
	switch x := v.(type) {
	case map[string]any:
		deepest = depth + 1
		for _, e := range x {
			deepest = max(deepest, jsonDepth(e, depth+1))
		}
	case []any:
		deepest = depth + 1
		for _, e := range x {
			deepest = max(deepest, jsonDepth(e, depth+1))
		}
	}
	return deepest
}

// checkItemBounds bounds an item value as CheckMetadata bounds metadata,
// with MaxItemValueBytes.
func checkItemBounds(field string, raw json.RawMessage, v any) error {
	if d := jsonDepth(v, 0); d > MaxMetadataDepth {
		return Unprocessablef(field, "nests deeper than %d levels, at most %d allowed", MaxMetadataDepth, MaxMetadataDepth)
	}
	if n := compactLen(raw); n > MaxItemValueBytes {
		return Unprocessablef(field, "is %d bytes as compact JSON, at most %d allowed", n, MaxItemValueBytes)
	}
	return nil
}

// compactLen is the length of raw without insignificant white space.
func compactLen(raw json.RawMessage) int {
	n, inString, escaped := 0, false, false
	for _, b := range raw {
		switch {
		case escaped:
			escaped = false
		case inString && b == '\\':
			escaped = true
		case b == '"':
			inString = !inString
		case !inString && (b == ' ' || b == '\t' || b == '\n' || b == '\r'):
			continue
		}
		n++
	}
	return n
}
