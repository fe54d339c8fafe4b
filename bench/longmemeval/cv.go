package longmemeval

import (
	"fmt"
	"io"
	"slices"
	"text/tabwriter"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/bench/locomo"
)

// Folds assigns each case to one of n folds, stratified by question type:
// the cases of each type, in order, go round the folds, each type starting
// where the previous one stopped, so every fold holds about 1/n of every
// type. n must be within 2..len(cases).
func Folds(cases []Case, n int) ([]int, error) {
	if n < 2 || n > len(cases) {
		return nil, kgmem.Invalidf("folds", "is %d, must be within 2..%d (the questions)", n, len(cases))
	}
	byType := map[string][]int{}
	var types []string
	for i, c := range cases {
		if _, ok := byType[c.Type]; !ok {
			types = append(types, c.Type)
		}
		byType[c.Type] = append(byType[c.Type], i)
	}
	slices.Sort(types)
	fold := make([]int, len(cases))
	next := 0
	for _, t := range types {
		for _, i := range byType[t] {
			fold[i] = next % n
			next++
		}
	}
	return fold, nil
}

// CVFold is one held-out fold of a k-fold cross-validation.
type CVFold struct {
	Fold      int `json:"fold"`
	Questions int `json:"questions"`
	// Chosen is the grid point picked on the other folds; Train its turn
	// recall@K there.
	Chosen []float64 `json:"chosen"`
	Label  string    `json:"label"`
	Train  float64   `json:"train_turn_recall"`
	// HeldOut is the chosen point's figures on this fold, BM25 the baseline's.
	HeldOut Table `json:"held_out"`
	BM25    Table `json:"bm25"`
}

// CVResult is a k-fold cross-validation of a grid over questions.
type CVResult struct {
	K     int         `json:"k"`
	Grid  locomo.Grid `json:"grid"`
	Folds []CVFold    `json:"folds"`
	// Pooled scores every case with its fold's chosen point: the figure to
	// expect on unseen questions.
	Pooled Table `json:"pooled"`
	// InSample is the best point on every case (optimistic), Default the
	// grid's first point, Baseline BM25.
	InSample      Table  `json:"in_sample"`
	InSampleLabel string `json:"in_sample_label"`
	Default       Table  `json:"default"`
	Baseline      Table  `json:"baseline_bm25"`
}

// CrossValidate chooses, for each of n folds (Folds), the grid point with
// the best mean turn recall@k over the cases of the other folds (ties go to
// the earlier point, so to the defaults), and scores it on the held-out
// fold. results[p] are grid point p's results in cases order (from
// Harness.Evaluate at k); baseline are BM25's.
func CrossValidate(grid locomo.Grid, cases []Case, results [][]QuestionResult, baseline []QuestionResult, k, n int) (CVResult, error) {
	if err := grid.Validate(); err != nil {
		return CVResult{}, err
	}
	points := grid.Points()
	if len(results) != len(points) {
		return CVResult{}, fmt.Errorf("cross-validate: %d result sets for %d grid points", len(results), len(points))
	}
	for p := range results {
		if len(results[p]) != len(cases) {
			return CVResult{}, fmt.Errorf("cross-validate: point %d has %d results for %d cases", p, len(results[p]), len(cases))
		}
	}
	if len(baseline) != len(cases) {
		return CVResult{}, fmt.Errorf("cross-validate: %d baseline results for %d cases", len(baseline), len(cases))
	}
	fold, err := Folds(cases, n)
	if err != nil {
		return CVResult{}, err
	}
	ks := []int{k}
	turn := func(p, i int) (float64, bool) {
		s := Score(cases[i], results[p][i].Retrieved, k)
		return s.Turn, s.HasTurns
	}
	best := func(keep func(i int) bool) (int, float64) {
		bi, bv := 0, -1.0
		for p := range points {
			sum, m := 0.0, 0
			for i := range cases {
				if v, ok := turn(p, i); ok && keep(i) {
					sum += v
					m++
				}
			}
			if m > 0 && sum/float64(m) > bv+1e-12 {
				bi, bv = p, sum/float64(m)
			}
		}
		return bi, max(bv, 0)
	}
	res := CVResult{K: k, Grid: grid}
	chosen := make([][]string, len(cases))
	bm := Retrieved(baseline)
	for f := range n {
		p, train := best(func(i int) bool { return fold[i] != f })
		held := func(i int) bool { return fold[i] == f }
		cf := CVFold{Fold: f + 1, Chosen: points[p], Label: grid.Label(points[p]), Train: train}
		if cf.HeldOut, err = NewTable(cases, Retrieved(results[p]), ks, held); err != nil {
			return CVResult{}, err
		}
		if cf.BM25, err = NewTable(cases, bm, ks, held); err != nil {
			return CVResult{}, err
		}
		cf.Questions = cf.HeldOut.Overall().Questions
		res.Folds = append(res.Folds, cf)
		for i := range cases {
			if held(i) {
				chosen[i] = results[p][i].Retrieved
			}
		}
	}
	if res.Pooled, err = NewTable(cases, chosen, ks, nil); err != nil {
		return CVResult{}, err
	}
	p, _ := best(func(int) bool { return true })
	res.InSampleLabel = grid.Label(points[p])
	if res.InSample, err = NewTable(cases, Retrieved(results[p]), ks, nil); err != nil {
		return CVResult{}, err
	}
	if res.Default, err = NewTable(cases, Retrieved(results[0]), ks, nil); err != nil {
		return CVResult{}, err
	}
	if res.Baseline, err = NewTable(cases, bm, ks, nil); err != nil {
		return CVResult{}, err
	}
	return res, nil
}

// WriteCV prints the per-fold figures, then per question type the pooled
// held-out turn recall beside the in-sample best, the defaults and BM25.
func WriteCV(w io.Writer, r CVResult) error {
	fmt.Fprintf(w, "%d-fold cross-validation over questions (stratified by type), chosen by turn recall@%d\n", len(r.Folds), r.K)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "fold\tquestions\ttrain turn@%d\theld-out turn@%d\tany@%d\tall@%d\tbm25 turn@%d\tchosen\n", r.K, r.K, r.K, r.K, r.K)
	for _, f := range r.Folds {
		o, b := f.HeldOut.Overall(), f.BM25.Overall()
		fmt.Fprintf(tw, "%d\t%d\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t%s\n", f.Fold, f.Questions, f.Train, o.Turn[0], o.Any[0], o.All[0], b.Turn[0], f.Label)
	}
	if err := tw.Flush(); err != nil {
		return fmt.Errorf("write cross-validation: %w", err)
	}
	fmt.Fprintf(w, "\nturn recall@%d per question type\n", r.K)
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "type\tquestions\theld-out (pooled)\tin-sample best\tdefaults\tbm25\theld-out − bm25\t")
	for _, row := range r.Pooled.Rows {
		ins, _ := r.InSample.Row(row.Type)
		def, _ := r.Default.Row(row.Type)
		bm, _ := r.Baseline.Row(row.Type)
		fmt.Fprintf(tw, "%s\t%d\t%.3f\t%.3f\t%.3f\t%.3f\t%+.3f\t\n", row.Type, row.TurnQuestions, row.Turn[0], ins.Turn[0], def.Turn[0], bm.Turn[0], row.Turn[0]-bm.Turn[0])
	}
	if err := tw.Flush(); err != nil {
		return fmt.Errorf("write cross-validation: %w", err)
	}
	_, err := fmt.Fprintf(w, "in-sample best: %s\ndefaults:       %s\n", r.InSampleLabel, r.Grid.Label(r.Grid.Points()[0]))
	return err
}
