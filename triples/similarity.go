package triples

import (
	"math"
	"strings"
)

// jaroWinkler is the Jaro–Winkler similarity of a and b in [0, 1] (1: equal),
// computed over runes with the standard prefix scale 0.1 and prefix cap 4.
func jaroWinkler(a, b string) float64 {
	ra, rb := []rune(a), []rune(b)
	if len(ra) == 0 && len(rb) == 0 {
		return 1
	}
	if len(ra) == 0 || len(rb) == 0 {
		return 0
	}
	window := max(len(ra), len(rb))/2 - 1
	window = max(window, 0)
	matchA := make([]bool, len(ra))
	matchB := make([]bool, len(rb))
	matches := 0
	for i := range ra {
		lo, hi := max(0, i-window), min(len(rb), i+window+1)
		for j := lo; j < hi; j++ {
			if !matchB[j] && ra[i] == rb[j] {
				matchA[i], matchB[j] = true, true
				matches++
				break
			}
		}
	}
	if matches == 0 {
		return 0
	}
	transpositions, k := 0, 0
	for i := range ra {
		if !matchA[i] {
			continue
		}
		for !matchB[k] {
			k++
		}
		if ra[i] != rb[k] {
			transpositions++
		}
		k++
	}
	m := float64(matches)
	jaro := (m/float64(len(ra)) + m/float64(len(rb)) + (m-float64(transpositions)/2)/m) / 3
	prefix := 0
	for prefix < min(4, len(ra), len(rb)) && ra[prefix] == rb[prefix] {
		prefix++
	}
	return jaro + float64(prefix)*0.1*(1-jaro)
}

// tokens splits a normalised name into words.
func tokens(key string) []string { return strings.Fields(key) }

// tokenSubset reports whether every word of small occurs in big and big has more words.
func tokenSubset(small, big string) bool {
	st, bt := tokens(small), tokens(big)
	if len(st) == 0 || len(st) >= len(bt) {
		return false
	}
	have := make(map[string]bool, len(bt))
	for _, t := range bt {
		have[t] = true
	}
	for _, t := range st {
		if !have[t] {
			return false
		}
	}
	return true
}

// cosine is the cosine similarity of two vectors (0 when either is zero or lengths differ).
func cosine(a, b []float32) float64 {
	if len(a) != len(b) || len(a) == 0 {
		return 0
	}
	var dot, na, nb float64
	for i := range a {
		dot += float64(a[i]) * float64(b[i])
		na += float64(a[i]) * float64(a[i])
		nb += float64(b[i]) * float64(b[i])
	}
	if na == 0 || nb == 0 {
		return 0
	}
	return dot / math.Sqrt(na*nb)
}

// wordSet returns the lower-cased words of a sentence, for "is this text richer" checks.
func wordSet(s string) map[string]bool {
	out := map[string]bool{}
	for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r > 127)
	}) {
		out[w] = true
	}
	return out
}

// tokenwiseSimilar reports whether two multi-word names have the same number of
// words, share one exactly and are close word by word ("kathy johnson",
// "katherine johnson").
func tokenwiseSimilar(a, b string) bool {
	at, bt := tokens(a), tokens(b)
	if len(at) < 2 || len(at) != len(bt) {
		return false
	}
	shared := false
	for i := range at {
		if at[i] == bt[i] {
			shared = true
		} else if jaroWinkler(at[i], bt[i]) < 0.75 {
			return false
		}
	}
	return shared
}
