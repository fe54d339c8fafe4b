package locomo

import (
	"errors"
	"math"
	"slices"
	"testing"

	"github.com/kgmem/kgmem"
)

// TestGridPoints pins the enumeration: the defaults first, the last param
// varying fastest.
func TestGridPoints(t *testing.T) {
	g := Grid{{Name: "a", Values: []float64{1, 2}}, {Name: "b", Values: []float64{10, 20, 30}}}
	got := g.Points()
	want := [][]float64{{1, 10}, {1, 20}, {1, 30}, {2, 10}, {2, 20}, {2, 30}}
	if len(got) != len(want) {
		t.Fatalf("points %v", got)
	}
	for i := range want {
		if !slices.Equal(got[i], want[i]) {
			t.Errorf("point %d = %v, want %v", i, got[i], want[i])
		}
	}
	if l := g.Label(got[4]); l != "a=2 b=20" {
		t.Errorf("label %q", l)
	}
	for _, bad := range []Grid{nil, {{Name: "a"}}, {{Values: []float64{1}}}} {
		if err := bad.Validate(); !errors.Is(err, kgmem.ErrInvalid) {
			t.Errorf("Validate(%v) = %v, want ErrInvalid", bad, err)
		}
	}
}

// TestCrossValidate checks that each fold picks its point on the other
// conversations only and is scored on its own, and that ties go to the
// earlier point.
func TestCrossValidate(t *testing.T) {
	grid := Grid{{Name: "w", Values: []float64{1, 2}}}
	cases := []Case{
		{Conversation: "A", Category: 1, Evidence: []string{"a1"}},
		{Conversation: "A", Category: 2, Evidence: []string{"a2"}},
		{Conversation: "B", Category: 1, Evidence: []string{"b1"}},
		{Conversation: "C", Category: 2, Evidence: []string{"c1", "c2"}},
	}
	hit, miss := func(id string) []string { return []string{id} }, []string{"x"}
	retrieved := [][][]string{
		// point 0 (w=1): finds A's and B's evidence, none of C's.
		{hit("a1"), hit("a2"), hit("b1"), miss},
		// point 1 (w=2): finds C's and B's, none of A's.
		{miss, miss, hit("b1"), {"c1", "c2"}},
	}
	res, err := CrossValidate(grid, cases, retrieved, 10)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		conv    string
		chosen  float64
		heldOut float64
	}{
		// Without A: point 1 finds B and C (2 of 2 questions), point 0 only B.
		{"A", 2, 0},
		// Without B: point 0 finds A's two of three, point 1 C's one: point 0.
		{"B", 1, 100},
		// Without C: point 0 finds all three.
		{"C", 1, 0},
	}
	if len(res.Folds) != len(tests) {
		t.Fatalf("folds %+v", res.Folds)
	}
	for i, tc := range tests {
		f := res.Folds[i]
		if f.Conversation != tc.conv || f.Chosen[0] != tc.chosen || f.HeldOut.Overall().Recall[0] != tc.heldOut {
			t.Errorf("fold %d = %s chose %v held-out %v, want %s %v %v", i, f.Conversation, f.Chosen, f.HeldOut.Overall().Recall[0], tc.conv, tc.chosen, tc.heldOut)
		}
	}
	// Pooled: A 0+0, B 1, C 0 over four questions.
	if got := res.Pooled.Overall().Recall[0]; math.Abs(got-25) > 1e-9 {
		t.Errorf("pooled = %v, want 25", got)
	}
	// In sample, point 0 finds 3 of 4, point 1 finds 2 of 4.
	if res.InSampleLabel != "w=1" || res.InSample.Overall().Recall[0] != 75 || res.Default.Overall().Recall[0] != 75 {
		t.Errorf("in-sample %s %v, default %v", res.InSampleLabel, res.InSample.Overall().Recall[0], res.Default.Overall().Recall[0])
	}
	if _, err := CrossValidate(grid, cases, retrieved[:1], 10); err == nil {
		t.Error("a missing result set was accepted")
	}
}
