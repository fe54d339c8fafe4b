package locomo

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"text/tabwriter"
	"time"
)

// WriteReport prints a run as a table: recall@k per category for kgmem and
// the BM25 baseline, the README anchor, then ingest and search throughput.
func WriteReport(w io.Writer, r *Result) error {
	fmt.Fprintf(w, "LoCoMo evidence recall@k (%% of evidence turns per question, mean over questions): %d questions, %d conversations, %d turns\n",
		r.Data.Scored, r.Data.Conversations, r.Data.Turns)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	header := []string{"category", "questions"}
	for _, k := range r.Recall.Ks {
		header = append(header, fmt.Sprintf("kgmem@%d", k))
	}
	for _, k := range r.Baseline.Ks {
		header = append(header, fmt.Sprintf("bm25@%d", k))
	}
	fmt.Fprintln(tw, strings.Join(header, "\t")+"\t")
	base := map[int]RecallRow{}
	for _, row := range r.Baseline.Rows {
		base[row.Category] = row
	}
	for _, row := range r.Recall.Rows {
		cells := []string{row.Name, fmt.Sprint(row.Questions)}
		for _, v := range row.Recall {
			cells = append(cells, fmt.Sprintf("%.1f", v))
		}
		for _, v := range base[row.Category].Recall {
			cells = append(cells, fmt.Sprintf("%.1f", v))
		}
		fmt.Fprintln(tw, strings.Join(cells, "\t")+"\t")
	}
	fmt.Fprintln(tw, anchorRow(r.Baseline.Ks, r.Anchors, len(r.Recall.Ks)))
	if err := tw.Flush(); err != nil {
		return fmt.Errorf("write report: %w", err)
	}
	in, s := r.Ingest, r.Search
	fmt.Fprintf(w, "ingest: %d messages in %s = %.1f messages/s (%d requests, batch %d, concurrency %d, extract %t, %d fact changes, %d warnings)\n",
		in.Messages, round(time.Duration(in.Wall)), in.MessagesPerSecond, in.Requests, r.Config.Batch, r.Config.Concurrency, r.Config.Extract, in.FactChanges, in.Warnings)
	if in.FirstWarning != "" {
		fmt.Fprintf(w, "  first warning: %s\n", in.FirstWarning)
	}
	for _, name := range slices.Sorted(maps.Keys(r.Retrievers)) {
		t := r.Retrievers[name]
		cells := []string{}
		for _, k := range t.Ks {
			v, _ := t.At(t.Overall(), k)
			cells = append(cells, fmt.Sprintf("@%d %.1f", k, v))
		}
		fmt.Fprintf(w, "retriever %s alone (its own ranks, from a limit-%d pass): %s\n", name, RetrieverLimit, strings.Join(cells, ", "))
	}
	if r.Config.DecayFloor > 0 {
		fmt.Fprintf(w, "decay floor %.2f\n", r.Config.DecayFloor)
	}
	_, err := fmt.Fprintf(w, "search: %d queries in %s = %.1f QPS; latency p50 %s, p99 %s, max %s (concurrency %d, reinforce %t, decay %t, %d empty)\n",
		s.Queries, round(time.Duration(s.Wall)), s.QPS, round(time.Duration(s.P50)), round(time.Duration(s.P99)), round(time.Duration(s.Max)), r.Config.Concurrency, r.Config.Reinforce, !r.Config.DecayOff, s.Empty)
	return err
}

// WriteBaseline prints the BM25 baseline alone (the --baseline mode).
func WriteBaseline(w io.Writer, t RecallTable, d DataStats, scope Scope) error {
	fmt.Fprintf(w, "LoCoMo BM25 baseline (Okapi k1 %.1f b %.2f, NLTK stop words, scope %s): %d questions, %d conversations, %d turns\n",
		BM25K1, BM25B, scope, d.Scored, d.Conversations, d.Turns)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	header := []string{"category", "questions"}
	for _, k := range t.Ks {
		header = append(header, fmt.Sprintf("bm25@%d", k))
	}
	fmt.Fprintln(tw, strings.Join(header, "\t")+"\t")
	for _, row := range t.Rows {
		cells := []string{row.Name, fmt.Sprint(row.Questions)}
		for _, v := range row.Recall {
			cells = append(cells, fmt.Sprintf("%.1f", v))
		}
		fmt.Fprintln(tw, strings.Join(cells, "\t")+"\t")
	}
	fmt.Fprintln(tw, anchorRow(t.Ks, Anchors, 0))
	if err := tw.Flush(); err != nil {
		return fmt.Errorf("write baseline: %w", err)
	}
	_, err := fmt.Fprintf(w, "left out: %d questions without a valid evidence id; malformed ids %v; unknown ids %v\n",
		d.NoEvidence, d.MalformedIDs, d.UnknownIDs)
	return err
}

// anchorRow is the README anchor line, aligned under the bm25 columns after skip columns.
func anchorRow(ks []int, anchors map[int]float64, skip int) string {
	cells := []string{"README bm25 anchor", ""}
	for range skip {
		cells = append(cells, "")
	}
	for _, k := range ks {
		if v, ok := anchors[k]; ok {
			cells = append(cells, fmt.Sprintf("%.1f", v))
		} else {
			cells = append(cells, "-")
		}
	}
	return strings.Join(cells, "\t") + "\t"
}

// round shortens a duration for display.
func round(d time.Duration) time.Duration {
	switch {
	case d >= 10*time.Second:
		return d.Round(100 * time.Millisecond)
	case d >= time.Second:
		return d.Round(10 * time.Millisecond)
	case d >= time.Millisecond:
		return d.Round(10 * time.Microsecond)
	}
	return d
}
