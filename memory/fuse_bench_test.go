package memory

import (
	"fmt"
	"testing"

	"github.com/kgmem/kgmem"
)

// BenchmarkFuse fuses what a search's first phase brings back at the
// defaults (limit 10 × 4 candidates, four kinds, vector and BM25 agreeing
// on half their hits): `go test ./memory -run '^$' -bench Fuse -benchmem`.
func BenchmarkFuse(b *testing.B) {
	opts := DefaultSearchOptions()
	kinds := []kgmem.Kind{kgmem.KindEpisode, kgmem.KindFact, kgmem.KindEntity, kgmem.KindItem}
	lists := map[string][]kgmem.Hit{}
	for r, name := range []string{RetrieverVector, RetrieverBM25} {
		for _, k := range kinds {
			for i := range 40 {
				lists[name] = append(lists[name], kgmem.Hit{Kind: k, ID: fmt.Sprintf("%s_%d", k, i+20*r), Score: float64(40 - i)})
			}
		}
	}
	order := []string{RetrieverVector, RetrieverBM25}
	b.ReportAllocs()
	for b.Loop() {
		fuse(opts, order, lists, nil)
	}
}
