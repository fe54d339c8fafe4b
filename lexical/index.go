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
// Label is kept with the document and returned by Index.Label, not searched
// (the SQLite store keeps an episode's speaker there, so that a search can
// tell which candidates its speaker bonus reaches without loading them);
// documents with the same label share one copy of it.
type Doc struct {
	ID      string
	Text    string
	Expired bool
	Label   string
}

// Hit is one ranked record: its id and BM25 score (positive, higher is
// better).
type Hit struct {
	ID    string
	Score float64
}

// Index is the BM25 index of one namespace's records of one kind. It is
// read-only once built and safe for concurrent use; With derives the index
// of a later state without rebuilding it.
//
// It is a list of segments, each built at once from some documents: Build
// makes one, each With adds one for the documents it adds and marks the
// ones it replaces or removes dead in a copy of their segment's liveness.
// Statistics are those of the live documents only, so an index reached by
// any sequence of With ranks exactly as one built from its live documents;
// past maxSegments the segments are merged into one.
type Index struct {
	segs []*segment
	// alive[i] is nil when every document of segs[i] is live.
	alive [][]bool
	// live counts the live documents, liveLen their total length.
	live, liveLen int
	// next is the order the next new document gets.
	next uint32
	size int
	// base[i] numbers segs[i]'s documents from base[i] on, across
	// segments; norm holds each document's length normalisation,
	// k1·(1 − b + b·|D|/avgdl), by that number (see seal).
	base []uint32
	norm []float64
	// expired and order are the segments' own, by that number.
	expired []bool
	order   []uint32
}

// segment is the postings of some documents, immutable once built.
type segment struct {
	ids     []string
	expired []bool
	length  []uint32 // tokens plus one (the namespace tag, see Build)
	// order is each document's place in insertion order (ties rank the
	// earlier first); a document replaced by With keeps its place.
	order    []uint32
	byID     map[string]uint32
	postings map[string][]posting
	size     int
	labels   labelTable
}

// labelTable holds the labels of a segment's documents: label[d] indexes
// names, which holds each distinct label once, names[0] being "". Both are
// nil while no document has a label.
type labelTable struct {
	label []uint32
	names []string
	index map[string]uint32 // while the segment is built
}

// set gives document d of n the label l.
func (t *labelTable) set(d, n int, l string) {
	if l == "" {
		return
	}
	if t.label == nil {
		t.label, t.names, t.index = make([]uint32, n), []string{""}, map[string]uint32{}
	}
	i, ok := t.index[l]
	if !ok {
		i = uint32(len(t.names))
		t.names = append(t.names, l)
		t.index[l] = i
	}
	t.label[d] = i
}

// of returns the label of document d.
func (t *labelTable) of(d uint32) string {
	if t.label == nil {
		return ""
	}
	return t.names[t.label[d]]
}

// seal drops what only building needed and returns the entries the labels
// add to the segment's size.
func (t *labelTable) seal() int {
	t.index = nil
	return len(t.names)
}

// posting is one document holding a term, and how many times.
type posting struct {
	doc uint32
	tf  uint32
}

// maxSegments bounds the segments an index holds before With merges them.
const maxSegments = 8

// Build indexes docs; their order breaks ties between equal scores (the
// earlier wins), so stores pass them in insertion order. A document's length
// is its tokens plus one, as in the SQLite store's FTS5 tables, whose rows
// also hold the namespace's tag: the two rank alike.
func Build(docs []Doc) *Index {
	order := make([]uint32, len(docs))
	for i := range order {
		order[i] = uint32(i)
	}
	ix := &Index{next: uint32(len(docs))}
	ix.add(buildSegment(docs, order), nil)
	return ix.seal()
}

// seal computes the numbering and the length normalisations of ix's
// documents, once its segments and statistics are final.
func (ix *Index) seal() *Index {
	ix.base = make([]uint32, len(ix.segs))
	total := uint32(0)
	for si, seg := range ix.segs {
		ix.base[si] = total
		total += uint32(len(seg.ids))
	}
	avgdl := 1.0
	if ix.live > 0 && ix.liveLen > 0 {
		avgdl = float64(ix.liveLen) / float64(ix.live)
	}
	ix.norm = make([]float64, 0, total)
	ix.expired = make([]bool, 0, total)
	ix.order = make([]uint32, 0, total)
	for _, seg := range ix.segs {
		for _, n := range seg.length {
			ix.norm = append(ix.norm, k1*(1-b+b*float64(n)/avgdl))
		}
		ix.expired = append(ix.expired, seg.expired...)
		ix.order = append(ix.order, seg.order...)
	}
	return ix
}

