package lexical

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
)

// model is the documents an index should hold, in insertion order, as a
// store holds them: an upsert keeps a document's place, a removal frees it.
type model struct {
	docs []Doc
}

func (m *model) find(id string) int {
	return slices.IndexFunc(m.docs, func(d Doc) bool { return d.ID == id })
}

func (m *model) apply(u Update) {
	for _, id := range u.Remove {
		if i := m.find(id); i >= 0 {
			m.docs = slices.Delete(m.docs, i, i+1)
		}
	}
	for _, d := range u.Upsert {
		if i := m.find(d.ID); i >= 0 {
			m.docs[i] = d
		} else {
			m.docs = append(m.docs, d)
		}
	}
	for _, d := range u.Insert {
		if m.find(d.ID) < 0 {
			m.docs = append(m.docs, d)
		}
	}
}

// TestWithRanksAsBuild applies random updates — inserts, upserts that
// rewrite or expire documents, removals, repeated ids — through With and
// checks after each that every query ranks exactly (ids, order and scores
// bit for bit) as an index built from the resulting documents, across
// segment merges, and that every id has the label of its live document,
// none once removed.
func TestWithRanksAsBuild(t *testing.T) {
	words := []string{"bob", "leads", "team", "alice", "hiking", "boots", "carol", "joined", "labs", "walks", "dawn", "ferry", "leaves", "at", "the"}
	r := rand.New(rand.NewPCG(7, 11))
	text := func() string {
		n := 1 + r.IntN(8)
		w := make([]string, n)
		for i := range w {
			w[i] = words[r.IntN(len(words))]
		}
		return fmt.Sprint(w)
	}
	doc := func() Doc {
		labels := []string{"", "Caroline", "Melanie", "Bob"}
		return Doc{ID: fmt.Sprintf("d%d", r.IntN(60)), Text: text(), Expired: r.IntN(5) == 0, Label: labels[r.IntN(len(labels))]}
	}
	queries := [][]string{{"bob"}, {"team", "leads"}, {"hiking", "boot"}, {"ferri", "dawn", "leav"}, {"carol", "lab", "join", "walk"}, {"the"}}
	for _, q := range queries {
		for i := range q {
			q[i] = Token(q[i])
		}
	}
	for round := range 20 {
		var m model
		ix := Build(nil)
		for step := range 60 {
			var u Update
			for range r.IntN(4) {
				u.Upsert = append(u.Upsert, doc())
			}
			for range r.IntN(4) {
				u.Insert = append(u.Insert, doc())
			}
			for range r.IntN(3) {
				u.Remove = append(u.Remove, fmt.Sprintf("d%d", r.IntN(60)))
			}
			before := ix
			beforeHits := before.Search(queries[0], 100, true)
			ix = ix.With(u)
			m.apply(u)
			if got := before.Search(queries[0], 100, true); !reflect.DeepEqual(got, beforeHits) {
				t.Fatalf("round %d step %d: With changed the index it was called on", round, step)
			}
			want := Build(m.docs)
			if ix.Len() != want.Len() {
				t.Fatalf("round %d step %d: Len %d, want %d", round, step, ix.Len(), want.Len())
			}
			for n := range 60 {
				id := fmt.Sprintf("d%d", n)
				got, held := ix.Label(id)
				wantLabel, wantHeld := "", false
				if i := m.find(id); i >= 0 {
					wantLabel, wantHeld = m.docs[i].Label, true
				}
				if got != wantLabel || held != wantHeld {
					t.Fatalf("round %d step %d, %d segments: Label(%s) = %q, %v; want %q, %v", round, step, len(ix.segs), id, got, held, wantLabel, wantHeld)
				}
			}
			for _, q := range queries {
				for _, expired := range []bool{false, true} {
					got, exp := ix.Search(q, 10, expired), want.Search(q, 10, expired)
					if !reflect.DeepEqual(got, exp) {
						t.Fatalf("round %d step %d, query %v (expired %v), %d segments:\n got %v\nwant %v", round, step, q, expired, len(ix.segs), got, exp)
					}
				}
			}
		}
	}
}

func TestWithoutChangesIsTheSameIndex(t *testing.T) {
	ix := Build([]Doc{{ID: "a", Text: "alpha"}})
	if ix.With(Update{}) != ix {
		t.Error("an empty update built a new index")
	}
	if got := ix.With(Update{Remove: []string{"nope"}}).Search([]string{"alpha"}, 5, false); len(got) != 1 {
		t.Errorf("removing an unknown id changed the index: %v", got)
	}
}

// BenchmarkWithOneDoc is the cost of a write's update on an index of 5,000
// documents, against BenchmarkBuild's full rebuild.
func BenchmarkWithOneDoc(b *testing.B) {
	docs := make([]Doc, 5000)
	for i := range docs {
		docs[i] = Doc{ID: fmt.Sprint("d", i), Text: fmt.Sprintf("message %d about the ferry at dawn and the team %d", i, i%50)}
	}
	ix := Build(docs)
	b.ResetTimer()
	for i := range b.N {
		ix = ix.With(Update{Insert: []Doc{{ID: fmt.Sprint("n", i), Text: "a new message about the ferry"}}})
	}
}
