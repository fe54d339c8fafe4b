package synth_test

import (
	"regexp"
	"strings"
	"testing"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/bench/synth"
)

// TestCallTimes checks that the wrapped stores pass calls through and that
// the report counts them per search.
func TestCallTimes(t *testing.T) {
	ctx := t.Context()
	graph, vectors := openEmbedded(t, 4)
	times := synth.NewCallTimes()
	g, v := times.Graph(graph), times.Vectors(vectors)
	if err := v.Upsert(ctx, []kgmem.VectorRecord{{Namespace: "ct", Kind: kgmem.KindFact, ID: "f1", Vector: []float32{1, 0, 0, 0}}}); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if _, err := g.SearchText(ctx, "ct", kgmem.TextQuery{Text: "anything"}); err != nil {
			t.Fatal(err)
		}
		hits, err := v.Search(ctx, kgmem.VectorQuery{Namespace: "ct", Vector: []float32{1, 0, 0, 0}, K: 1})
		if err != nil || len(hits) != 1 || hits[0].ID != "f1" {
			t.Fatalf("vector Search through the wrapper = %v, %v", hits, err)
		}
	}
	var out strings.Builder
	times.Report(&out, 2)
	for _, want := range []string{`graph SearchText\s+1\.00 `, `vector Search\s+1\.00 `} {
		if !regexp.MustCompile(want).MatchString(out.String()) {
			t.Errorf("report lacks %q:\n%s", want, out.String())
		}
	}
	times.Reset()
	out.Reset()
	times.Report(&out, 2)
	if strings.Contains(out.String(), "Search") {
		t.Errorf("Reset left calls in the report:\n%s", out.String())
	}
}