// buildSegment indexes docs, giving each its order.
func buildSegment(docs []Doc, order []uint32) *segment {
	s := &segment{ids: make([]string, len(docs)), expired: make([]bool, len(docs)), length: make([]uint32, len(docs)),
		order: order, byID: make(map[string]uint32, len(docs)), postings: map[string][]posting{}}
	stems := map[string]string{} // words repeat: fold and stem each once
	var tokens []string
	for i, d := range docs {
		s.ids[i], s.expired[i] = d.ID, d.Expired
		s.byID[d.ID] = uint32(i)
		s.labels.set(i, len(docs), d.Label)
		tokens = tokens[:0]
		for _, w := range Words(d.Text) {
			t, ok := stems[w]
			if !ok {
				t = Token(w)
				stems[w] = t
			}
			tokens = append(tokens, t)
		}
		s.length[i] = uint32(len(tokens) + 1) // the namespace tag (see Build)
		slices.Sort(tokens)
		for j := 0; j < len(tokens); {
			k := j + 1
			for k < len(tokens) && tokens[k] == tokens[j] {
				k++
			}
			s.postings[tokens[j]] = append(s.postings[tokens[j]], posting{doc: uint32(i), tf: uint32(k - j)})
			s.size++
			j = k
		}
	}
	s.size += len(docs) + len(s.postings) + s.labels.seal()
	s.packPostings()
	return s
}

// packPostings moves every posting list into one array, each list exactly
// as long as it is: grown by append, a list holds up to twice its length,
// each in an allocation of its own (BenchmarkBuild: 193 retained bytes per
// document before, 171 after).
func (s *segment) packPostings() {
	total := 0
	for _, list := range s.postings {
		total += len(list)
	}
	packed := make([]posting, 0, total)
	for term, list := range s.postings {
		start := len(packed)
		packed = append(packed, list...)
		s.postings[term] = packed[start:len(packed):len(packed)]
	}
}

// add appends seg (with its liveness, nil: all live) and counts it.
func (ix *Index) add(seg *segment, alive []bool) {
	ix.segs = append(ix.segs, seg)
	ix.alive = append(ix.alive, alive)
	ix.size += seg.size
	for d, n := range seg.length {
		if alive == nil || alive[d] {
			ix.live++
			ix.liveLen += int(n)
		}
	}
}

// Update is a change to the records an index holds: Upsert adds documents
// or replaces those with the same id (which keep their place in the order);
// Insert adds documents whose id is not held yet and leaves the others
// untouched; Remove drops documents by id (unknown ids are ignored).
// Removals apply first.
type Update struct {
	Upsert []Doc
	Insert []Doc
	Remove []string
}

// With returns the index of ix's documents changed by u, sharing what did
// not change; ix itself is unchanged. It ranks exactly as Build of the
// resulting documents in their order.
func (ix *Index) With(u Update) *Index {
	if len(u.Upsert) == 0 && len(u.Insert) == 0 && len(u.Remove) == 0 {
		return ix
	}
	out := &Index{segs: slices.Clone(ix.segs), alive: slices.Clone(ix.alive), live: ix.live, liveLen: ix.liveLen, next: ix.next, size: ix.size}
	copied := map[int]bool{} // segments whose liveness out owns
	// kill marks id's live document dead and returns its order.
	kill := func(id string) (uint32, bool) {
		for si := len(out.segs) - 1; si >= 0; si-- {
			seg := out.segs[si]
			d, ok := seg.byID[id]
			if !ok || (out.alive[si] != nil && !out.alive[si][d]) {
				continue
			}
			if !copied[si] {
				if out.alive[si] == nil {
					out.alive[si] = make([]bool, len(seg.ids))
					for i := range out.alive[si] {
						out.alive[si][i] = true
					}
				} else {
					out.alive[si] = slices.Clone(out.alive[si])
				}
				copied[si] = true
			}
			out.alive[si][d] = false
			out.live--
			out.liveLen -= int(seg.length[d])
			return seg.order[d], true
		}
		return 0, false
	}
	for _, id := range u.Remove {
		kill(id)
	}
	var docs []Doc
	var order []uint32
	at := map[string]int{} // id → index in docs, for repeated ids
	put := func(d Doc, place uint32) {
		if i, ok := at[d.ID]; ok {
			docs[i] = d
			return
		}
		at[d.ID] = len(docs)
		docs, order = append(docs, d), append(order, place)
	}
	for _, d := range u.Upsert {
		if i, ok := at[d.ID]; ok {
			docs[i] = d
			continue
		}
		place, held := kill(d.ID)
		if !held {
			place = out.next
			out.next++
		}
		put(d, place)
	}
	for _, d := range u.Insert {
		if _, ok := at[d.ID]; ok || out.Holds(d.ID) {
			continue
		}
		put(d, out.next)
		out.next++
	}
	if len(docs) > 0 {
		out.add(buildSegment(docs, order), nil)
	}
	if len(out.segs) > maxSegments {
		// Merge the small segments into one; the first, the bulk of the
		// index, too once they hold half as many documents as it does.
		tail := 0
		for _, seg := range out.segs[1:] {
			tail += len(seg.ids)
		}
		if 2*tail >= len(out.segs[0].ids) {
			return out.merged(0).seal()
		}
		return out.merged(1).seal()
	}
	return out.seal()
}

// Holds reports whether id is a live document.
func (ix *Index) Holds(id string) bool {
	for si, seg := range ix.segs {
		if d, ok := seg.byID[id]; ok && (ix.alive[si] == nil || ix.alive[si][d]) {
			return true
		}
	}
	return false
}

