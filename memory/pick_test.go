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
// A bonus some records get is bounded either for every candidate or, when
// the caller knows which get it (exact), for those only, which must load
// fewer records for the same result.
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
		exact       bool
		ties        bool
		wantLoadMax int // at most this many records loaded (0: no bound)
	}{
		{"LongListFloor09", 1000, 10, 0.9, 0, false, false, 80},
		{"Ties", 500, 10, 0.9, 0, false, true, 0},
		{"SpeakerBonus", 400, 10, 0.9, 1.0 / 61, false, false, 0},
		{"SpeakerBonusExact", 400, 10, 0.9, 1.0 / 61, true, false, 0},
		{"SpeakerBonusExactTies", 400, 10, 0.9, 1.0 / 61, true, true, 0},
		{"FloorZero", 300, 10, 0, 0, false, false, 0},
		{"FewerThanLimit", 5, 10, 0.9, 0, false, false, 5},
	}
	loadedWithBonus := map[bool]int{} // by exact, of SpeakerBonus*
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
			gets := func(id string) bool { return id[len(id)-1] == '3' } // some records get the bonus
			var bonus []float64
			if tc.bonus > 0 {
				bonus = make([]float64, len(cands))
				for i, c := range cands {
					if !tc.exact || gets(c.id) {
						bonus[i] = tc.bonus
					}
				}
			}
			rank := func(x rec, s *Score) {
				if gets(x.id) {
					s.Relevance += tc.bonus
				}
				s.DecayWeight = x.weight
				s.Final = s.Relevance * x.weight
			}
			got, err := pick(cands, tc.limit, load, func(x rec) string { return x.id }, func(x rec) bool { return !x.hidden },
				rank, func(x rec, s Score) res { return res{x.id, s.Final} }, func(x res) float64 { return x.final },
				1, func(x res) string { return x.id }, bonus, 1)
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
			if tc.wantLoadMax == 0 && tc.cands >= 300 && loaded >= tc.cands && tc.floor > 0 && !tc.ties {
				t.Errorf("loaded all %d candidates", loaded)
			}
			if tc.bonus > 0 && !tc.ties {
				loadedWithBonus[tc.exact] = loaded
			}
		})
	}
	if exact, every := loadedWithBonus[true], loadedWithBonus[false]; exact == 0 || exact >= every {
		t.Errorf("with the bonus bounded where it applies pick loaded %d records, for every candidate %d: want fewer", exact, every)
	}
}

// TestPickMatchesScoringEveryCandidate compares pick with scoring every
// candidate on random lists: relevances with ties, a bonus some records get
// (bounded for those only, or for all), decay weights down to a random
// floor, records keep drops, and limits from 1 to past the list's length.
func TestPickMatchesScoringEveryCandidate(t *testing.T) {
	type rec struct {
		id     string
		weight float64
		bonus  bool
		hidden bool
	}
	type res struct {
		id    string
		final float64
	}
	r := rand.New(rand.NewPCG(3, 4))
	for round := range 500 {
		n, limit := r.IntN(200), 1+r.IntN(30)
		floor, bonusShare, exact := r.Float64(), r.Float64()*0.3, r.IntN(2) == 0
		const bonus = 1.0 / 61
		recs := map[string]rec{}
		cands := make([]*fused, n)
		for i := range cands {
			id := fmt.Sprintf("r%03d", i)
			// Three weights only, so that final scores tie too.
			recs[id] = rec{id: id, weight: floor + (1-floor)*float64(r.IntN(3))/2, bonus: r.Float64() < bonusShare, hidden: r.IntN(6) == 0}
			// Ranks of a few retrievers, so that relevances tie often.
			cands[i] = &fused{id: id, score: Score{Relevance: 1/(60+float64(1+r.IntN(20))) + float64(r.IntN(2))/(60+float64(1+r.IntN(20)))}}
		}
		slices.SortStableFunc(cands, func(a, b *fused) int { return cmp.Compare(b.score.Relevance, a.score.Relevance) })
		bounds := make([]float64, n)
		for i, c := range cands {
			if !exact || recs[c.id].bonus {
				bounds[i] = bonus
			}
		}
		rank := func(x rec, s *Score) {
			if x.bonus {
				s.Relevance += bonus
			}
			s.Final = s.Relevance * x.weight
		}
		load := func(ids []string) ([]rec, error) {
			out := make([]rec, 0, len(ids))
			for _, id := range ids {
				out = append(out, recs[id])
			}
			return out, nil
		}
		got, err := pick(cands, limit, load, func(x rec) string { return x.id }, func(x rec) bool { return !x.hidden },
			rank, func(x rec, s Score) res { return res{x.id, s.Final} }, func(x res) float64 { return x.final },
			1, func(x res) string { return x.id }, bounds, 1)
		if err != nil {
			t.Fatal(err)
		}
		var all []res
		for _, c := range cands {
			if x := recs[c.id]; !x.hidden {
				s := c.score
				rank(x, &s)
				all = append(all, res{x.id, s.Final})
			}
		}
		slices.SortStableFunc(all, func(a, b res) int { return cmp.Compare(b.final, a.final) })
		if want := all[:min(limit, len(all))]; !slices.Equal(got, want) {
			t.Fatalf("round %d (n %d, limit %d, floor %.2f, exact %v): pick = %v\nwant %v", round, n, limit, floor, exact, got, want)
		}
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
				got = append(got, chunk[m.pos].id+"="+tc.records[m.record])
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("matchRecords(%v) = %v, want %v", tc.records, got, tc.want)
			}
		})
	}
}
