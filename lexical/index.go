package lexical

import (
	"cmp"
	"container/heap"
	"math"
	"slices"
	"sync"
)

// BM25 parameters, those of SQLite FTS5's bm25().
const (
	k1 = 1.2
	b  = 0.75
)

// Doc is one record to index: its id, the text search matches, and whether
// it is expired (a superseded fact), which searches leave out unless asked.
type Doc struct {
	ID      string
	Text    string
	Expired bool
}

// Hit is one ranked record: its id and BM25 score (positive, higher is
// better).
type Hit struct {
	ID    string
	Score float64
}

// Index is the BM25 index of one namespace's records of one kind. It is
// read-only once built and safe for concurrent use.
type Index struct {
	ids     []string
	expired []bool
	// norm is each document's length normalisation, k1·(1 − b + b·|D|/avgdl).
	norm     []float64
	postings map[string][]posting
	size     int
}

// posting is one document holding a term, and how many times.
type posting struct {
	doc uint32
	tf  uint32
}

// Build indexes docs; their order breaks ties between equal scores (the
// earlier wins), so stores pass them in insertion order. A document's length
// is its tokens plus one, as in the SQLite store's FTS5 tables, whose rows
// also hold the namespace's tag: the two rank alike.
func Build(docs []Doc) *Index {
	ix := &Index{ids: make([]string, len(docs)), expired: make([]bool, len(docs)), norm: make([]float64, len(docs)),
		postings: map[string][]posting{}}
	lengths := make([]int, len(docs))
	total := 0
	stems := map[string]string{} // words repeat: fold and stem each once
	var tokens []string
	for i, d := range docs {
		ix.ids[i], ix.expired[i] = d.ID, d.Expired
		tokens = tokens[:0]
		for _, w := range Words(d.Text) {
			t, ok := stems[w]
			if !ok {
				t = Token(w)
				stems[w] = t
			}
			tokens = append(tokens, t)
		}
		lengths[i] = len(tokens) + 1 // the namespace tag (see Build)
		total += lengths[i]
		slices.Sort(tokens)
		for j := 0; j < len(tokens); {
			k := j + 1
			for k < len(tokens) && tokens[k] == tokens[j] {
				k++
			}
			ix.postings[tokens[j]] = append(ix.postings[tokens[j]], posting{doc: uint32(i), tf: uint32(k - j)})
			ix.size++
			j = k
		}
	}
	avgdl := 1.0
	if len(docs) > 0 && total > 0 {
		avgdl = float64(total) / float64(len(docs))
	}
	for i, n := range lengths {
		ix.norm[i] = k1 * (1 - b + b*float64(n)/avgdl)
	}
	ix.size += len(docs) + len(ix.postings)
	return ix
}

// Len returns the number of documents indexed.
func (ix *Index) Len() int { return len(ix.ids) }

// Size returns the index's size in entries (postings, documents and terms),
// the unit of the stores' cache budget.
func (ix *Index) Size() int { return ix.size }

// scratch is a reusable per-search score table.
type scratch struct {
	score   []float64
	touched []uint32
}

var scratches = sync.Pool{New: func() any { return &scratch{} }}

// Search returns the best limit documents holding any of terms (index terms,
// see QueryTerms), by BM25, best first, ties in index order. Expired
// documents are left out unless includeExpired, after ranking, so they still
// count in the statistics.
func (ix *Index) Search(terms []string, limit int, includeExpired bool) []Hit {
	if limit <= 0 || len(ix.ids) == 0 {
		return nil
	}
	sc := scratches.Get().(*scratch)
	defer scratches.Put(sc)
	if cap(sc.score) < len(ix.ids) {
		sc.score = make([]float64, len(ix.ids))
	}
	score := sc.score[:len(ix.ids)]
	touched := sc.touched[:0]
	n := float64(len(ix.ids))
	for _, t := range slices.Compact(slices.Sorted(slices.Values(terms))) {
		list := ix.postings[t]
		if len(list) == 0 {
			continue
		}
		df := float64(len(list))
		idf := math.Log((n - df + 0.5) / (df + 0.5))
		if idf <= 0 {
			idf = 1e-6
		}
		for _, p := range list {
			if score[p.doc] == 0 {
				touched = append(touched, p.doc)
			}
			tf := float64(p.tf)
			score[p.doc] += idf * tf * (k1 + 1) / (tf + ix.norm[p.doc])
		}
	}
	top := make(topK, 0, min(limit, len(touched)))
	for _, d := range touched {
		s := score[d]
		score[d] = 0
		if ix.expired[d] && !includeExpired {
			continue
		}
		switch {
		case len(top) < limit:
			heap.Push(&top, ranked{d, s})
		case better(ranked{d, s}, top[0]):
			top[0] = ranked{d, s}
			heap.Fix(&top, 0)
		}
	}
	sc.touched = touched
	slices.SortFunc(top, func(x, y ranked) int {
		if better(x, y) {
			return -1
		}
		return 1
	})
	hits := make([]Hit, len(top))
	for i, r := range top {
		hits[i] = Hit{ID: ix.ids[r.doc], Score: r.score}
	}
	return hits
}

// ranked is a scored document.
type ranked struct {
	doc   uint32
	score float64
}

// better orders by score, then index order.
func better(x, y ranked) bool {
	return cmp.Or(cmp.Compare(y.score, x.score), cmp.Compare(x.doc, y.doc)) < 0
}

// topK is a min-heap of the best documents so far, the worst on top.
type topK []ranked

func (h topK) Len() int           { return len(h) }
func (h topK) Less(i, j int) bool { return better(h[j], h[i]) }
func (h topK) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *topK) Push(x any)        { *h = append(*h, x.(ranked)) }
func (h *topK) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