// Label returns the label of the live document id, and whether id is one.
func (ix *Index) Label(id string) (string, bool) {
	for si, seg := range ix.segs {
		if d, ok := seg.byID[id]; ok && (ix.alive[si] == nil || ix.alive[si][d]) {
			return seg.labels.of(d), true
		}
	}
	return "", false
}

// merged returns ix with the live documents of segs[from:] merged into one
// segment, in their order.
func (ix *Index) merged(from int) *Index {
	type ref struct{ seg, doc uint32 }
	var refs []ref
	for si := from; si < len(ix.segs); si++ {
		for d := range ix.segs[si].ids {
			if ix.alive[si] == nil || ix.alive[si][d] {
				refs = append(refs, ref{uint32(si), uint32(d)})
			}
		}
	}
	slices.SortFunc(refs, func(x, y ref) int {
		return cmp.Compare(ix.segs[x.seg].order[x.doc], ix.segs[y.seg].order[y.doc])
	})
	n := len(refs)
	s := &segment{ids: make([]string, n), expired: make([]bool, n), length: make([]uint32, n), order: make([]uint32, n),
		byID: make(map[string]uint32, n), postings: map[string][]posting{}}
	// renumber[si][d] is a document's number in s, plus one (0: dead).
	renumber := make([][]uint32, len(ix.segs))
	for si := from; si < len(ix.segs); si++ {
		renumber[si] = make([]uint32, len(ix.segs[si].ids))
	}
	for i, r := range refs {
		seg := ix.segs[r.seg]
		s.ids[i], s.expired[i], s.length[i], s.order[i] = seg.ids[r.doc], seg.expired[r.doc], seg.length[r.doc], seg.order[r.doc]
		s.byID[s.ids[i]] = uint32(i)
		s.labels.set(i, n, seg.labels.of(r.doc))
		renumber[r.seg][r.doc] = uint32(i) + 1
	}
	for si := from; si < len(ix.segs); si++ {
		for term, list := range ix.segs[si].postings {
			for _, p := range list {
				if d := renumber[si][p.doc]; d > 0 {
					s.postings[term] = append(s.postings[term], posting{doc: d - 1, tf: p.tf})
					s.size++
				}
			}
		}
	}
	for _, list := range s.postings {
		slices.SortFunc(list, func(x, y posting) int { return cmp.Compare(x.doc, y.doc) })
	}
	s.size += n + len(s.postings) + s.labels.seal()
	s.packPostings()
	out := &Index{next: ix.next}
	for si := range from {
		out.add(ix.segs[si], ix.alive[si])
	}
	out.add(s, nil)
	return out
}

// Len returns the number of documents indexed (live ones).
func (ix *Index) Len() int { return ix.live }

// Size returns the index's size in entries (postings, documents and terms,
// of its segments, dead documents included), the unit of the stores' cache
// budget.
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
	if limit <= 0 || ix.live == 0 {
		return nil
	}
	base, total := ix.base, uint32(len(ix.norm))
	sc := scratches.Get().(*scratch)
	defer scratches.Put(sc)
	if uint32(cap(sc.score)) < total {
		sc.score = make([]float64, total)
	}
	score := sc.score[:total]
	touched := sc.touched[:0]
	n := float64(ix.live)
	for _, t := range slices.Compact(slices.Sorted(slices.Values(terms))) {
		df := 0
		for si, seg := range ix.segs {
			list := seg.postings[t]
			if ix.alive[si] == nil {
				df += len(list)
				continue
			}
			for _, p := range list {
				if ix.alive[si][p.doc] {
					df++
				}
			}
		}
		if df == 0 {
			continue
		}
		idf := math.Log((n - float64(df) + 0.5) / (float64(df) + 0.5))
		if idf <= 0 {
			idf = 1e-6
		}
		for si, seg := range ix.segs {
			alive := ix.alive[si]
			for _, p := range seg.postings[t] {
				if alive != nil && !alive[p.doc] {
					continue
				}
				d := base[si] + p.doc
				if score[d] == 0 {
					touched = append(touched, d)
				}
				tf := float64(p.tf)
				score[d] += idf * tf * (k1 + 1) / (tf + ix.norm[d])
			}
		}
	}
	// where finds the segment of a document number.
	where := func(d uint32) (*segment, uint32) {
		si, _ := slices.BinarySearch(base, d+1)
		si--
		return ix.segs[si], d - base[si]
	}
	top := make(topK, 0, min(limit, len(touched)))
	for _, d := range touched {
		s := score[d]
		score[d] = 0
		if ix.expired[d] && !includeExpired {
			continue
		}
		r := ranked{order: ix.order[d], doc: d, score: s}
		switch {
		case len(top) < limit:
			heap.Push(&top, r)
		case better(r, top[0]):
			top[0] = r
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
		seg, local := where(r.doc)
		hits[i] = Hit{ID: seg.ids[local], Score: r.score}
	}
	return hits
}

// ranked is a scored document.
type ranked struct {
	order uint32
	doc   uint32
	score float64
}

// better orders by score, then insertion order.
func better(x, y ranked) bool {
	return cmp.Or(cmp.Compare(y.score, x.score), cmp.Compare(x.order, y.order)) < 0
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
