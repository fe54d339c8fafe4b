package memory_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/memory"
)

// TestArrivalOrderDoesNotMatter is the property behind the ordering rule:
// posting the same set of facts in any order ends in the same graph — the
// same facts, each with the same status, start and end. Fact sets are
// generated from a seed (single-valued relations on both sides, symmetric
// marriages, likes/dislikes/negations, many-valued facts, explicit ends,
// restatements of the same period and closing restatements), each posted one
// fact per request in the generated order and in seeded shuffles.
//
// Every start is a distinct instant: two conflicting facts on the same
// instant are ordered by arrival, by design (see triples/timeline.go).
func TestArrivalOrderDoesNotMatter(t *testing.T) {
	for name, open := range searchBackends(t) {
		t.Run(name, func(t *testing.T) {
			sets, shuffles := 60, 4
			if name != "sqlite" {
				sets, shuffles = 8, 2
			}
			e := newSearchEngine(t, open(t), memory.SearchOptions{})
			for seed := range uint64(sets) {
				rng := rand.New(rand.NewPCG(seed, 2026))
				facts := genFactSet(rng)
				var want []string
				for k := 0; k <= shuffles; k++ {
					order := slices.Clone(facts)
					if k > 0 {
						rng.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
					}
					ns := kgmem.Namespace(fmt.Sprintf("prop/%s/s%d/o%d", strings.ReplaceAll(kgmem.NewID("r")[2:14], "_", ""), seed, k))
					for _, f := range order {
						if _, err := e.AddFacts(t.Context(), memory.AddFactsRequest{Namespace: ns, Facts: []kgmem.Triple{f}}); err != nil {
							t.Fatalf("seed %d: %v", seed, err)
						}
					}
					got := snapshot(t, e, ns)
					if k == 0 {
						want = got
						continue
					}
					if !slices.Equal(got, want) {
						t.Fatalf("seed %d order %d: end state differs\nfacts: %s\ngot:\n  %s\nwant:\n  %s", seed, k, describe(order),
							strings.Join(got, "\n  "), strings.Join(want, "\n  "))
					}
					_, _ = e.PurgeNamespace(t.Context(), ns)
				}
			}
		})
	}
}

// genFactSet draws 4–12 dated facts about a few people.
func genFactSet(rng *rand.Rand) []kgmem.Triple {
	people := []string{"Ann", "Ben", "Cy", "Dee"}
	rels := []struct {
		pred    string
		objects []string
		person  bool // object is a person
	}{
		{"lives in", []string{"Oslo", "Rome", "Lima"}, false},
		{"works at", []string{"Acme", "Globex", "Initech"}, false},
		{"is CEO of", []string{"Umbrella", "Hooli"}, false},
		{"is married to", nil, true},
		{"likes", []string{"tea", "jazz"}, false},
		{"dislikes", []string{"tea", "jazz"}, false},
		{"doesn't like", []string{"tea", "jazz"}, false},
		{"visited", []string{"Oslo", "Rome"}, false},
		{"has job title", []string{"Engineer", "Director"}, false},
	}
	base := time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)
	used := map[int]bool{}
	month := func() time.Time {
		for {
			m := rng.IntN(300)
			if !used[m] {
				used[m] = true
				return base.AddDate(0, m, 0)
			}
		}
	}
	n := 4 + rng.IntN(9)
	var out []kgmem.Triple
	for len(out) < n {
		r := rels[rng.IntN(len(rels))]
		s := people[rng.IntN(len(people))]
		var o string
		if r.person {
			o = people[rng.IntN(len(people))]
			if o == s {
				continue
			}
		} else {
			o = r.objects[rng.IntN(len(r.objects))]
		}
		f := kgmem.Triple{Subject: s, Predicate: r.pred, Object: o, ValidAt: month(), Text: fmt.Sprintf("%s %s %s.", s, r.pred, o)}
		// A fact stated again later ("back in Rome since 2015") is stated
		// open: closed periods of one fact with gaps between them, mixed with
		// open statements, are outside what the merge rule keeps order-free
		// (README, Restatement and order: known limit).
		again := slices.ContainsFunc(out, func(g kgmem.Triple) bool { return g.Subject == s && g.Predicate == r.pred && g.Object == o })
		if !again && rng.IntN(4) == 0 {
			f.InvalidAt = f.ValidAt.AddDate(0, 1+rng.IntN(60), 0)
		}
		out = append(out, f)
		switch rng.IntN(5) {
		case 0: // the same statement again
			out = append(out, f)
		case 1: // the same start, closed
			if f.InvalidAt.IsZero() && !again {
				c := f
				c.InvalidAt = f.ValidAt.AddDate(0, 1+rng.IntN(60), 0)
				out = append(out, c)
			}
		}
	}
	return out
}

// snapshot lists the end state of ns as sorted lines, ids and system times left out.
func snapshot(t *testing.T, e *memory.Engine, ns kgmem.Namespace) []string {
	t.Helper()
	views, err := e.ListFacts(t.Context(), memory.ListFactsRequest{Namespace: ns, Page: kgmem.Page{Limit: 1000}})
	if err != nil {
		t.Fatal(err)
	}
	day := func(tm time.Time) string {
		if tm.IsZero() {
			return "-"
		}
		return tm.Format("2006-01")
	}
	var out []string
	for _, v := range views {
		out = append(out, fmt.Sprintf("%s %s %s [%s, %s) %s", v.SubjectName, v.Predicate, v.ObjectName, day(v.ValidAt), day(v.InvalidAt), v.Status))
	}
	slices.Sort(out)
	return out
}

func describe(fs []kgmem.Triple) string {
	var b strings.Builder
	for _, f := range fs {
		end := ""
		if !f.InvalidAt.IsZero() {
			end = f.InvalidAt.Format("2006-01")
		}
		fmt.Fprintf(&b, "\n  %s %s %s [%s, %s)", f.Subject, f.Predicate, f.Object, f.ValidAt.Format("2006-01"), end)
	}
	return b.String()
}
