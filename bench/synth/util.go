package synth

import (
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"strings"
)

// sortRems sorts s by less (a stable sort, so equal elements keep their order).
func sortRems[T any](s []T, less func(a, b T) bool) {
	slices.SortStableFunc(s, func(a, b T) int {
		switch {
		case less(a, b):
			return -1
		case less(b, a):
			return 1
		}
		return 0
	})
}

// stableID is a deterministic id: prefix, "_", 24 hex digits of a digest of parts.
func stableID(prefix string, parts ...string) string {
	h := sha256.New()
	for _, p := range parts {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	return prefix + "_" + hex.EncodeToString(h.Sum(nil))[:24]
}

// title capitalises the first letter of every word ("data platform" → "Data Platform").
func title(s string) string {
	words := strings.Fields(s)
	for i, w := range words {
		words[i] = strings.ToUpper(w[:1]) + w[1:]
	}
	return strings.Join(words, " ")
}
