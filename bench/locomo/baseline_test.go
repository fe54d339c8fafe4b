package locomo

import (
	"math"
	"testing"
)

// The corpus-scope baseline reproduces the data set README's anchors
// (51.3% @5, 59.1% @10 over 759 questions) within half a point.
func TestBaselineReproducesAnchors(t *testing.T) {
	convs := loadData(t)
	tab, st, err := Baseline(convs, []int{5, 10}, ScopeCorpus)
	if err != nil {
		t.Fatal(err)
	}
	overall := tab.Overall()
	if overall.Questions != 759 || st.Scored != 759 {
		t.Fatalf("overall questions = %d, scored %d; want 759", overall.Questions, st.Scored)
	}
	for k, anchor := range Anchors {
		got, ok := tab.At(overall, k)
		if !ok {
			t.Fatalf("recall@%d missing", k)
		}
		if math.Abs(got-anchor) > 0.5 {
			t.Errorf("BM25 recall@%d = %.2f, anchor %.1f: off by more than 0.5", k, got, anchor)
		}
	}
	// Category rows add up to the overall row.
	n, sum5 := 0, 0.0
	for _, r := range tab.Rows {
		if r.Category != 0 {
			n += r.Questions
			sum5 += r.Recall[0] * float64(r.Questions)
		}
	}
	if n != 759 || math.Abs(sum5/float64(n)-overall.Recall[0]) > 1e-9 {
		t.Errorf("category rows: %d questions, weighted recall@5 %.4f; overall %.4f", n, sum5/float64(n), overall.Recall[0])
	}
}

// Per-conversation indexes give the speaker names an IDF near zero and fall
// below the anchors; the scope matters and is reported.
func TestBaselineScopes(t *testing.T) {
	convs := loadData(t)
	corpus, _, err := Baseline(convs, []int{10}, ScopeCorpus)
	if err != nil {
		t.Fatal(err)
	}
	conv, _, err := Baseline(convs, []int{10}, ScopeConversation)
	if err != nil {
		t.Fatal(err)
	}
	if c, p := corpus.Overall().Recall[0], conv.Overall().Recall[0]; c == p || p < 40 || p > 70 {
		t.Errorf("recall@10 corpus %.2f, conversation %.2f: want both plausible and different", c, p)
	}
	if _, _, err := Baseline(convs, []int{10}, "global"); err == nil {
		t.Error("Baseline accepted scope \"global\"")
	}
}
