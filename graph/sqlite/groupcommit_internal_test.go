package sqlite

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/graph/graphtest"
	"github.com/kgmem/kgmem/internal/groupcommit"
)

// TestGroupWithAFailingChangeSet commits one group whose third change set
// names a missing entity and whose fourth's context has ended: the group is
// written again in savepoints, the failing and the ended ones write
// nothing, and the others are written whole. A group that fails nowhere,
// and a lone failing change set, are covered as well.
func TestGroupWithAFailingChangeSet(t *testing.T) {
	ctx := t.Context()
	s, err := Open(ctx, filepath.Join(t.TempDir(), "graph.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ended, cancel := context.WithCancel(ctx)
	cancel()
	ns := kgmem.Namespace("group/fail")
	changeSet := func(i int, object string) kgmem.ChangeSet {
		a := graphtest.Entity(ns, fmt.Sprintf("ent_%d", i), fmt.Sprintf("Person %d", i))
		if object == "" {
			object = a.ID
		}
		return kgmem.ChangeSet{Namespace: ns, Entities: []kgmem.Entity{a},
			Episodes: []kgmem.Episode{graphtest.Episode(ns, fmt.Sprintf("ep_%d", i), "Ann", fmt.Sprintf("message %d", i))},
			Facts:    []kgmem.Fact{graphtest.Fact(ns, fmt.Sprintf("fact_%d", i), a.ID, "knows", object, "knows")}}
	}
	first := 0 // each case's change sets take the next ids
	for _, tc := range []struct {
		name    string
		objects []string // per change set: "" for a valid fact, else its object's id
		ctxs    []context.Context
		want    []error // nil: written
	}{
		{"one fails, one ended", []string{"", "", "ent_missing", "", ""}, []context.Context{ctx, ctx, ctx, ended, ctx},
			[]error{nil, nil, kgmem.ErrInvalid, context.Canceled, nil}},
		{"none fails", []string{"", ""}, []context.Context{ctx, ctx}, []error{nil, nil}},
		{"alone and failing", []string{"ent_missing"}, []context.Context{ctx}, []error{kgmem.ErrInvalid}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var group []*groupedApply
			for i, object := range tc.objects {
				group = append(group, &groupcommit.Request[*pendingApply]{Ctx: tc.ctxs[i], Item: &pendingApply{cs: changeSet(first+i, object)}})
			}
			s.commitGroup(group)
			for i, r := range group {
				id := fmt.Sprintf("ep_%d", first+i)
				eps, err := s.Episodes(ctx, ns, []string{id})
				if err != nil {
					t.Fatal(err)
				}
				switch {
				case tc.want[i] == nil && (r.Err != nil || len(eps) != 1):
					t.Errorf("change set %d: error %v, %d episodes stored; want it written", i, r.Err, len(eps))
				case tc.want[i] != nil && (!errors.Is(r.Err, tc.want[i]) || len(eps) != 0):
					t.Errorf("change set %d: error %v, %d episodes stored; want %v and nothing", i, r.Err, len(eps), tc.want[i])
				}
			}
			first += len(group)
		})
	}
}
