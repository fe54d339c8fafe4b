package triples

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/graph/sqlite"
)

// BenchmarkIntegrate measures one rules-only Integrate of a five-triple message
// against an embedded SQLite graph already holding 2,000 people and 4,000 facts:
//
//	go test ./triples -run '^$' -bench Integrate -benchtime 200x
func BenchmarkIntegrate(b *testing.B) {
	ctx := context.Background()
	st, err := sqlite.Open(ctx, filepath.Join(b.TempDir(), "kg.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	ns := kgmem.Namespace("bench")
	in := NewIntegrator(st, IntegratorOptions{Clock: &fixedClock{t: t0}})
	var seed []kgmem.Triple
	for i := range 2000 {
		seed = append(seed,
			kgmem.Triple{Subject: fmt.Sprintf("Person %d", i), SubjectType: "Person", Predicate: "works_at", Object: fmt.Sprintf("Company %d", i%50), ObjectType: "Organization"},
			kgmem.Triple{Subject: fmt.Sprintf("Person %d", i), SubjectType: "Person", Predicate: "likes", Object: fmt.Sprintf("Dish %d", i%300)})
	}
	for chunk := range sliceChunks(seed, 500) {
		res, err := in.Integrate(ctx, IntegrateRequest{Namespace: ns, Triples: chunk})
		if err != nil {
			b.Fatal(err)
		}
		if err := st.Apply(ctx, res.Changes); err != nil {
			b.Fatal(err)
		}
	}
	b.ResetTimer()
	for i := range b.N {
		p := fmt.Sprintf("Person %d", i%2000)
		res, err := in.Integrate(ctx, IntegrateRequest{Namespace: ns, Triples: []kgmem.Triple{
			{Subject: p, Predicate: "works at", Object: fmt.Sprintf("Company %d", (i+1)%50)},
			{Subject: p, Predicate: "loves", Object: fmt.Sprintf("Dish %d", i%300)},
			{Subject: p, Predicate: "mentors", Object: fmt.Sprintf("Newcomer %d", i)},
			{Subject: fmt.Sprintf("Newcomer %d", i), Predicate: "lives in", Object: "Lisbon"},
			{Subject: p, Predicate: "doesn't like", Object: fmt.Sprintf("Dish %d", (i+7)%300)},
		}})
		if err != nil {
			b.Fatal(err)
		}
		if err := st.Apply(ctx, res.Changes); err != nil {
			b.Fatal(err)
		}
	}
}

func sliceChunks[T any](s []T, n int) func(func([]T) bool) {
	return func(yield func([]T) bool) {
		for i := 0; i < len(s); i += n {
			if !yield(s[i:min(i+n, len(s))]) {
				return
			}
		}
	}
}
