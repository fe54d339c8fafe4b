package outbox_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/outbox"
)

func op(i int) kgmem.VectorOp {
	return kgmem.VectorOp{Namespace: "acme/u1", Kind: kgmem.KindFact, ID: fmt.Sprintf("fact_%03d", i), Op: kgmem.VectorUpsert}
}

func seqs(ops []kgmem.QueuedVectorOp) []uint64 {
	out := make([]uint64, len(ops))
	for i, o := range ops {
		out[i] = o.Seq
	}
	return out
}

func ids(ops []kgmem.QueuedVectorOp) []string {
	out := make([]string, len(ops))
	for i, o := range ops {
		out[i] = o.ID
	}
	return out
}

func open(t *testing.T, path string) *outbox.File {
	t.Helper()
	f, skipped, err := outbox.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if skipped != 0 {
		t.Fatalf("Open skipped %d lines", skipped)
	}
	return f
}

// TestFileSurvivesReopen queues ops, settles some, abandons the file (no final
// sync, as a killed process) and finds exactly the unsettled ops, in order,
// after reopening; new ops get fresh sequence numbers.
func TestFileSurvivesReopen(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "data", "vector.outbox")
	f := open(t, path)
	for i := range 10 {
		if _, err := f.Add(ctx, []kgmem.VectorOp{op(i)}); err != nil {
			t.Fatal(err)
		}
	}
	first := f.Pending(4)
	if got := ids(first); len(got) != 4 || got[0] != "fact_000" || got[3] != "fact_003" {
		t.Fatalf("Pending(4) = %v", got)
	}
	if err := f.Done(seqs(first[1:3])); err != nil {
		t.Fatal(err)
	}
	if f.Len() != 8 {
		t.Fatalf("Len after Done = %d, want 8", f.Len())
	}
	f.Abandon()

	f = open(t, path)
	defer f.Close()
	got := ids(f.Pending(0))
	want := []string{"fact_000", "fact_003", "fact_004", "fact_005", "fact_006", "fact_007", "fact_008", "fact_009"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("after reopen Pending = %v, want %v", got, want)
	}
	if _, err := f.Add(ctx, []kgmem.VectorOp{op(10)}); err != nil {
		t.Fatal(err)
	}
	all := f.Pending(0)
	if last := all[len(all)-1]; last.Seq <= all[len(all)-2].Seq || last.ID != "fact_010" {
		t.Errorf("new op after reopen: %+v, want a fresh, higher seq", last)
	}
	if err := f.Done(seqs(all)); err != nil {
		t.Fatal(err)
	}
	if err := f.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	if f.Len() != 0 {
		t.Errorf("after settling everything: Len %d", f.Len())
	}
	f.Abandon()
	if f = open(t, path); f.Len() != 0 {
		t.Errorf("after settling everything and reopening: %v", ids(f.Pending(0)))
	}
}

// TestFileCompacts settles a long backlog in small batches and checks that
// the journal stays bounded by the live ops rather than growing with every
// done record.
func TestFileCompacts(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "vector.outbox")
	f := open(t, path)
	defer f.Close()
	var batch []kgmem.VectorOp
	for i := range 3000 {
		batch = append(batch, op(i))
	}
	if _, err := f.Add(ctx, batch); err != nil {
		t.Fatal(err)
	}
	full, _ := os.Stat(path)
	for f.Len() > 100 {
		if err := f.Done(seqs(f.Pending(10))); err != nil {
			t.Fatal(err)
		}
	}
	now, _ := os.Stat(path)
	if now.Size() >= full.Size()/3 {
		t.Errorf("journal is %d bytes with %d ops live, was %d with 3000: not compacted", now.Size(), f.Len(), full.Size())
	}
	f.Abandon()
	f = open(t, path)
	if f.Len() != 100 || f.Pending(1)[0].ID != "fact_2900" {
		t.Errorf("after reopen: Len %d, first %v; want 100 ops from fact_2900", f.Len(), ids(f.Pending(1)))
	}
}

func TestAddRejectsInvalidOps(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name string
		op   kgmem.VectorOp
	}{
		{"bad namespace", kgmem.VectorOp{Namespace: "a//b", Kind: kgmem.KindFact, ID: "x", Op: kgmem.VectorUpsert}},
		{"unknown kind", kgmem.VectorOp{Namespace: "a", Kind: "triple", ID: "x", Op: kgmem.VectorUpsert}},
		{"empty id", kgmem.VectorOp{Namespace: "a", Kind: kgmem.KindFact, Op: kgmem.VectorDelete}},
		{"unknown op", kgmem.VectorOp{Namespace: "a", Kind: kgmem.KindFact, ID: "x", Op: "merge"}},
	}
	boxes := map[string]kgmem.VectorOutbox{"file": open(t, filepath.Join(t.TempDir(), "o")), "memory": outbox.NewMemory()}
	for name, box := range boxes {
		for _, tt := range tests {
			_, err := box.Add(ctx, []kgmem.VectorOp{op(1), tt.op})
			if !errors.Is(err, kgmem.ErrInvalid) {
				t.Errorf("%s: Add with %s: %v, want ErrInvalid", name, tt.name, err)
			}
		}
		if box.Len() != 0 {
			t.Errorf("%s: rejected adds queued %d ops", name, box.Len())
		}
		purge := kgmem.VectorOp{Namespace: "a", Op: kgmem.VectorPurge}
		if seqs, err := box.Add(ctx, []kgmem.VectorOp{purge}); err != nil || box.Len() != 1 || len(seqs) != 1 {
			t.Errorf("%s: Add(purge) = %v, Len %d", name, err, box.Len())
		}
	}
}

// TestOpenSkipsTornLine appends a torn line, as a crash mid-append leaves,
// and checks the ops before it survive and new appends work.
func TestOpenSkipsTornLine(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "vector.outbox")
	f := open(t, path)
	if _, err := f.Add(ctx, []kgmem.VectorOp{op(1), op(2)}); err != nil {
		t.Fatal(err)
	}
	f.Abandon()
	fh, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := fh.WriteString(`{"seq":3,"op":{"ns":"acme/u1","ki`); err != nil {
		t.Fatal(err)
	}
	fh.Close()
	f, skipped, err := outbox.Open(path)
	if err != nil || skipped != 1 {
		t.Fatalf("Open = %v, skipped %d; want 1 torn line skipped", err, skipped)
	}
	defer f.Close()
	if _, err := f.Add(ctx, []kgmem.VectorOp{op(3)}); err != nil {
		t.Fatal(err)
	}
	if got := ids(f.Pending(0)); fmt.Sprint(got) != "[fact_001 fact_002 fact_003]" {
		t.Errorf("Pending = %v", got)
	}
}
