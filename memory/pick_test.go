package memory

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestPickLoadsOnlyWhatCanPlace checks that pick's batched loading returns
// exactly what scoring every candidate would (same records, same order,
// ties included), while loading far fewer records when the list is long.
func TestPickLoadsOnlyWhatCanPlace(t *testing.T) {
	type rec struct {
		id     string
		weight float64 // decay weight in [floor, 1]
		hidden bool    // dropped by keep (forgotten, out of view)
	}
	type res struct {
		id    string
		final float64
	}
	tests := []struct {
		name        string
		cands       int
		limit       int
		floor       float64
		bonus       float64
		ties        bool
		wantLoadMax int // at most this many records loaded (0: no bound)
	}{
		{"LongListFloor09", 1000, 10, 0.9, 0, false, 80},
		{"Ties", 500, 10, 0.9, 0, true, 0},
		{"SpeakerBonus", 400, 10, 0.9, 1.0 / 61, false, 0},
		{"FloorZero", 300, 10, 0, 0, false, 0},
		{"FewerThanLimit", 5, 10, 0.9, 0, false, 5},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(1, 2))
			recs := map[string]rec{}
			var cands []*fused
			for i := range tc.cands {
				id := fmt.Sprintf("r%04d", i)
				recs[id] = rec{id: id, weight: tc.floor + (1-tc.floor)*r.Float64(), hidden: r.IntN(5) == 0}
				rel := 1 / (60 + float64(i))
				if tc.ties {
					rel = 1 / (60 + float64(i/7))
				}
				cands = append(cands, &fused{id: id, score: Score{Relevance: rel}})
			}
			slices.SortStableFunc(cands, func(a, b *fused) int { return cmp.Compare(b.score.Relevance, a.score.Relevance) })
			loaded := 0
			load := func(ids []string) ([]rec, error) {
				loaded += len(ids)
				out := make([]rec, 0, len(ids))
				for _, id := range ids {
					out = append(out, recs[id])
				}
				return out, nil
			}
			rank := func(x rec, s *Score) {
				if x.id[len(x.id)-1] == '3' { // some records get the bonus
					s.Relevance += tc.bonus
				}
				s.DecayWeight = x.weight
				s.Final = s.Relevance * x.weight
			}
			got, err := pick(cands, tc.limit, load, func(x rec) string { return x.id }, func(x rec) bool { return !x.hidden },
				rank, func(x rec, s Score) res { return res{x.id, s.Final} }, func(x res) float64 { return x.final },
				1, func(x res) string { return x.id }, tc.bonus, 1)
			if err != nil {
				t.Fatal(err)
			}
			// Exhaustive reference: every candidate scored, stable by fused order.
			var all []res
			for _, c := range cands {
				x := recs[c.id]
				if x.hidden {
					continue
				}
				s := c.score
				rank(x, &s)
				all = append(all, res{x.id, s.Final})
			}
			slices.SortStableFunc(all, func(a, b res) int { return cmp.Compare(b.final, a.final) })
			want := all[:min(tc.limit, len(all))]
			if !slices.Equal(got, want) {
				t.Errorf("pick = %v\nwant %v", got, want)
			}
			if tc.wantLoadMax > 0 && loaded > tc.wantLoadMax {
				t.Errorf("loaded %d records, want at most %d", loaded, tc.wantLoadMax)
			}
			if tc.wantLoadMax == 0 && tc.cands >= 300 && loaded >= tc.cands && tc.floor > 0 {
				t.Errorf("loaded all %d candidates", loaded)
			}
		})
	}
}

// TestMatchRecords checks the pairing of candidates with loaded records:
// records in the order of the ids with some missing (the stores' contract),
// and records in another order or repeated, which fall back to a lookup.
func TestMatchRecords(t *testing.T) {
	chunk := []*fused{{id: "a"}, {id: "b"}, {id: "c"}, {id: "d"}}
	tests := []struct {
		name    string
		records []string
		want    []string // candidate id → record id, as "a=a"
	}{
		{"all, in order", []string{"a", "b", "c", "d"}, []string{"a=a", "b=b", "c=c", "d=d"}},
		{"some missing", []string{"b", "d"}, []string{"b=b", "d=d"}},
		{"none", nil, []string{}},
		{"out of order", []string{"c", "a"}, []string{"a=a", "c=c"}},
		{"repeated", []string{"a", "a", "b"}, []string{"a=a", "b=b"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := []string{}
			for _, m := range matchRecords(chunk, tc.records, func(s string) string { return s }) {
				got = append(got, m.cand.id+"="+tc.records[m.record])
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("matchRecords(%v) = %v, want %v", tc.records, got, tc.want)
			}
		})
	}
}
