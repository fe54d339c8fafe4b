package milvus_test

import (
	"errors"
	"slices"
	"testing"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/vector/milvus"
)

// evilIDs are ids that would rewrite a filter expression if spliced in raw.
var evilIDs = []string{
	`" or 1==1 or "`,
	`' or 1==1 or '`,
	`x" || namespace != "`,
	`\" or 1==1 or \"`,
	`back\slash\`,
	`] || id in ["`,
	"new\nline\ttab",
	"nul\x00byte",
	"ünïcödé ✓ 日本",
}

func TestExpressionInjection(t *testing.T) {
	const dim = 8
	ix := openFresh(t, milvus.Config{Dim: dim})
	c := testCtx(t)
	const nsA, nsB kgmem.Namespace = "inj/a", "inj/b"
	vec := func(i int) []float32 {
		v := make([]float32, dim)
		v[i%dim] = 1
		v[(i+3)%dim] = float32(i + 1)
		return v
	}
	var recs []kgmem.VectorRecord
	for i, id := range evilIDs {
		recs = append(recs, kgmem.VectorRecord{ID: id, Namespace: nsA, Kind: kgmem.KindFact, Vector: vec(i)})
	}
	for i := range 5 {
		recs = append(recs, kgmem.VectorRecord{ID: "plain-" + string(rune('a'+i)), Namespace: nsB, Kind: kgmem.KindEntity, Vector: vec(i)})
	}
	if err := ix.Upsert(c, recs); err != nil {
		t.Fatalf("Upsert: %v", err)
	}
	count := func(ns kgmem.Namespace) int {
		t.Helper()
		n, err := ix.Count(c, ns, "")
		if err != nil {
			t.Fatalf("Count(%s): %v", ns, err)
		}
		return n
	}
	if got := count(nsA); got != len(evilIDs) {
		t.Fatalf("Count(%s) = %d, want %d", nsA, got, len(evilIDs))
	}

	// Every id comes back byte for byte, as the exact match of its own vector.
	for i, id := range evilIDs {
		hits, err := ix.Search(c, kgmem.VectorQuery{Namespace: nsA, Vector: vec(i), K: 1})
		if err != nil {
			t.Fatalf("Search for %q: %v", id, err)
		}
		if len(hits) != 1 || hits[0].ID != id {
			t.Errorf("Search for %q returned %+v", id, hits)
		}
	}

	// Deleting an id that reads as "or 1==1" through namespace B deletes nothing in A or B.
	if err := ix.Delete(c, nsB, evilIDs); err != nil {
		t.Fatalf("Delete(%s, evil ids): %v", nsB, err)
	}
	if got, want := count(nsA), len(evilIDs); got != want {
		t.Errorf("after Delete through %s: Count(%s) = %d, want %d", nsB, nsA, got, want)
	}
	if got := count(nsB); got != 5 {
		t.Errorf("after Delete of absent ids: Count(%s) = %d, want 5", nsB, got)
	}

	// Deleting each evil id removes exactly that record.
	for i, id := range evilIDs {
		if err := ix.Delete(c, nsA, []string{id}); err != nil {
			t.Fatalf("Delete(%q): %v", id, err)
		}
		if got, want := count(nsA), len(evilIDs)-i-1; got != want {
			t.Fatalf("after deleting %q: Count(%s) = %d, want %d", id, nsA, got, want)
		}
	}
	if got := count(nsB); got != 5 {
		t.Errorf("Count(%s) = %d after deleting A's ids, want 5", nsB, got)
	}

	// Namespaces that try to widen a filter are refused before reaching Milvus.
	for _, ns := range []kgmem.Namespace{`inj/b" || namespace != "`, `" or 1==1 or "`, `inj/b' or '1'=='1`} {
		_, err := ix.Search(c, kgmem.VectorQuery{Namespace: ns, Vector: vec(0), K: 5})
		if !errors.Is(err, kgmem.ErrInvalid) {
			t.Errorf("Search in namespace %q: got %v, want ErrInvalid", ns, err)
		}
		if err := ix.DeleteNamespace(c, ns); !errors.Is(err, kgmem.ErrInvalid) {
			t.Errorf("DeleteNamespace(%q): got %v, want ErrInvalid", ns, err)
		}
		if _, err := ix.Count(c, ns, ""); !errors.Is(err, kgmem.ErrInvalid) {
			t.Errorf("Count(%q): got %v, want ErrInvalid", ns, err)
		}
	}
	if got := count(nsB); got != 5 {
		t.Errorf("Count(%s) = %d after refused calls, want 5", nsB, got)
	}
	hits, err := ix.Search(c, kgmem.VectorQuery{Namespace: nsB, Vector: vec(0), K: 10})
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range hits {
		if slices.Contains(evilIDs, h.ID) {
			t.Errorf("search in %s returned %q from %s", nsB, h.ID, nsA)
		}
	}
}
