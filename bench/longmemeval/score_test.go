package longmemeval

import (
	"math"
	"slices"
	"testing"
)

func TestScore(t *testing.T) {
	c := Case{Evidence: []string{"a:0", "b:1", "b:2"}, AnswerSessions: []string{"a", "b"}}
	tests := []struct {
		name      string
		c         Case
		retrieved []string
		k         int
		want      Scores
	}{
		{"nothing found", c, []string{"x:0", "y:1"}, 5, Scores{HasTurns: true, HasSessions: true}},
		{"one of three turns, one session", c, []string{"x:0", "b:2", "y:1"}, 5, Scores{Turn: 1.0 / 3, HasTurns: true, Any: 1, HasSessions: true}},
		{"every session, two turns", c, []string{"a:0", "b:7", "b:1"}, 5, Scores{Turn: 2.0 / 3, HasTurns: true, Any: 1, All: 1, HasSessions: true}},
		{"cut at k", c, []string{"x:0", "a:0", "b:1", "b:2"}, 2, Scores{Turn: 1.0 / 3, HasTurns: true, Any: 1, HasSessions: true}},
		{"all turns, duplicates once", c, []string{"a:0", "a:0", "b:1", "b:2"}, 10, Scores{Turn: 1, HasTurns: true, Any: 1, All: 1, HasSessions: true}},
		{"session without evidence turn counts", c, []string{"b:9", "a:5"}, 2, Scores{HasTurns: true, Any: 1, All: 1, HasSessions: true}},
		{"no evidence turns: left out of turn recall", Case{AnswerSessions: []string{"a"}}, []string{"a:1"}, 1, Scores{Any: 1, All: 1, HasSessions: true}},
		{"no answer sessions", Case{Evidence: []string{"a:0"}}, []string{"a:0"}, 1, Scores{Turn: 1, HasTurns: true}},
		{"empty result", c, nil, 10, Scores{HasTurns: true, HasSessions: true}},
	}
	for _, tt := range tests {
		got := Score(tt.c, tt.retrieved, tt.k)
		if math.Abs(got.Turn-tt.want.Turn) > 1e-12 || got.HasTurns != tt.want.HasTurns || got.Any != tt.want.Any || got.All != tt.want.All || got.HasSessions != tt.want.HasSessions {
			t.Errorf("%s: Score = %+v, want %+v", tt.name, got, tt.want)
		}
	}
}

func TestNewTable(t *testing.T) {
	cases := []Case{
		{QuestionID: "1", Type: "b-type", Evidence: []string{"s:0", "s:1"}, AnswerSessions: []string{"s"}},
		{QuestionID: "2", Type: "b-type", Evidence: []string{"t:0"}, AnswerSessions: []string{"t", "u"}},
		{QuestionID: "3", Type: "a-type", Evidence: nil, AnswerSessions: []string{"v"}},
	}
	retrieved := [][]string{
		{"s:0", "x:0", "s:1"}, // @1: turn 1/2, any 1, all 1; @3: turn 1
		{"u:0", "t:0"},        // @1: turn 0, any 1, all 0; @3: turn 1, all 1
		{"w:0", "v:3"},        // @1: any 0; @3: any 1, all 1 (no turn recall)
	}
	tab, err := NewTable(cases, retrieved, []int{1, 3}, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []Row{
		{Type: "a-type", Questions: 1, TurnQuestions: 0, Turn: []float64{0, 0}, Any: []float64{0, 1}, All: []float64{0, 1}},
		{Type: "b-type", Questions: 2, TurnQuestions: 2, Turn: []float64{0.25, 1}, Any: []float64{1, 1}, All: []float64{0.5, 1}},
		{Type: Overall, Questions: 3, TurnQuestions: 2, Turn: []float64{0.25, 1}, Any: []float64{2.0 / 3, 1}, All: []float64{1.0 / 3, 1}},
	}
	if len(tab.Rows) != len(want) {
		t.Fatalf("rows %+v", tab.Rows)
	}
	near := func(a, b []float64) bool {
		return slices.EqualFunc(a, b, func(x, y float64) bool { return math.Abs(x-y) < 1e-12 })
	}
	for i, w := range want {
		g := tab.Rows[i]
		if g.Type != w.Type || g.Questions != w.Questions || g.TurnQuestions != w.TurnQuestions || !near(g.Turn, w.Turn) || !near(g.Any, w.Any) || !near(g.All, w.All) {
			t.Errorf("row %d = %+v, want %+v", i, g, w)
		}
	}
	if tab.Overall().Type != Overall {
		t.Error("Overall() is not the overall row")
	}
	only, _ := NewTable(cases, retrieved, []int{1}, func(i int) bool { return i == 1 })
	if o := only.Overall(); o.Questions != 1 || o.Turn[0] != 0 || o.Any[0] != 1 {
		t.Errorf("keep: overall %+v", o)
	}
	if _, err := NewTable(cases, retrieved, []int{0}, nil); err == nil {
		t.Error("k 0 accepted")
	}
}

func TestBM25(t *testing.T) {
	qs := loadFixture(t)
	tests := []struct {
		q     int
		query string
		top   []string
	}{
		{0, qs[0].Question, []string{"s1:0"}},
		{0, "umbrella rainy weather", []string{"s2:1", "s2:2"}},
		{1, qs[1].Question, []string{"a1:0", "a2:0"}},
	}
	for _, tt := range tests {
		h, err := BuildHaystack(qs[tt.q], 0)
		if err != nil {
			t.Fatal(err)
		}
		got := BM25(h, tt.query, 10)
		if len(got) != h.Messages() {
			t.Errorf("%q: %d results for %d messages (BM25 ranks every turn)", tt.query, len(got), h.Messages())
		}
		top := slices.Clone(got[:len(tt.top)])
		slices.Sort(top)
		if !slices.Equal(top, tt.top) {
			t.Errorf("%q: top %v, want %v (all %v)", tt.query, top, tt.top, got)
		}
		if got := BM25(h, tt.query, 1); len(got) != 1 {
			t.Errorf("limit 1 gave %v", got)
		}
	}
}
