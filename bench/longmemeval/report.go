package longmemeval

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// WriteReport prints a run: per question type, turn recall and session
// recall_any / recall_all at each k for kgmem and BM25 with the
// difference, then ingest throughput and search latency.
func WriteReport(w io.Writer, r *Result) error {
	d := r.Data
	fmt.Fprintf(w, "LongMemEval (%s): %d questions scored (%d abstention left out), %d sessions, %d turns ingested",
		r.Target, d.Scored, d.Abstention, d.Sessions, d.Messages)
	fmt.Fprintf(w, " (%d empty turns skipped, %d over-long turns truncated, %d repeated sessions left out)\n", d.EmptyTurns, d.TruncatedTurns, d.RepeatedSessions)
	metrics := []struct {
		name string
		get  func(Row) []float64
		n    func(Row) int
	}{
		{"turn recall", func(r Row) []float64 { return r.Turn }, func(r Row) int { return r.TurnQuestions }},
		{"session recall_any", func(r Row) []float64 { return r.Any }, func(r Row) int { return r.Questions }},
		{"session recall_all", func(r Row) []float64 { return r.All }, func(r Row) int { return r.Questions }},
	}
	for _, m := range metrics {
		fmt.Fprintf(w, "\n%s@k\n", m.name)
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		header := []string{"type", "questions"}
		for _, k := range r.Ks {
			header = append(header, fmt.Sprintf("kgmem@%d", k), fmt.Sprintf("bm25@%d", k), "Δ")
		}
		fmt.Fprintln(tw, strings.Join(header, "\t")+"\t")
		for _, row := range r.Recall.Rows {
			base, _ := r.Baseline.Row(row.Type)
			cells := []string{row.Type, fmt.Sprint(m.n(row))}
			kg, bm := m.get(row), m.get(base)
			for i := range r.Ks {
				cells = append(cells, fmt.Sprintf("%.3f", kg[i]), fmt.Sprintf("%.3f", bm[i]), fmt.Sprintf("%+.3f", kg[i]-bm[i]))
			}
			fmt.Fprintln(tw, strings.Join(cells, "\t")+"\t")
		}
		if err := tw.Flush(); err != nil {
			return fmt.Errorf("write report: %w", err)
		}
	}
	in, f, s := r.Ingest, r.Fresh, r.Search
	fmt.Fprintf(w, "\ningest: %d messages in %d requests (batch %d, %d questions at once): %.0f msg/s per stream, %.0f msg/s overall (%.1f s, searches after each ingest included)\n",
		in.Messages, in.Requests, r.Batch, r.Concurrency, in.PerStream, in.Overall, durSeconds(in.Wall))
	fmt.Fprintf(w, "first search on a fresh namespace right after its ingest: p50 %s, p99 %s, max %s; repeated at once: p50 %s, p99 %s (%d namespaces)\n",
		ms(f.First.P50), ms(f.First.P99), ms(f.First.Max), ms(f.Repeat.P50), ms(f.Repeat.P99), f.First.Searches)
	_, err := fmt.Fprintf(w, "scored searches: p50 %s, p99 %s, max %s (%d searches, %d at once)\n", ms(s.P50), ms(s.P99), ms(s.Max), s.Searches, r.Concurrency)
	return err
}

func durSeconds(d Duration) float64 { return float64(d) / 1e9 }

// ms formats a duration in milliseconds.
func ms(d Duration) string { return fmt.Sprintf("%.1f ms", float64(d)/1e6) }
