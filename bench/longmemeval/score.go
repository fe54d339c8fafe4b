package longmemeval

import (
	"slices"

	"github.com/kgmem/kgmem/bench/locomo"
)

// Scores are one question's figures at one cut-off k.
type Scores struct {
	// Turn is turn recall@k: the fraction of the case's evidence turns
	// among the first k retrieved. HasTurns is false for a case without
	// evidence turns, left out of turn recall (Turn is then 0).
	Turn     float64 `json:"turn"`
	HasTurns bool    `json:"has_turns"`
	// Any is session recall_any@k: 1 when any of the first k belongs to an
	// answer session. All is recall_all@k: 1 when every answer session has
	// a turn among them. HasSessions is false for a case without answer
	// sessions, left out of both.
	Any         float64 `json:"any"`
	All         float64 `json:"all"`
	HasSessions bool    `json:"has_sessions"`
}

// Score scores the message ids retrieved for c, in rank order, at k.
func Score(c Case, retrieved []string, k int) Scores {
	s := Scores{HasTurns: len(c.Evidence) > 0, HasSessions: len(c.AnswerSessions) > 0}
	if s.HasTurns {
		s.Turn = locomo.Recall(retrieved, c.Evidence, k)
	}
	if !s.HasSessions || k <= 0 {
		return s
	}
	top := make(map[string]bool, k)
	for _, id := range retrieved[:min(k, len(retrieved))] {
		top[SessionOf(id)] = true
	}
	found := 0
	for _, sid := range c.AnswerSessions {
		if top[sid] {
			found++
		}
	}
	if found > 0 {
		s.Any = 1
	}
	if found == len(c.AnswerSessions) {
		s.All = 1
	}
	return s
}

// Overall names the row over every question type.
const Overall = "overall"

// Row holds the mean figures of one question type (or of all, Overall).
type Row struct {
	Type string `json:"type"`
	// Questions counts the cases scored at session level; TurnQuestions
	// those scored at turn level (with evidence turns).
	Questions     int `json:"questions"`
	TurnQuestions int `json:"turn_questions"`
	// Turn[i], Any[i] and All[i] are the means at Table.Ks[i].
	Turn []float64 `json:"turn_recall"`
	Any  []float64 `json:"recall_any"`
	All  []float64 `json:"recall_all"`
}

// Table is the figures per question type (in name order), Overall last.
type Table struct {
	Ks   []int `json:"k"`
	Rows []Row `json:"rows"`
}

// Row returns the row of a question type (or Overall).
func (t Table) Row(typ string) (Row, bool) {
	for _, r := range t.Rows {
		if r.Type == typ {
			return r, true
		}
	}
	return Row{}, false
}

// Overall is the row over every question.
func (t Table) Overall() Row {
	r, _ := t.Row(Overall)
	return r
}

// NewTable scores every case at every k: retrieved[i] are the ids found for
// cases[i], in rank order; keep, when not nil, selects the cases counted.
func NewTable(cases []Case, retrieved [][]string, ks []int, keep func(i int) bool) (Table, error) {
	if err := locomo.ValidateKs(ks); err != nil {
		return Table{}, err
	}
	type sums struct {
		n, nTurn       int
		turn, any, all []float64
	}
	by := map[string]*sums{}
	get := func(typ string) *sums {
		s := by[typ]
		if s == nil {
			s = &sums{turn: make([]float64, len(ks)), any: make([]float64, len(ks)), all: make([]float64, len(ks))}
			by[typ] = s
		}
		return s
	}
	get(Overall)
	for i, c := range cases {
		if keep != nil && !keep(i) {
			continue
		}
		var ids []string
		if i < len(retrieved) {
			ids = retrieved[i]
		}
		for _, s := range []*sums{get(c.Type), get(Overall)} {
			for j, k := range ks {
				sc := Score(c, ids, k)
				if sc.HasTurns {
					s.turn[j] += sc.Turn
				}
				if sc.HasSessions {
					s.any[j] += sc.Any
					s.all[j] += sc.All
				}
				if j == 0 {
					if sc.HasTurns {
						s.nTurn++
					}
					if sc.HasSessions {
						s.n++
					}
				}
			}
		}
	}
	mean := func(v []float64, n int) []float64 {
		out := make([]float64, len(v))
		for i := range v {
			if n > 0 {
				out[i] = v[i] / float64(n)
			}
		}
		return out
	}
	types := make([]string, 0, len(by))
	for typ := range by {
		if typ != Overall {
			types = append(types, typ)
		}
	}
	slices.Sort(types)
	t := Table{Ks: slices.Clone(ks)}
	for _, typ := range append(types, Overall) {
		s := by[typ]
		t.Rows = append(t.Rows, Row{Type: typ, Questions: s.n, TurnQuestions: s.nTurn, Turn: mean(s.turn, s.nTurn), Any: mean(s.any, s.n), All: mean(s.all, s.n)})
	}
	return t, nil
}

// BM25 ranks the haystack's messages for query by Okapi BM25 (k1 1.2,
// b 0.75, lower-cased words without English stop words: locomo.BM25) and
// returns the first limit message ids.
func BM25(h Haystack, query string, limit int) []string {
	var ids, docs []string
	for _, th := range h.Threads {
		for _, m := range th.Messages {
			ids = append(ids, m.ID)
			docs = append(docs, m.Content)
		}
	}
	ix := locomo.NewBM25(docs)
	top := ix.Search(query, limit, nil)
	out := make([]string, len(top))
	for i, d := range top {
		out[i] = ids[d]
	}
	return out
}
