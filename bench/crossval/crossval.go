// Package crossval chooses search constants over several benchmarks at
// once: every grid point is scored on every case of every data set, and a
// point is chosen on some data and judged on data it was not chosen on.
//
// Each data set counts equally, whatever its number of questions: a point
// that lifts one benchmark and drops another is judged by both.
package crossval

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/bench/locomo"
)

// Dataset is one benchmark scored at every grid point.
type Dataset struct {
	Name string
	// Recall[p][c] is case c's recall at grid point p.
	Recall [][]float64
	// Fold[c] is the fold case c is held out in, 0..Folds-1.
	Fold []int
}

// mean is the mean recall of point p over the cases keep selects, and how
// many there were.
func (d Dataset) mean(p int, keep func(c int) bool) (float64, int) {
	sum, n := 0.0, 0
	for c, r := range d.Recall[p] {
		if keep(c) {
			sum += r
			n++
		}
	}
	if n == 0 {
		return 0, 0
	}
	return sum / float64(n), n
}

// Fold is one round of the joint k-fold: fold F of every data set held out.
type Fold struct {
	Fold   int       `json:"fold"`
	Chosen []float64 `json:"chosen"`
	Label  string    `json:"label"`
	// Train is the chosen point's mean recall on the other folds, per data
	// set; HeldOut on this fold.
	Train   map[string]float64 `json:"train"`
	HeldOut map[string]float64 `json:"held_out"`
}

// LeaveOneOut is a data set scored with the point chosen on the others.
type LeaveOneOut struct {
	HeldOut string    `json:"held_out"`
	Chosen  []float64 `json:"chosen"`
	Label   string    `json:"label"`
	// Recall is the chosen point's mean recall on the held-out data set;
	// Best the best any point reaches there (in-sample, for reference).
	Recall float64 `json:"recall"`
	Best   float64 `json:"best"`
}

// Result is a joint cross-validation.
type Result struct {
	Grid     locomo.Grid `json:"grid"`
	Datasets []string    `json:"datasets"`
	Folds    []Fold      `json:"folds"`
	// Pooled is each data set's recall with every case answered by its
	// fold's chosen point: the figure to expect on unseen data like it.
	Pooled map[string]float64 `json:"pooled"`
	// LeaveOneOut chooses on every data set but one and scores that one.
	LeaveOneOut []LeaveOneOut `json:"leave_one_dataset_out"`
	// InSample is the point best on everything, and its recall per data
	// set; Default is the grid's first point's.
	InSampleLabel string             `json:"in_sample_label"`
	InSample      map[string]float64 `json:"in_sample"`
	Default       map[string]float64 `json:"default"`
}

// Validate checks the data sets against the grid and each other.
func validate(grid locomo.Grid, sets []Dataset, folds int) error {
	if err := grid.Validate(); err != nil {
		return err
	}
	if len(sets) == 0 {
		return kgmem.Invalidf("datasets", "none given")
	}
	if folds < 2 {
		return kgmem.Invalidf("folds", "is %d, must be at least 2", folds)
	}
	points := len(grid.Points())
	for _, d := range sets {
		if len(d.Recall) != points {
			return fmt.Errorf("crossval: %s has %d result sets for %d grid points", d.Name, len(d.Recall), points)
		}
		for p := range d.Recall {
			if len(d.Recall[p]) != len(d.Fold) {
				return fmt.Errorf("crossval: %s point %d has %d recalls for %d cases", d.Name, p, len(d.Recall[p]), len(d.Fold))
			}
		}
		for c, f := range d.Fold {
			if f < 0 || f >= folds {
				return fmt.Errorf("crossval: %s case %d is in fold %d, outside 0..%d", d.Name, c, f, folds-1)
			}
		}
	}
	return nil
}

