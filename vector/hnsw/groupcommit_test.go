package hnsw

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"sync"
	"testing"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/internal/groupcommit"
)

// TestGroupedUpserts: concurrent upserts into several namespaces all go
// through the file's group commit, and every record is in the file after a
// reopen; an upsert whose context ended before its turn writes nothing.
func TestGroupedUpserts(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "vectors.db")
	idx, err := Open(ctx, path, 8, Options{})
	if err != nil {
		t.Fatal(err)
	}
	const writers, each = 8, 25
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(w), 3))
			for i := range each {
				vec := make([]float32, 8)
				for j := range vec {
					vec[j] = rng.Float32()
				}
				rec := kgmem.VectorRecord{ID: fmt.Sprintf("r%d", i), Namespace: kgmem.Namespace(fmt.Sprintf("ns%d", w)), Kind: kgmem.KindEpisode, Vector: vec}
				if err := idx.Upsert(ctx, []kgmem.VectorRecord{rec}); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	if st := idx.store.upserts.Stats(); st.Requests != writers*each || st.Groups > st.Requests {
		t.Errorf("group commit stats %+v, want %d upserts", st, writers*each)
	}

	ended, cancel := context.WithCancel(ctx)
	cancel()
	late := kgmem.VectorRecord{ID: "late", Namespace: "ns0", Kind: kgmem.KindEpisode, Vector: []float32{1, 0, 0, 0, 0, 0, 0, 0}}
	if err := idx.Upsert(ended, []kgmem.VectorRecord{late}); !errors.Is(err, context.Canceled) {
		t.Errorf("upsert with an ended context: %v, want context.Canceled", err)
	}
	if err := idx.Close(); err != nil {
		t.Fatal(err)
	}

	idx, err = Open(ctx, path, 8, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer idx.Close()
	for w := range writers {
		ns := kgmem.Namespace(fmt.Sprintf("ns%d", w))
		if n, err := idx.Count(ctx, ns, ""); err != nil || n != each {
			t.Errorf("%s after reopen: %d records, %v; want %d", ns, n, err, each)
		}
	}
	hits, err := idx.Search(ctx, kgmem.VectorQuery{Namespace: "ns0", Vector: late.Vector, K: each + 1})
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range hits {
		if h.ID == "late" {
			t.Error("the upsert whose context had ended was written")
		}
	}
}

// TestFailedUpsertFailsAlone: when a group's transaction fails, each upsert
// is written again on its own, so that only the failing one gets an error
// and the others are stored. A trigger refuses the record "poison".
func TestFailedUpsertFailsAlone(t *testing.T) {
	ctx := context.Background()
	s, err := openStore(ctx, filepath.Join(t.TempDir(), "vectors.db"), 2, false)
	if err != nil {
		t.Fatal(err)
	}
	defer s.close()
	if _, err := s.db.ExecContext(ctx, `CREATE TRIGGER refuse BEFORE INSERT ON vectors WHEN NEW.id = 'poison'
		BEGIN SELECT RAISE(ABORT, 'refused'); END`); err != nil {
		t.Fatal(err)
	}
	req := func(id string) *groupcommit.Request[[]kgmem.VectorRecord] {
		return &groupcommit.Request[[]kgmem.VectorRecord]{Ctx: ctx, Item: []kgmem.VectorRecord{{ID: id, Namespace: "ns", Kind: kgmem.KindFact, Vector: []float32{1, 0}}}}
	}
	group := []*groupcommit.Request[[]kgmem.VectorRecord]{req("a"), req("poison"), req("b")}
	s.commitUpserts(group)
	for i, wantErr := range []bool{false, true, false} {
		if (group[i].Err != nil) != wantErr {
			t.Errorf("upsert %s: error %v", group[i].Item[0].ID, group[i].Err)
		}
	}
	if n, err := s.count(ctx, "ns", ""); err != nil || n != 2 {
		t.Errorf("%d records stored, %v; want a and b", n, err)
	}
}
