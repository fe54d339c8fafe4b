package synth

import (
	"math/rand/v2"
	"sort"
	"strings"

	"github.com/kgmem/kgmem"
	"golang.org/x/sync/errgroup"
)

// Query styles: how a query was drawn from a fact.
const (
	// StyleName is an entity's name or alias ("Alice Smith").
	StyleName = "name"
	// StyleQuestion asks about the fact ("who leads the Payments team").
	StyleQuestion = "question"
	// StyleKeywords is the subject and the predicate's words ("Alice Smith works at").
	StyleKeywords = "keywords"
	// StyleParaphrase is the fact's sentence lowercased, unpunctuated, one word dropped.
	StyleParaphrase = "paraphrase"
)

// Query is one benchmark search, drawn from a generated fact.
type Query struct {
	Namespace kgmem.Namespace `json:"namespace"`
	Text      string          `json:"text"`
	Style     string          `json:"style"`
	// Kind and ID name the record the query was drawn from (the fact, or
	// the entity for StyleName): a search that finds it "found" it.
	Kind kgmem.Kind `json:"kind"`
	ID   string     `json:"id"`
}

// Queries draws n queries with its own seed. Each picks a fact uniformly
// over the whole memory (so a namespace is queried in proportion to its
// size: heavy users search more), then a style, then words from that
// fact. The namespaces concerned are regenerated, workers at a time.
func (g *Generator) Queries(seed uint64, n, workers int) []Query {
	rng := rand.New(rand.NewPCG(seed, 0x9e7))
	cum := make([]int, len(g.plan))
	total := 0
	for i, p := range g.plan {
		total += p.Facts
		cum[i] = total
	}
	type draw struct {
		ns, fact int
		style    float64
		r        uint64
	}
	draws := make([]draw, n)
	byNS := map[int][]int{}
	for q := range draws {
		x := rng.IntN(total)
		ns := sort.SearchInts(cum, x+1)
		start := cum[ns] - g.plan[ns].Facts
		draws[q] = draw{ns: ns, fact: x - start, style: rng.Float64(), r: rng.Uint64()}
		byNS[ns] = append(byNS[ns], q)
	}
	out := make([]Query, n)
	var eg errgroup.Group
	eg.SetLimit(max(1, workers))
	for ns, qs := range byNS {
		eg.Go(func() error {
			m := g.Namespace(ns)
			for _, q := range qs {
				d := draws[q]
				out[q] = query(m, d.fact, d.style, rand.New(rand.NewPCG(d.r, 1)))
			}
			return nil
		})
	}
	_ = eg.Wait() // the workers cannot fail
	return out
}

// query makes one query of fact fi of m; style in [0, 1) picks the style.
func query(m Memory, fi int, style float64, rng *rand.Rand) Query {
	f := m.Facts[fi]
	q := Query{Namespace: m.Plan.Namespace, Kind: kgmem.KindFact, ID: f.ID}
	p := predicateByName[f.Predicate]
	switch {
	case style < 0.25:
		q.Style, q.Kind = StyleName, kgmem.KindEntity
		id := f.SubjectID
		if rng.IntN(2) == 0 {
			id = f.ObjectID
		}
		q.ID = id
		for _, e := range m.Entities {
			if e.ID == id {
				names := e.Names()
				q.Text = names[rng.IntN(len(names))]
			}
		}
	case style < 0.60:
		q.Style = StyleQuestion
		q.Text = strings.NewReplacer("{S}", f.SubjectName, "{O}", f.ObjectName).Replace(p.questions[rng.IntN(len(p.questions))])
	case style < 0.80:
		q.Style = StyleKeywords
		q.Text = f.SubjectName + " " + strings.ReplaceAll(f.Predicate, "_", " ")
	default:
		q.Style = StyleParaphrase
		words := strings.Fields(strings.ToLower(strings.NewReplacer(".", "", ",", "").Replace(f.Text)))
		if len(words) > 3 {
			drop := rng.IntN(len(words))
			words = append(words[:drop], words[drop+1:]...)
		}
		q.Text = strings.Join(words, " ")
	}
	return q
}

// predicateByName indexes both predicate tables.
var predicateByName = func() map[string]predicate {
	out := map[string]predicate{}
	for _, table := range []map[string][]predicate{personPredicates, otherPredicates} {
		for _, ps := range table {
			for _, p := range ps {
				out[p.name] = p
			}
		}
	}
	return out
}()
