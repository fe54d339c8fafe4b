package lexical

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"
)

// bm25 is FTS5's bm25() for one document, written out for the tests.
func bm25(n, avgdl float64, docLen int, tfs, dfs []int) float64 {
	score := 0.0
	for i, tf := range tfs {
		if tf == 0 {
			continue
		}
		idf := math.Log((n - float64(dfs[i]) + 0.5) / (float64(dfs[i]) + 0.5))
		if idf <= 0 {
			idf = 1e-6
		}
		score += idf * float64(tf) * (k1 + 1) / (float64(tf) + k1*(1-b+b*float64(docLen)/avgdl))
	}
	return score
}

func TestSearch(t *testing.T) {
	docs := []Doc{
		{ID: "d0", Text: "Bob leads the ML team."},
		{ID: "d1", Text: "Alice managed the ML team until May."},
		{ID: "d2", Text: "Alice likes hiking and hiking boots."},
		{ID: "d3", Text: "Carol joined Northwind Labs.", Expired: true},
		{ID: "d4", Text: "Carol leads Northwind Labs now."},
		{ID: "d5", Text: "Nothing in common here."},
		{ID: "d6", Text: "Dave walks."},
		{ID: "d7", Text: "Erin walks."},
	}
	ix := Build(docs)
	// 8 documents of 5, 7, 6, 4, 5, 4, 2, 2 tokens, plus the namespace tag.
	const n, avgdl = 8.0, 43.0 / 8
	tests := []struct {
		name           string
		query          string
		limit          int
		includeExpired bool
		want           []Hit
	}{
		{"one term", "leading", 10, false, []Hit{
			{"d0", bm25(n, avgdl, 6, []int{1}, []int{2})},
			{"d4", bm25(n, avgdl, 6, []int{1}, []int{2})},
		}},
		{"term frequency and two terms", "alice hiking", 10, false, []Hit{
			{"d2", bm25(n, avgdl, 7, []int{1, 2}, []int{2, 1})},
			{"d1", bm25(n, avgdl, 8, []int{1, 0}, []int{2, 1})},
		}},
		{"expired left out", "carol northwind", 10, false, []Hit{
			{"d4", bm25(n, avgdl, 6, []int{1, 1}, []int{2, 2})},
		}},
		{"expired on request, shorter first", "carol northwind", 10, true, []Hit{
			{"d3", bm25(n, avgdl, 5, []int{1, 1}, []int{2, 2})},
			{"d4", bm25(n, avgdl, 6, []int{1, 1}, []int{2, 2})},
		}},
		{"ties keep index order; limit", "walking", 1, false, []Hit{
			{"d6", bm25(n, avgdl, 3, []int{1}, []int{2})},
		}},
		{"term in more than half the documents scores 1e-6 idf", "the ml team alice carol walks leads", 3, false, nil},
		{"unknown terms", "zebra", 10, false, nil},
		{"no terms", "", 10, false, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ix.Search(QueryTerms(tt.query), tt.limit, tt.includeExpired)
			if tt.want == nil && tt.name != "unknown terms" && tt.name != "no terms" {
				// Only check the shape: limit respected, best first.
				if len(got) != tt.limit || !slices.IsSortedFunc(got, func(a, b Hit) int { return -compareScore(a, b) }) {
					t.Fatalf("Search = %v, want %d hits best first", got, tt.limit)
				}
				return
			}
			if len(got) != len(tt.want) {
				t.Fatalf("Search(%q) = %v, want %v", tt.query, got, tt.want)
			}
			for i := range got {
				if got[i].ID != tt.want[i].ID || math.Abs(got[i].Score-tt.want[i].Score) > 1e-9 {
					t.Fatalf("Search(%q)[%d] = %v, want %v (all: %v)", tt.query, i, got[i], tt.want[i], got)
				}
			}
		})
	}
}

func compareScore(a, b Hit) int {
	switch {
	case a.Score < b.Score:
		return -1
	case a.Score > b.Score:
		return 1
	}
	return 0
}

func TestEmptyIndex(t *testing.T) {
	ix := Build(nil)
	if got := ix.Search([]string{"x"}, 10, true); got != nil {
		t.Errorf("Search on an empty index = %v, want nil", got)
	}
	if ix.Len() != 0 || ix.Size() != 0 {
		t.Errorf("Len, Size = %d, %d; want 0, 0", ix.Len(), ix.Size())
	}
}

// TestSearchLeavesNoScores checks that the pooled score table is clean
// between searches: the same search twice gives the same scores.
func TestSearchLeavesNoScores(t *testing.T) {
	ix := Build([]Doc{{ID: "a", Text: "red apple"}, {ID: "b", Text: "green apple"}, {ID: "c", Text: "red car"}})
	first := ix.Search([]string{"red", "appl"}, 1, false)
	second := ix.Search([]string{"red", "appl"}, 3, false)
	third := ix.Search([]string{"red", "appl"}, 3, false)
	if !slices.Equal(second, third) || first[0] != second[0] {
		t.Errorf("repeated searches differ: %v, %v, %v", first, second, third)
	}
}

func BenchmarkSearch(b *testing.B) {
	words := []string{"alice", "bob", "leads", "team", "project", "northwind", "joined", "office", "berlin", "likes",
		"hiking", "music", "works", "with", "manager", "design", "review", "launch", "budget", "meeting"}
	docs := make([]Doc, 20000)
	for i := range docs {
		text := ""
		for j := range 9 {
			text += words[(i*7+j*j*13+i/3)%len(words)] + " "
		}
		docs[i] = Doc{ID: string(rune('a'+i%26)) + string(rune(i)), Text: text}
	}
	ix := Build(docs)
	terms := QueryTerms("who leads the northwind project team in berlin")
	b.ResetTimer()
	for range b.N {
		ix.Search(terms, 15, false)
	}
}

// BenchmarkBuild builds the index of 10,000 documents of ten words drawn
// from a Zipf-distributed vocabulary of 20,000 words (most terms then have
// short posting lists, as in a namespace's facts) and reports the bytes the
// index keeps per document.
func BenchmarkBuild(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	zipf := rand.NewZipf(rng, 1.1, 1, 19999)
	docs := make([]Doc, 10000)
	for i := range docs {
		var text []byte
		for range 10 {
			text = append(append(text, fmt.Sprintf("w%dx", zipf.Uint64())...), ' ')
		}
		docs[i] = Doc{ID: fmt.Sprintf("fact_%05d", i), Text: string(text)}
	}
	var ix *Index
	before := retainedHeap()
	b.ResetTimer()
	for range b.N {
		ix = Build(docs)
	}
	b.StopTimer()
	b.ReportMetric(float64(retainedHeap()-before)/float64(len(docs)), "retained-B/doc")
	runtime.KeepAlive(ix)
}

// retainedHeap is the live heap after a collection.
func retainedHeap() int64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return int64(ms.HeapAlloc)
}
