package locomo

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/kgmem/kgmem"
)

// A Param is one search constant with the values a cross-validation may
// choose from; the first value is the engine's default.
type Param struct {
	Name   string    `json:"name"`
	Values []float64 `json:"values"`
}

// Grid is the declared set of constants a cross-validation chooses among:
// every combination of the params' values.
type Grid []Param

// Points lists every combination, the params' first values first and the
// last param varying fastest; a point is one value per param, in order.
func (g Grid) Points() [][]float64 {
	points := [][]float64{{}}
	for _, p := range g {
		var next [][]float64
		for _, pt := range points {
			for _, v := range p.Values {
				next = append(next, append(slices.Clip(pt), v))
			}
		}
		points = next
	}
	return points
}

// Label names a point: "thread_weight=1 speaker_weight=0.8 …".
func (g Grid) Label(point []float64) string {
	parts := make([]string, len(g))
	for i, p := range g {
		parts[i] = fmt.Sprintf("%s=%g", p.Name, point[i])
	}
	return strings.Join(parts, " ")
}

// Validate rejects an empty grid or a param without values.
func (g Grid) Validate() error {
	if len(g) == 0 {
		return kgmem.Invalidf("grid", "is empty")
	}
	for i, p := range g {
		if p.Name == "" || len(p.Values) == 0 {
			return kgmem.Invalidf(fmt.Sprintf("grid[%d]", i), "needs a name and at least one value")
		}
	}
	return nil
}

// Fold is one held-out conversation of a leave-one-conversation-out run.
type Fold struct {
	Conversation string `json:"conversation"`
	// Chosen is the point picked on the other conversations.
	Chosen []float64 `json:"chosen"`
	Label  string    `json:"label"`
	// Train is the chosen point's recall@K on the other conversations.
	Train float64 `json:"train_recall"`
	// HeldOut is the chosen point's recall on the held-out conversation.
	HeldOut RecallTable `json:"held_out"`
}

// CVResult is a leave-one-conversation-out cross-validation of the grid.
type CVResult struct {
	K     int    `json:"k"`
	Grid  Grid   `json:"grid"`
	Folds []Fold `json:"folds"`
	// Pooled is the held-out recall over every question, each answered with
	// its fold's chosen point: the figure to expect on unseen conversations.
	Pooled RecallTable `json:"pooled"`
	// InSample is the best point on all conversations and its recall there
	// (the optimistic figure, for comparison); Default is the first point's.
	InSample      RecallTable `json:"in_sample"`
	InSampleLabel string      `json:"in_sample_label"`
	Default       RecallTable `json:"default"`
}

// CrossValidate picks, for each conversation, the grid point with the best
// mean recall@k over the questions of the other conversations (ties go to
// the earlier point, so to the defaults) and scores it on the held-out one.
// retrieved[p][c] are the ids point p retrieved for cases[c], in rank order.
func CrossValidate(grid Grid, cases []Case, retrieved [][][]string, k int) (CVResult, error) {
	if err := grid.Validate(); err != nil {
		return CVResult{}, err
	}
	points := grid.Points()
	if len(retrieved) != len(points) {
		return CVResult{}, fmt.Errorf("cross-validate: %d result sets for %d grid points", len(retrieved), len(points))
	}
	recall := make([][]float64, len(points)) // [point][case]
	for p := range points {
		if len(retrieved[p]) != len(cases) {
			return CVResult{}, fmt.Errorf("cross-validate: point %d has %d answers for %d cases", p, len(retrieved[p]), len(cases))
		}
		recall[p] = make([]float64, len(cases))
		for c, cs := range cases {
			recall[p][c] = Recall(retrieved[p][c], cs.Evidence, k)
		}
	}
	var convs []string
	for _, c := range cases {
		if !slices.Contains(convs, c.Conversation) {
			convs = append(convs, c.Conversation)
		}
	}
	// best returns the point with the highest mean recall over the cases keep selects.
	best := func(keep func(Case) bool) (int, float64) {
		bi, bv := -1, -1.0
		for p := range points {
			sum, n := 0.0, 0
			for c, cs := range cases {
				if keep(cs) {
					sum += recall[p][c]
					n++
				}
			}
			if n > 0 && sum/float64(n) > bv+1e-12 {
				bi, bv = p, sum/float64(n)
			}
		}
		return bi, bv
	}
	table := func(p int, keep func(Case) bool) (RecallTable, error) {
		acc, err := NewRecallAccumulator([]int{k})
		if err != nil {
			return RecallTable{}, err
		}
		for c, cs := range cases {
			if keep(cs) {
				acc.Add(cs.Category, retrieved[p][c], cs.Evidence)
			}
		}
		return acc.Table(), nil
	}
	res := CVResult{K: k, Grid: grid}
	pooled, err := NewRecallAccumulator([]int{k})
	if err != nil {
		return CVResult{}, err
	}
	for _, conv := range convs {
		p, train := best(func(c Case) bool { return c.Conversation != conv })
		held, err := table(p, func(c Case) bool { return c.Conversation == conv })
		if err != nil {
			return CVResult{}, err
		}
		res.Folds = append(res.Folds, Fold{Conversation: conv, Chosen: points[p], Label: grid.Label(points[p]), Train: 100 * train, HeldOut: held})
		for c, cs := range cases {
			if cs.Conversation == conv {
				pooled.Add(cs.Category, retrieved[p][c], cs.Evidence)
			}
		}
	}
	res.Pooled = pooled.Table()
	all := func(Case) bool { return true }
	p, _ := best(all)
	res.InSampleLabel = grid.Label(points[p])
	if res.InSample, err = table(p, all); err != nil {
		return CVResult{}, err
	}
	if res.Default, err = table(0, all); err != nil {
		return CVResult{}, err
	}
	return res, nil
}

// WriteCV prints the per-fold table, the pooled held-out recall beside the
// in-sample and default figures, per category.
func WriteCV(w io.Writer, r CVResult) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "held out\tquestions\ttrain@%d\theld-out@%d\tchosen\n", r.K, r.K)
	for _, f := range r.Folds {
		o := f.HeldOut.Overall()
		fmt.Fprintf(tw, "%s\t%d\t%.1f\t%.1f\t%s\n", f.Conversation, o.Questions, f.Train, o.Recall[0], f.Label)
	}
	if err := tw.Flush(); err != nil {
		return fmt.Errorf("write cross-validation: %w", err)
	}
	fmt.Fprintf(w, "\nrecall@%d per category\n", r.K)
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "category\tquestions\theld-out (pooled)\tin-sample best\tdefaults\t")
	rows := func(t RecallTable) map[int]float64 {
		m := map[int]float64{}
		for _, row := range t.Rows {
			m[row.Category] = row.Recall[0]
		}
		return m
	}
	ins, def := rows(r.InSample), rows(r.Default)
	for _, row := range r.Pooled.Rows {
		fmt.Fprintf(tw, "%s\t%d\t%.1f\t%.1f\t%.1f\t\n", row.Name, row.Questions, row.Recall[0], ins[row.Category], def[row.Category])
	}
	if err := tw.Flush(); err != nil {
		return fmt.Errorf("write cross-validation: %w", err)
	}
	fmt.Fprintf(w, "in-sample best: %s\ndefaults:       %s\n", r.InSampleLabel, r.Grid.Label(r.Grid.Points()[0]))
	return nil
}
