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
			recs := map[string]pickRecord{}
			var cands []*fused
			for i := range tc.cands {
				id := fmt.Sprintf("r%04d", i)
				// Some records get the bonus: those whose id ends in 3.
				recs[id] = pickRecord{id: id, weight: tc.floor + (1-tc.floor)*r.Float64(), bonus: id[len(id)-1] == '3', hidden: r.IntN(5) == 0}
				rel := 1 / (60 + float64(i))
				if tc.ties {
					rel = 1 / (60 + float64(i/7))
				}
				cands = append(cands, &fused{id: id, score: Score{Relevance: rel}})
			}
			slices.SortStableFunc(cands, func(a, b *fused) int { return cmp.Compare(b.score.Relevance, a.score.Relevance) })
			got, want, loaded := pickAndScoreEvery(t, cands, tc.limit, recs, tc.bonus, tc.exact)
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
	r := rand.New(rand.NewPCG(3, 4))
	for round := range 500 {
		n, limit := r.IntN(200), 1+r.IntN(30)
		floor, bonusShare, exact := r.Float64(), r.Float64()*0.3, r.IntN(2) == 0
		const bonus = 1.0 / 61
		recs := map[string]pickRecord{}
		cands := make([]*fused, n)
		for i := range cands {
			id := fmt.Sprintf("r%03d", i)
			// Three weights only, so that final scores tie too.
			recs[id] = pickRecord{id: id, weight: floor + (1-floor)*float64(r.IntN(3))/2, bonus: r.Float64() < bonusShare, hidden: r.IntN(6) == 0}
			// Ranks of a few retrievers, so that relevances tie often.
			cands[i] = &fused{id: id, score: Score{Relevance: 1/(60+float64(1+r.IntN(20))) + float64(r.IntN(2))/(60+float64(1+r.IntN(20)))}}
		}
		slices.SortStableFunc(cands, func(a, b *fused) int { return cmp.Compare(b.score.Relevance, a.score.Relevance) })
		got, want, _ := pickAndScoreEvery(t, cands, limit, recs, bonus, exact)
		if !slices.Equal(got, want) {
			t.Fatalf("round %d (n %d, limit %d, floor %.2f, exact %v): pick = %v\nwant %v", round, n, limit, floor, exact, got, want)
		}
	}
}

// pickRecord is a record of the pick tests: its decay weight, whether it
// gets the bonus, and whether keep drops it (forgotten, out of view).
type pickRecord struct {
	id            string
	weight        float64
	bonus, hidden bool
}

// pickResult is a record pick returned, with its final score.
type pickResult struct {
	id    string
	final float64
}

// pickAndScoreEvery runs pick over cands, whose records are recs, a record
// with a bonus getting bonus on its relevance, and scores every candidate
// for reference (stable in the order of cands). Pick bounds the bonus for
// the records that get it when exact, else for every candidate (none when
// bonus is 0). It returns both results and the records pick loaded.
func pickAndScoreEvery(t *testing.T, cands []*fused, limit int, recs map[string]pickRecord, bonus float64, exact bool) (got, want []pickResult, loaded int) {
	t.Helper()
	var bounds []float64
	if bonus > 0 {
		bounds = make([]float64, len(cands))
		for i, c := range cands {
			if !exact || recs[c.id].bonus {
				bounds[i] = bonus
			}
		}
	}
	load := func(ids []string) ([]pickRecord, error) {
		loaded += len(ids)
		out := make([]pickRecord, 0, len(ids))
		for _, id := range ids {
			out = append(out, recs[id])
		}
		return out, nil
	}
	rank := func(x pickRecord, s *Score) {
		if x.bonus {
			s.Relevance += bonus
		}
		s.DecayWeight = x.weight
		s.Final = s.Relevance * x.weight
	}
	got, err := pick(cands, limit, localFirstLoad, load, func(x pickRecord) string { return x.id }, func(x pickRecord) bool { return !x.hidden },
		rank, func(x pickRecord, s Score) pickResult { return pickResult{x.id, s.Final} }, func(x pickResult) float64 { return x.final },
		1, func(x pickResult) string { return x.id }, bounds, 1)
	if err != nil {
		t.Fatal(err)
	}
	var all []pickResult
	for _, c := range cands {
		if x := recs[c.id]; !x.hidden {
			s := c.score
			rank(x, &s)
			all = append(all, pickResult{x.id, s.Final})
		}
	}
	slices.SortStableFunc(all, func(a, b pickResult) int { return cmp.Compare(b.final, a.final) })
	return got, all[:min(limit, len(all))], loaded
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
