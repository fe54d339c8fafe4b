package synth

import (
	"cmp"
	"math"
	"slices"

	"github.com/kgmem/kgmem"
)

// Scored is one record of an exact search and its cosine similarity.
type Scored struct {
	ID    string  `json:"id"`
	Score float64 `json:"score"`
}

// ExactTopK is the brute-force search the vector step is checked against:
// the k vectors most cosine-similar to q, best first, ties by id. Zero
// vectors have similarity 0 to everything.
func ExactTopK(q []float32, ids []string, vecs [][]float32, k int) []Scored {
	qn := norm(q)
	out := make([]Scored, 0, len(ids))
	for i, v := range vecs {
		var dot float64
		for j := range v {
			dot += float64(q[j]) * float64(v[j])
		}
		s := 0.0
		if vn := norm(v); qn > 0 && vn > 0 {
			s = dot / (qn * vn)
		}
		out = append(out, Scored{ID: ids[i], Score: s})
	}
	slices.SortFunc(out, func(a, b Scored) int { return cmp.Or(cmp.Compare(b.Score, a.Score), cmp.Compare(a.ID, b.ID)) })
	return out[:min(k, len(out))]
}

func norm(v []float32) float64 {
	var s float64
	for _, x := range v {
		s += float64(x) * float64(x)
	}
	return math.Sqrt(s)
}

// tieTolerance is how close (in cosine) an approximate hit's score must be
// to the k-th exact score to count as a tie rather than a miss.
const tieTolerance = 1e-5

// Recall is recall@k of the approximate hits ann against the exact top k:
// the share of the exact top k the first k hits found. A hit not in the
// exact list still counts when its score ties the k-th exact score (within
// tieTolerance), since which of equally similar records an exact search
// returns is arbitrary. ok is false when the exact list is empty (nothing to
// find).
func Recall(ann []kgmem.Hit, exact []Scored, k int) (recall float64, ok bool) {
	want := min(k, len(exact))
	if want == 0 {
		return 0, false
	}
	inExact := make(map[string]bool, want)
	for _, s := range exact[:want] {
		inExact[s.ID] = true
	}
	kth := exact[want-1].Score
	found := 0
	for _, h := range ann[:min(k, len(ann))] {
		if inExact[h.ID] || h.Score >= kth-tieTolerance {
			found++
		}
	}
	return float64(min(found, want)) / float64(want), true
}
