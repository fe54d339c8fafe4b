package memory

import (
	"slices"
	"testing"
)

func TestDiversify(t *testing.T) {
	type doc struct {
		text  string
		score float64
	}
	docs := []doc{
		{"Bob leads the ML team", 1.0},
		{"Bob leads the ML team now", 0.95}, // a near-duplicate of the first
		{"Alice mentors Bob", 0.9},
		{"Carol joined in March", 0.5},
	}
	tests := []struct {
		name   string
		lambda float64
		limit  int
		want   []string
	}{
		{"lambda 1 keeps the order", 1, 3, []string{docs[0].text, docs[1].text, docs[2].text}},
		{"the near-duplicate gives way", 0.5, 3, []string{docs[0].text, docs[2].text, docs[3].text}},
		{"relevance only decides the first", 0.1, 1, []string{docs[0].text}},
		{"limit beyond the list", 0.5, 10, []string{docs[0].text, docs[2].text, docs[3].text, docs[1].text}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := diversify(slices.Clone(docs), tc.limit, tc.lambda, func(d doc) string { return d.text }, func(d doc) float64 { return d.score })
			texts := make([]string, len(got))
			for i, d := range got {
				texts[i] = d.text
			}
			if !slices.Equal(texts, tc.want) {
				t.Errorf("diversify = %q, want %q", texts, tc.want)
			}
		})
	}
}

func TestKeywords(t *testing.T) {
	tests := []struct {
		query string
		want  []string
	}{
		{"What did Caroline research?", []string{"caroline", "research"}},
		{"Who leads the team Alice used to manage?", []string{"leads", "team", "alice", "used", "manage"}},
		{"How long have Mel and her husband been married?", []string{"long", "mel", "husband", "married"}},
		{"what is it?", []string{"what", "is", "it"}}, // only stop words: keep them
		{"Caroline's plans, Caroline’s plans", []string{"caroline", "plans"}},
	}
	for _, tc := range tests {
		if got := keywords(tc.query); !slices.Equal(got, tc.want) {
			t.Errorf("keywords(%q) = %q, want %q", tc.query, got, tc.want)
		}
	}
}
