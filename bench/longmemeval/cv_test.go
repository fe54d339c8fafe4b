package longmemeval

import (
	"bytes"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/bench/locomo"
)

func TestFolds(t *testing.T) {
	types := []string{"b", "a", "b", "a", "a", "c", "b", "a"}
	cases := make([]Case, len(types))
	for i, typ := range types {
		cases[i] = Case{Type: typ}
	}
	got, err := Folds(cases, 3)
	if err != nil {
		t.Fatal(err)
	}
	// a (cases 1 3 4 7) → folds 0 1 2 0; b (0 2 6) → 1 2 0; c (5) → 1.
	if want := []int{1, 0, 2, 1, 2, 1, 0, 0}; !slices.Equal(got, want) {
		t.Errorf("Folds = %v, want %v", got, want)
	}
	for _, n := range []int{1, 9} {
		if _, err := Folds(cases, n); !errors.Is(err, kgmem.ErrInvalid) {
			t.Errorf("Folds(%d) = %v, want ErrInvalid", n, err)
		}
	}
}

// TestCrossValidate: two points; point 0 finds only case 2's evidence,
// point 1 only cases 0's and 1's. The folds are {0, 1} and {2}, so each
// training set favours the point that misses the held-out cases: pooled
// held-out recall 0 where the in-sample best reaches 2/3.
func TestCrossValidate(t *testing.T) {
	cases := []Case{
		{QuestionID: "0", Type: "a", Evidence: []string{"s:0"}, AnswerSessions: []string{"s"}},
		{QuestionID: "1", Type: "b", Evidence: []string{"s:0"}, AnswerSessions: []string{"s"}},
		{QuestionID: "2", Type: "a", Evidence: []string{"s:0"}, AnswerSessions: []string{"s"}},
	}
	hit, miss := []string{"s:0"}, []string{"x:0"}
	res := func(ids ...[]string) []QuestionResult {
		out := make([]QuestionResult, len(ids))
		for i, r := range ids {
			out[i] = QuestionResult{QuestionID: cases[i].QuestionID, Type: cases[i].Type, Retrieved: r}
		}
		return out
	}
	grid := locomo.Grid{{Name: "thread_weight", Values: []float64{1, 0}}}
	results := [][]QuestionResult{res(miss, miss, hit), res(hit, hit, miss)}
	// Folds(…, 2): a → cases 0, 2 in folds 0, 1; b → case 1 in fold 0.
	cv, err := CrossValidate(grid, cases, results, res(hit, miss, miss), 1, 2)
	if err != nil {
		t.Fatal(err)
	}
	if len(cv.Folds) != 2 {
		t.Fatalf("folds %+v", cv.Folds)
	}
	f0, f1 := cv.Folds[0], cv.Folds[1]
	if f0.Label != "thread_weight=1" || f0.Train != 1 || f0.Questions != 2 || f0.HeldOut.Overall().Turn[0] != 0 || f0.BM25.Overall().Turn[0] != 0.5 {
		t.Errorf("fold 1 %+v", f0)
	}
	if f1.Label != "thread_weight=0" || f1.Train != 1 || f1.Questions != 1 || f1.HeldOut.Overall().Turn[0] != 0 {
		t.Errorf("fold 2 %+v", f1)
	}
	if p := cv.Pooled.Overall().Turn[0]; p != 0 {
		t.Errorf("pooled %v, want 0", p)
	}
	if cv.InSampleLabel != "thread_weight=0" || cv.InSample.Overall().Turn[0] != 2.0/3 || cv.Default.Overall().Turn[0] != 1.0/3 || cv.Baseline.Overall().Turn[0] != 1.0/3 {
		t.Errorf("in-sample %s %+v, default %+v, bm25 %+v", cv.InSampleLabel, cv.InSample.Overall(), cv.Default.Overall(), cv.Baseline.Overall())
	}
	var out bytes.Buffer
	if err := WriteCV(&out, cv); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"2-fold", "held-out turn@1", "in-sample best: thread_weight=0", "defaults:       thread_weight=1"} {
		if !strings.Contains(out.String(), s) {
			t.Errorf("output lacks %q:\n%s", s, out.String())
		}
	}
	if _, err := CrossValidate(grid, cases, results[:1], res(hit, miss, miss), 1, 2); err == nil {
		t.Error("one result set for two points accepted")
	}
}
