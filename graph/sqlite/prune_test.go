package sqlite

import (
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kgmem/kgmem"
)

// TestPrunedRankingIsExact searches a corpus of Zipf-distributed words, where
// most queries hold a very common term, and checks that ranking with pruning
// returns exactly the rows and scores of the full bm25() query.
func TestPrunedRankingIsExact(t *testing.T) {
	s, err := Open(t.Context(), filepath.Join(t.TempDir(), "g.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	rng := rand.New(rand.NewPCG(7, 7))
	vocab := make([]string, 2000)
	for i := range vocab {
		vocab[i] = fmt.Sprintf("w%dx", i)
	}
	zipf := rand.NewZipf(rng, 1.1, 1, uint64(len(vocab)-1))
	text := func(n int) string {
		ws := make([]string, n)
		for i := range ws {
			ws[i] = vocab[zipf.Uint64()]
		}
		return strings.Join(ws, " ")
	}
	ns := kgmem.Namespace("prune/a")
	other := kgmem.Namespace("prune/b") // another namespace's rows raise the row count
	for _, n := range []kgmem.Namespace{ns, other} {
		cs := kgmem.ChangeSet{Namespace: n, Entities: []kgmem.Entity{{ID: "ent_" + string(n), Namespace: n, Name: "E"}}}
		for i := range 3000 {
			f := kgmem.Fact{ID: fmt.Sprintf("fact_%s_%d", n, i), Namespace: n, SubjectID: "ent_" + string(n), Predicate: "p",
				ObjectID: "ent_" + string(n), Text: text(4 + rng.IntN(12))}
			if i%10 == 0 {
				f.ExpiredAt = time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
			}
			cs.Facts = append(cs.Facts, f)
		}
		if err := s.Apply(t.Context(), cs); err != nil {
			t.Fatal(err)
		}
	}
	src := ftsSources()[0]
	pruned := 0
	for range 200 {
		terms := queryTerms(text(2 + rng.IntN(3)))
		q := ftsQuery{src: src, always: nsToken(ns), prefix: wordPrefix(ns), terms: terms, limit: 1 + rng.IntN(20)}
		want, _, err := s.rank(t.Context(), q, 0)
		if err != nil {
			t.Fatal(err)
		}
		got, usedPruning, err := s.rank(t.Context(), q, 100)
		if err != nil {
			t.Fatal(err)
		}
		if usedPruning {
			pruned++
		}
		if len(got) != len(want) {
			t.Fatalf("query %q limit %d: %d rows pruned, %d full", terms, q.limit, len(got), len(want))
		}
		for j := range want {
			if got[j].rid != want[j].rid || math.Abs(got[j].score-want[j].score) > 1e-9 {
				t.Fatalf("query %q row %d: pruned %+v, full %+v", terms, j, got[j], want[j])
			}
		}
	}
	if pruned < 50 {
		t.Fatalf("pruning answered only %d of 200 queries; the test does not exercise it", pruned)
	}
	t.Logf("pruning answered %d of 200 queries", pruned)
}
