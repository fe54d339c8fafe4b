package crossval

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/bench/locomo"
)

func TestRun(t *testing.T) {
	grid := locomo.Grid{{Name: "thread_weight", Values: []float64{1, 0}}}
	// Point 0 is best on A alone (tied with point 1 overall there), point 1
	// on B: jointly, point 1.
	a := Dataset{Name: "A", Fold: []int{0, 0, 1, 1}, Recall: [][]float64{{1, 1, 0, 0}, {0.5, 0.5, 0.5, 0.5}}}
	b := Dataset{Name: "B", Fold: []int{0, 1}, Recall: [][]float64{{0, 0}, {1, 1}}}
	res, err := Run(grid, []Dataset{a, b}, 2)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Folds) != 2 {
		t.Fatalf("folds = %d, want 2", len(res.Folds))
	}
	for _, f := range res.Folds {
		if f.Label != "thread_weight=0" || f.HeldOut["A"] != 0.5 || f.HeldOut["B"] != 1 {
			t.Errorf("fold %d = %+v, want thread_weight=0 with A 0.5 and B 1 held out", f.Fold, f)
		}
	}
	if f := res.Folds[1]; f.Train["A"] != 0.5 || f.Train["B"] != 1 {
		t.Errorf("fold 2 train = %v, want A 0.5 B 1", f.Train)
	}
	if res.Pooled["A"] != 0.5 || res.Pooled["B"] != 1 {
		t.Errorf("pooled = %v, want A 0.5 B 1", res.Pooled)
	}
	want := []LeaveOneOut{
		{HeldOut: "A", Label: "thread_weight=0", Recall: 0.5, Best: 0.5},
		{HeldOut: "B", Label: "thread_weight=1", Recall: 0, Best: 1}, // A ties: the default
	}
	for i, w := range want {
		got := res.LeaveOneOut[i]
		if got.HeldOut != w.HeldOut || got.Label != w.Label || got.Recall != w.Recall || got.Best != w.Best {
			t.Errorf("leave-one-out %d = %+v, want %+v", i, got, w)
		}
	}
	if res.InSampleLabel != "thread_weight=0" || res.InSample["B"] != 1 || res.Default["A"] != 0.5 || res.Default["B"] != 0 {
		t.Errorf("in-sample %s %v, default %v", res.InSampleLabel, res.InSample, res.Default)
	}
	var out bytes.Buffer
	if err := Write(&out, res); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"held-out (pooled k-fold)", "chosen without B: thread_weight=1 (0.0 there; the best point there reaches 100.0)"} {
		if !strings.Contains(out.String(), s) {
			t.Errorf("report lacks %q:\n%s", s, out.String())
		}
	}
}

func TestRunRejects(t *testing.T) {
	grid := locomo.Grid{{Name: "thread_weight", Values: []float64{1, 0}}}
	ok := Dataset{Name: "A", Fold: []int{0, 1}, Recall: [][]float64{{1, 0}, {0, 1}}}
	for name, tc := range map[string]struct {
		grid  locomo.Grid
		sets  []Dataset
		folds int
		inval bool
	}{
		"no data sets":      {grid, nil, 2, true},
		"one fold":          {grid, []Dataset{ok}, 1, true},
		"empty grid":        {nil, []Dataset{ok}, 2, true},
		"points short":      {grid, []Dataset{{Name: "A", Fold: []int{0, 1}, Recall: [][]float64{{1, 0}}}}, 2, false},
		"cases short":       {grid, []Dataset{{Name: "A", Fold: []int{0, 1}, Recall: [][]float64{{1}, {0, 1}}}}, 2, false},
		"fold out of range": {grid, []Dataset{{Name: "A", Fold: []int{0, 2}, Recall: [][]float64{{1, 0}, {0, 1}}}}, 2, false},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := Run(tc.grid, tc.sets, tc.folds)
			if err == nil {
				t.Fatal("Run accepted it")
			}
			if tc.inval != errors.Is(err, kgmem.ErrInvalid) {
				t.Errorf("err = %v, ErrInvalid %v, want %v", err, errors.Is(err, kgmem.ErrInvalid), tc.inval)
			}
		})
	}
}
