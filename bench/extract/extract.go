// Package extract benchmarks fact extraction against a real model: the
// conversations in cases.json, each with the triples a careful reader takes
// from it, go through the extractor (the same prompts, schema and output
// negotiation kgmem uses), and the triples that come back are scored by
// precision, recall and F1 after name and predicate normalisation.
// `go run ./cmd/bench extract` is the command.
package extract

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/triples"
)

//go:embed cases.json
var casesJSON []byte

// Message is one message of a case.
type Message struct {
	Speaker   string    `json:"speaker"`
	Content   string    `json:"content"`
	Timestamp time.Time `json:"timestamp"`
}

// Fact is an expected triple.
type Fact struct {
	Subject   string `json:"subject"`
	Predicate string `json:"predicate"`
	Object    string `json:"object"`
}

// Case is one conversation and what should be extracted from it.
type Case struct {
	Name     string    `json:"name"`
	Messages []Message `json:"messages"`
	Expected []Fact    `json:"expected"`
}

// Cases returns the benchmark's cases.
func Cases() ([]Case, error) {
	var cs []Case
	if err := json.Unmarshal(casesJSON, &cs); err != nil {
		return nil, fmt.Errorf("cases.json: %w", err)
	}
	return cs, nil
}

// CaseResult is how one case went.
type CaseResult struct {
	Name    string `json:"name"`
	Matched int    `json:"matched"`
	// PairsMatched counts the expected facts whose subject and object came
	// back in that order, whatever the predicate (see ScorePairs).
	PairsMatched int      `json:"pairs_matched"`
	Expected     int      `json:"expected"`
	Extracted    int      `json:"extracted"`
	Missed       []string `json:"missed,omitempty"`
	Extra        []string `json:"extra,omitempty"`
	Error        string   `json:"error,omitempty"`
	Warnings     []string `json:"warnings,omitempty"`
	Seconds      float64  `json:"seconds"`
}

// Report is the benchmark's outcome.
type Report struct {
	Model     string       `json:"model"`
	BaseURL   string       `json:"base_url"`
	Mode      string       `json:"mode"`
	Cases     []CaseResult `json:"cases"`
	Precision float64      `json:"precision"`
	Recall    float64      `json:"recall"`
	F1        float64      `json:"f1"`
	// PairPrecision, PairRecall and PairF1 score subject and object only:
	// the gap to F1 is relations found but named differently.
	PairPrecision float64 `json:"pair_precision"`
	PairRecall    float64 `json:"pair_recall"`
	PairF1        float64 `json:"pair_f1"`
	// Failed counts the cases whose extraction returned an error.
	Failed           int     `json:"failed"`
	Messages         int     `json:"messages"`
	Calls            int     `json:"calls"`
	PromptTokens     int     `json:"prompt_tokens"`
	CompletionTokens int     `json:"completion_tokens"`
	SecondsPerMsg    float64 `json:"seconds_per_message"`
	PromptTokensCall float64 `json:"prompt_tokens_per_call"`
}

