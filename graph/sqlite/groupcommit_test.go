package sqlite_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/graph/graphtest"
	"github.com/kgmem/kgmem/graph/sqlite"
)

// TestConcurrentAppliesFailAlone applies many change sets at once, so that
// they commit in groups: one naming a missing entity, or whose context has
// ended, fails and writes nothing, and every other is written whole.
func TestConcurrentAppliesFailAlone(t *testing.T) {
	ctx := t.Context()
	s, _ := openTemp(t, sqlite.Exclusive())
	ended, cancel := context.WithCancel(ctx)
	cancel()
	const n = 120
	type outcome int
	const (
		written outcome = iota
		missingEntity
		contextEnded
	)
	want := func(i int) outcome {
		switch i % 7 {
		case 3:
			return missingEntity
		case 5:
			return contextEnded
		}
		return written
	}
	errs := make([]error, n)
	var start, wg sync.WaitGroup
	start.Add(1)
	for i := range n {
		wg.Go(func() {
			ns := kgmem.Namespace(fmt.Sprintf("group/%d", i%4))
			a := graphtest.Entity(ns, fmt.Sprintf("ent_g%d", i), fmt.Sprintf("Person %d", i))
			ep := graphtest.Episode(ns, fmt.Sprintf("ep_g%d", i), "Ann", fmt.Sprintf("message %d", i))
			object := a.ID
			if want(i) == missingEntity {
				object = "ent_missing"
			}
			cs := kgmem.ChangeSet{Namespace: ns, Entities: []kgmem.Entity{a}, Episodes: []kgmem.Episode{ep},
				Facts: []kgmem.Fact{graphtest.Fact(ns, fmt.Sprintf("fact_g%d", i), a.ID, "knows", object, "knows")}}
			applyCtx := ctx
			if want(i) == contextEnded {
				applyCtx = ended
			}
			start.Wait()
			errs[i] = s.Apply(applyCtx, cs)
		})
	}
	start.Done()
	wg.Wait()
	for i := range n {
		ns := kgmem.Namespace(fmt.Sprintf("group/%d", i%4))
		eps, err := s.Episodes(ctx, ns, []string{fmt.Sprintf("ep_g%d", i)})
		if err != nil {
			t.Fatal(err)
		}
		switch want(i) {
		case written:
			if errs[i] != nil || len(eps) != 1 {
				t.Errorf("change set %d: error %v, %d episodes stored; want it written", i, errs[i], len(eps))
			}
		case missingEntity:
			if !errors.Is(errs[i], kgmem.ErrInvalid) || len(eps) != 0 {
				t.Errorf("change set %d naming a missing entity: error %v, %d episodes stored; want ErrInvalid and nothing", i, errs[i], len(eps))
			}
		case contextEnded:
			if !errors.Is(errs[i], context.Canceled) || len(eps) != 0 {
				t.Errorf("change set %d with an ended context: error %v, %d episodes stored; want context.Canceled and nothing", i, errs[i], len(eps))
			}
		}
	}
}
