package topology

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/kgmem/kgmem"
)

// BenchmarkWalk walks a namespace shaped like bench synth's (2,000 facts over
// 400 entities, a few hubs holding most endpoints) from three seeds at the
// search defaults (depth 2, fan-out 20).
func BenchmarkWalk(b *testing.B) {
	topo, seeds := benchTopology()
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if g := topo.Walk(seeds[i%len(seeds)], 2, 20, true); len(g.Facts) == 0 {
			b.Fatal("the walk reached nothing")
		}
	}
}

// BenchmarkVisit is BenchmarkWalk's walk handed to a visitor (WalkFacts).
func BenchmarkVisit(b *testing.B) {
	topo, seeds := benchTopology()
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		n := 0
		topo.Visit(seeds[i%len(seeds)], 2, 20, true, func(kgmem.WalkedFact) { n++ })
		if n == 0 {
			b.Fatal("the walk reached nothing")
		}
	}
}

// benchTopology is the namespace of the benchmarks and their seeds.
func benchTopology() (*Topology, [][]string) {
	rng := rand.New(rand.NewPCG(1, 2))
	const entities = 400
	// Zipf-like ends: a few entities hold most facts.
	end := func() string {
		return fmt.Sprint("e", int(float64(entities)*rng.Float64()*rng.Float64()*rng.Float64()))
	}
	at := time.Date(2025, 3, 1, 0, 0, 0, 0, time.UTC)
	facts := make([]kgmem.Fact, 2000)
	for i := range facts {
		facts[i] = kgmem.Fact{ID: fmt.Sprintf("f%06d", rng.IntN(1_000_000)), SubjectID: end(), Predicate: fmt.Sprint("p", rng.IntN(40)),
			ObjectID: end(), Confidence: 0.9, Importance: rng.IntN(5), ValidAt: at, CreatedAt: at}
	}
	return New("ns", facts), [][]string{{"e0", "e17", "e203"}, {"e5", "e90"}, {"e1", "e300", "e42"}}
}
