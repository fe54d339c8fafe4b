package locomo

import (
	"math"
	"sort"
	"strings"
	"unicode"
)

// BM25 parameters of the baseline (the usual Okapi defaults).
const (
	BM25K1 = 1.2
	BM25B  = 0.75
)

// Tokenize lower-cases s, splits it into runs of letters, digits and '_'
// (Python's \w+), and drops NLTK English stop words. "Caroline's" gives
// "caroline" (the "s" is a stop word); "LGBTQ+" gives "lgbtq".
func Tokenize(s string) []string {
	words := strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !(unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_')
	})
	out := words[:0]
	for _, w := range words {
		if !stopWords[w] {
			out = append(out, w)
		}
	}
	return out
}

// BM25 is a plain Okapi BM25 index over a fixed list of documents:
//
//	score(d, q) = Σ_{t∈q} idf(t) · tf(t,d)·(k1+1) / (tf(t,d) + k1·(1 − b + b·|d|/avgdl))
//	idf(t)      = ln((N − df(t) + 0.5) / (df(t) + 0.5))
//
// with k1 = 1.2, b = 0.75, lengths counted in tokens after stop-word removal,
// and repeated query terms counted each time. It is immutable once built and
// safe for concurrent searches.
type BM25 struct {
	postings map[string][]posting
	lengths  []int
	avgLen   float64
}

type posting struct {
	doc int
	tf  int
}

// NewBM25 indexes docs; document i is addressed by i in search results.
func NewBM25(docs []string) *BM25 {
	ix := &BM25{postings: make(map[string][]posting), lengths: make([]int, len(docs))}
	total := 0
	for i, d := range docs {
		toks := Tokenize(d)
		ix.lengths[i] = len(toks)
		total += len(toks)
		tf := make(map[string]int, len(toks))
		for _, t := range toks {
			tf[t]++
		}
		for t, n := range tf {
			ix.postings[t] = append(ix.postings[t], posting{doc: i, tf: n})
		}
	}
	if len(docs) > 0 {
		ix.avgLen = float64(total) / float64(len(docs))
	}
	return ix
}

// Len is the number of indexed documents.
func (ix *BM25) Len() int { return len(ix.lengths) }

// IDF is the Okapi inverse document frequency of an (already tokenised) term;
// it is negative for terms in more than half of the documents.
func (ix *BM25) IDF(term string) float64 {
	n := float64(len(ix.lengths))
	df := float64(len(ix.postings[term]))
	return math.Log((n - df + 0.5) / (df + 0.5))
}

// Scores returns the BM25 score of every document for query.
func (ix *BM25) Scores(query string) []float64 {
	scores := make([]float64, len(ix.lengths))
	if ix.avgLen == 0 {
		return scores
	}
	for _, t := range Tokenize(query) {
		idf := ix.IDF(t)
		for _, p := range ix.postings[t] {
			tf := float64(p.tf)
			norm := BM25K1 * (1 - BM25B + BM25B*float64(ix.lengths[p.doc])/ix.avgLen)
			scores[p.doc] += idf * tf * (BM25K1 + 1) / (tf + norm)
		}
	}
	return scores
}

// Search ranks the documents for which keep returns true (all when keep is nil)
// by descending score, ties in document order, and returns the first limit
// document numbers. Like a plain BM25 ranking it ranks every kept document,
// including those that share no term with the query.
func (ix *BM25) Search(query string, limit int, keep func(doc int) bool) []int {
	scores := ix.Scores(query)
	docs := make([]int, 0, len(scores))
	for i := range scores {
		if keep == nil || keep(i) {
			docs = append(docs, i)
		}
	}
	sort.SliceStable(docs, func(a, b int) bool { return scores[docs[a]] > scores[docs[b]] })
	if limit >= 0 && len(docs) > limit {
		docs = docs[:limit]
	}
	return docs
}