// Run extracts every case with x and scores the result.
func Run(ctx context.Context, x *triples.Extractor, cases []Case) Report {
	var rep Report
	var tp, pairs, nExpected, nExtracted int
	var wall time.Duration
	for i, c := range cases {
		req := kgmem.ExtractRequest{Namespace: "bench/extract"}
		for j, m := range c.Messages {
			req.Messages = append(req.Messages, kgmem.Episode{
				ID: fmt.Sprintf("ep_%d_%d", i, j), Namespace: req.Namespace, ThreadID: "t", MessageID: fmt.Sprint(j),
				Role: "user", Name: m.Speaker, Content: m.Content, Timestamp: m.Timestamp,
			})
		}
		start := time.Now()
		ex, err := x.Extract(ctx, req)
		took := time.Since(start)
		wall += took
		rep.Messages += len(c.Messages)
		rep.Calls += ex.Usage.Calls
		rep.PromptTokens += ex.Usage.PromptTokens
		rep.CompletionTokens += ex.Usage.CompletionTokens
		cr := CaseResult{Name: c.Name, Expected: len(c.Expected), Warnings: ex.Warnings, Seconds: took.Seconds()}
		if err != nil {
			cr.Error = err.Error()
			rep.Failed++
		}
		got := make([]Fact, 0, len(ex.Triples))
		for _, t := range ex.Triples {
			got = append(got, Fact{Subject: t.Subject, Predicate: t.Predicate, Object: t.Object})
		}
		cr.Extracted = len(got)
		cr.Matched, cr.Missed, cr.Extra = Score(c.Expected, got)
		cr.PairsMatched = ScorePairs(c.Expected, got)
		tp += cr.Matched
		pairs += cr.PairsMatched
		nExpected += len(c.Expected)
		nExtracted += len(got)
		rep.Cases = append(rep.Cases, cr)
	}
	rep.Precision, rep.Recall = ratio(tp, nExtracted), ratio(tp, nExpected)
	rep.F1 = f1(rep.Precision, rep.Recall)
	rep.PairPrecision, rep.PairRecall = ratio(pairs, nExtracted), ratio(pairs, nExpected)
	rep.PairF1 = f1(rep.PairPrecision, rep.PairRecall)
	if rep.Messages > 0 {
		rep.SecondsPerMsg = wall.Seconds() / float64(rep.Messages)
	}
	if rep.Calls > 0 {
		rep.PromptTokensCall = float64(rep.PromptTokens) / float64(rep.Calls)
	}
	rep.Mode = string(x.Mode())
	return rep
}

func ratio(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

func f1(precision, recall float64) float64 {
	if precision+recall == 0 {
		return 0
	}
	return 2 * precision * recall / (precision + recall)
}

// Score matches extracted triples to expected ones, each used once: a match
// has the same subject, predicate and object after normalisation (see key).
// It returns the matches and what was missed and extra, as text.
func Score(expected, got []Fact) (matched int, missed, extra []string) {
	left := map[string]int{}
	for _, f := range got {
		left[key(f)]++
	}
	for _, f := range expected {
		k := key(f)
		if left[k] > 0 {
			left[k]--
			matched++
			continue
		}
		missed = append(missed, k)
	}
	for _, f := range got {
		k := key(f)
		if left[k] > 0 {
			left[k]--
			extra = append(extra, k)
		}
	}
	return matched, missed, extra
}

// ScorePairs counts the expected facts matched, each extracted fact used
// once, on subject and object alone (after the same normalisation as Score,
// a passive predicate swapping them): the relation was found, whatever the
// model called it.
func ScorePairs(expected, got []Fact) int {
	left := map[string]int{}
	for _, f := range got {
		left[pairKey(f)]++
	}
	matched := 0
	for _, f := range expected {
		if k := pairKey(f); left[k] > 0 {
			left[k]--
			matched++
		}
	}
	return matched
}

func pairKey(f Fact) string {
	s, o := name(f.Subject), name(f.Object)
	if _, swap, err := triples.CanonicalPredicate(f.Predicate); err == nil && swap {
		s, o = o, s
	}
	return s + " → " + o
}

// key is a triple in canonical form: names cleaned and normalised (case,
// spacing, format characters, a leading article), the predicate in kgmem's
// canonical form (synonyms, negations) with a passive spelling turned
// active, and a leading "is_" or "has_" dropped so that "sister_of" and
// "is_sister_of" agree.
func key(f Fact) string {
	s, o := name(f.Subject), name(f.Object)
	p, swap, err := triples.CanonicalPredicate(f.Predicate)
	if err != nil {
		p = strings.ToLower(f.Predicate)
	}
	if swap {
		s, o = o, s
	}
	for _, pre := range []string{"is_", "has_"} {
		p = strings.TrimPrefix(p, pre)
	}
	return s + " —" + p + "→ " + o
}

func name(s string) string {
	n := kgmem.NormalizeName(triples.CleanEntityName(s))
	for _, a := range []string{"the ", "a ", "an ", "my ", "our "} {
		n = strings.TrimPrefix(n, a)
	}
	return n
}
