package locomo

import (
	"errors"
	"math"
	"testing"

	"github.com/kgmem/kgmem"
)

func TestRecall(t *testing.T) {
	tests := []struct {
		name      string
		retrieved []string
		evidence  []string
		k         int
		want      float64
	}{
		{"all found", []string{"D1:1", "D1:2"}, []string{"D1:2", "D1:1"}, 5, 1},
		{"half found", []string{"D1:1", "D3:3"}, []string{"D1:1", "D2:2"}, 5, 0.5},
		{"beyond k does not count", []string{"D9:9", "D8:8", "D1:1"}, []string{"D1:1"}, 2, 0},
		{"exactly at k counts", []string{"D9:9", "D8:8", "D1:1"}, []string{"D1:1"}, 3, 1},
		{"one of three", []string{"D1:1", "D1:1", "D4:4"}, []string{"D1:1", "D2:2", "D3:3"}, 10, 1.0 / 3},
		{"duplicate evidence counts once", []string{"D1:1"}, []string{"D1:1", "D1:1", "D2:2"}, 5, 0.5},
		{"nothing retrieved", nil, []string{"D1:1"}, 5, 0},
		{"no evidence", []string{"D1:1"}, nil, 5, 0},
		{"k zero", []string{"D1:1"}, []string{"D1:1"}, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Recall(tt.retrieved, tt.evidence, tt.k); math.Abs(got-tt.want) > 1e-12 {
				t.Errorf("Recall = %v, want %v", got, tt.want)
			}
		})
	}
}

// The accumulator averages per question (macro), not per evidence turn.
func TestRecallAccumulatorMacro(t *testing.T) {
	acc, err := NewRecallAccumulator([]int{1, 2})
	if err != nil {
		t.Fatal(err)
	}
	// Category 1: a question with 4 evidence turns, 1 found at rank 1 and 1 at rank 2.
	acc.Add(1, []string{"a", "b"}, []string{"a", "b", "c", "d"})
	// Category 2: a one-evidence question found at rank 2, and one missed.
	acc.Add(2, []string{"x", "e"}, []string{"e"})
	acc.Add(2, []string{"x", "y"}, []string{"f"})
	tab := acc.Table()
	want := map[int][2]float64{
		1: {25, 50},
		2: {0, 50},
		// Macro: mean of (0.25, 0, 0) and (0.5, 1, 0); micro would be 1/6 and 3/6.
		0: {100 * 0.25 / 3, 100 * 1.5 / 3},
	}
	if len(tab.Rows) != 3 || tab.Rows[2].Category != 0 || tab.Overall().Questions != 3 {
		t.Fatalf("rows = %+v", tab.Rows)
	}
	for _, row := range tab.Rows {
		for i, k := range tab.Ks {
			got, ok := tab.At(row, k)
			if !ok || math.Abs(got-want[row.Category][i]) > 1e-9 {
				t.Errorf("category %d recall@%d = %v, want %v", row.Category, k, got, want[row.Category][i])
			}
		}
	}
	if _, ok := tab.At(tab.Overall(), 7); ok {
		t.Error("At(7) reported a cut-off that was not measured")
	}
}

func TestValidateKs(t *testing.T) {
	for _, ks := range [][]int{nil, {0}, {5, -1}, {5, 5}} {
		if err := ValidateKs(ks); !errors.Is(err, kgmem.ErrInvalid) {
			t.Errorf("ValidateKs(%v) = %v, want ErrInvalid", ks, err)
		}
	}
	if err := ValidateKs([]int{10, 5, 1}); err != nil {
		t.Errorf("ValidateKs(10,5,1) = %v", err)
	}
}
