package memory

import (
	"github.com/kljensen/snowball/english"
)

// diversify reorders ranked results by maximal marginal relevance and keeps
// the first limit: each next result maximises
//
//	λ·relevance − (1 − λ)·max similarity to the results already chosen
//
// with relevance the final score over the best one and similarity the
// Jaccard overlap of the results' stemmed keywords. λ ≥ 1 keeps the order.
// Near-duplicates (the same fact restated, the same complaint in three
// messages) then give way to results that add something.
func diversify[R any](ranked []R, limit int, lambda float64, text func(R) string, score func(R) float64) []R {
	if lambda >= 1 || len(ranked) <= 1 {
		return ranked[:min(limit, len(ranked))]
	}
	top := score(ranked[0])
	if top <= 0 {
		return ranked[:min(limit, len(ranked))]
	}
	terms := make([]map[string]bool, len(ranked))
	for i, r := range ranked {
		terms[i] = stemSet(text(r))
	}
	chosen := make([]int, 0, min(limit, len(ranked)))
	used := make([]bool, len(ranked))
	maxSim := make([]float64, len(ranked)) // to the chosen results so far
	for len(chosen) < limit && len(chosen) < len(ranked) {
		best, bestVal := -1, 0.0
		for i := range ranked {
			if used[i] {
				continue
			}
			v := lambda*score(ranked[i])/top - (1-lambda)*maxSim[i]
			if best < 0 || v > bestVal {
				best, bestVal = i, v
			}
		}
		used[best] = true
		chosen = append(chosen, best)
		for i := range ranked {
			if !used[i] {
				maxSim[i] = max(maxSim[i], jaccard(terms[i], terms[best]))
			}
		}
	}
	out := make([]R, len(chosen))
	for i, c := range chosen {
		out[i] = ranked[c]
	}
	return out
}

// stemSet is the set of stemmed keywords of a text.
func stemSet(text string) map[string]bool {
	set := map[string]bool{}
	for _, w := range queryWords(text) {
		if !isQueryStopWord(w) {
			set[english.Stem(w, false)] = true
		}
	}
	return set
}

// jaccard is |a ∩ b| / |a ∪ b| (0 for two empty sets).
func jaccard(a, b map[string]bool) float64 {
	if len(a) == 0 && len(b) == 0 {
		return 0
	}
	inter := 0
	for w := range a {
		if b[w] {
			inter++
		}
	}
	return float64(inter) / float64(len(a)+len(b)-inter)
}