// Run cross-validates grid over sets with folds folds: the joint k-fold
// (fold f of every data set held out at once, the point chosen by the
// data sets' mean recall on the rest), leave-one-data-set-out, in-sample
// and default. Ties go to the earlier point, so to the defaults.
func Run(grid locomo.Grid, sets []Dataset, folds int) (Result, error) {
	if err := validate(grid, sets, folds); err != nil {
		return Result{}, err
	}
	points := grid.Points()
	res := Result{Grid: grid, Pooled: map[string]float64{}, InSample: map[string]float64{}, Default: map[string]float64{}}
	for _, d := range sets {
		res.Datasets = append(res.Datasets, d.Name)
	}
	// best is the point with the highest mean, over the data sets use
	// selects, of their mean recall over the cases keep selects.
	best := func(use func(d int) bool, keep func(d, c int) bool) int {
		bi, bv := 0, -1.0
		for p := range points {
			sum, n := 0.0, 0
			for di, d := range sets {
				if !use(di) {
					continue
				}
				if m, cases := d.mean(p, func(c int) bool { return keep(di, c) }); cases > 0 {
					sum += m
					n++
				}
			}
			if n > 0 && sum/float64(n) > bv+1e-12 {
				bi, bv = p, sum/float64(n)
			}
		}
		return bi
	}
	all := func(int) bool { return true }
	sums := make([]float64, len(sets))
	counts := make([]int, len(sets))
	for f := range folds {
		p := best(all, func(d, c int) bool { return sets[d].Fold[c] != f })
		fold := Fold{Fold: f + 1, Chosen: points[p], Label: grid.Label(points[p]), Train: map[string]float64{}, HeldOut: map[string]float64{}}
		for di, d := range sets {
			fold.Train[d.Name], _ = d.mean(p, func(c int) bool { return d.Fold[c] != f })
			held, n := d.mean(p, func(c int) bool { return d.Fold[c] == f })
			fold.HeldOut[d.Name] = held
			sums[di] += held * float64(n)
			counts[di] += n
		}
		res.Folds = append(res.Folds, fold)
	}
	for di, d := range sets {
		if counts[di] > 0 {
			res.Pooled[d.Name] = sums[di] / float64(counts[di])
		}
	}
	everything := func(int, int) bool { return true }
	if len(sets) > 1 {
		for held, d := range sets {
			p := best(func(di int) bool { return di != held }, everything)
			lo := LeaveOneOut{HeldOut: d.Name, Chosen: points[p], Label: grid.Label(points[p])}
			lo.Recall, _ = d.mean(p, func(int) bool { return true })
			bp := best(func(di int) bool { return di == held }, everything)
			lo.Best, _ = d.mean(bp, func(int) bool { return true })
			res.LeaveOneOut = append(res.LeaveOneOut, lo)
		}
	}
	p := best(all, everything)
	res.InSampleLabel = grid.Label(points[p])
	for _, d := range sets {
		res.InSample[d.Name], _ = d.mean(p, func(int) bool { return true })
		res.Default[d.Name], _ = d.mean(0, func(int) bool { return true })
	}
	return res, nil
}

// Write prints the folds, the pooled, leave-one-out, in-sample and default
// figures, recall in percent.
func Write(w io.Writer, r Result) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprint(tw, "fold\t")
	for _, name := range r.Datasets {
		fmt.Fprintf(tw, "%s train\t%s held-out\t", name, name)
	}
	fmt.Fprintln(tw, "chosen\t")
	for _, f := range r.Folds {
		fmt.Fprintf(tw, "%d\t", f.Fold)
		for _, name := range r.Datasets {
			fmt.Fprintf(tw, "%.1f\t%.1f\t", 100*f.Train[name], 100*f.HeldOut[name])
		}
		fmt.Fprintf(tw, "%s\t\n", f.Label)
	}
	fmt.Fprintln(tw)
	fmt.Fprint(tw, "\t")
	for _, name := range r.Datasets {
		fmt.Fprintf(tw, "%s\t", name)
	}
	fmt.Fprintln(tw)
	row := func(label string, m map[string]float64) {
		fmt.Fprintf(tw, "%s\t", label)
		for _, name := range r.Datasets {
			fmt.Fprintf(tw, "%.1f\t", 100*m[name])
		}
		fmt.Fprintln(tw)
	}
	row("held-out (pooled k-fold)", r.Pooled)
	if len(r.LeaveOneOut) > 0 {
		m := map[string]float64{}
		for _, lo := range r.LeaveOneOut {
			m[lo.HeldOut] = lo.Recall
		}
		row("chosen on the other data set", m)
	}
	row("in-sample best", r.InSample)
	row("defaults (first point)", r.Default)
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, lo := range r.LeaveOneOut {
		fmt.Fprintf(w, "chosen without %s: %s (%.1f there; the best point there reaches %.1f)\n", lo.HeldOut, lo.Label, 100*lo.Recall, 100*lo.Best)
	}
	fmt.Fprintf(w, "in-sample best: %s\n", r.InSampleLabel)
	_, err := fmt.Fprintf(w, "defaults:       %s\n", r.Grid.Label(r.Grid.Points()[0]))
	return err
}
