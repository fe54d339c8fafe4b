package memory_test

import (
	"context"
	"sync"
	"testing"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/memory"
)

// entityLoads counts the entities a GraphStore is asked for by id.
type entityLoads struct {
	kgmem.GraphStore
	mu  sync.Mutex
	ids []string
}

func (s *entityLoads) Entities(ctx context.Context, ns kgmem.Namespace, ids []string) ([]kgmem.Entity, error) {
	s.mu.Lock()
	s.ids = append(s.ids, ids...)
	s.mu.Unlock()
	return s.GraphStore.Entities(ctx, ns, ids)
}

// TestResultGraphFromFactEnds checks that the result graph draws the ends
// of the returned facts with the names and types the store read with them,
// without loading those entities again (the conformance suite's FactEnds
// checks that stores fill them, current after a rename).
func TestResultGraphFromFactEnds(t *testing.T) {
	for name, open := range searchBackends(t) {
		t.Run(name, func(t *testing.T) {
			ctx := t.Context()
			ns := kgmem.Namespace("memtest/result-graph")
			store := &entityLoads{GraphStore: open(t)}
			e := newSearchEngine(t, store, memory.SearchOptions{})
			triples := []kgmem.Triple{
				{Subject: "Ada", SubjectType: kgmem.TypePerson, Predicate: "works_at", Object: "Initech", ObjectType: kgmem.TypeOrganization, Text: "Ada works at Initech."},
				{Subject: "Ada", SubjectType: kgmem.TypePerson, Predicate: "lives_in", Object: "Oslo", ObjectType: kgmem.TypePlace, Text: "Ada lives in Oslo."},
			}
			if _, err := e.AddFacts(ctx, memory.AddFactsRequest{Namespace: ns, Facts: triples}); err != nil {
				t.Fatal(err)
			}
			store.mu.Lock()
			store.ids = nil
			store.mu.Unlock()
			res, err := e.Search(ctx, memory.SearchRequest{Namespace: ns, Query: "Where does Ada work and live?", Include: []kgmem.Kind{kgmem.KindFact}, Limit: 5})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Facts) != 2 || len(res.Graph.Edges) != 2 {
				t.Fatalf("facts %v, edges %+v; want both facts drawn", factTexts(res.Facts), res.Graph.Edges)
			}
			got := map[string]memory.GraphNode{}
			for _, n := range res.Graph.Nodes {
				got[n.ID] = n
			}
			for _, f := range res.Facts {
				for _, id := range []string{f.SubjectID, f.ObjectID} {
					ent, err := store.GraphStore.Entity(ctx, ns, id)
					if err != nil {
						t.Fatal(err)
					}
					if want := (memory.GraphNode{ID: ent.ID, Name: ent.Name, Type: ent.Type}); got[id] != want {
						t.Errorf("node %s = %+v, want %+v", id, got[id], want)
					}
				}
			}
			if len(got) != 3 {
				t.Errorf("nodes %+v, want Ada, Initech and Oslo once each", res.Graph.Nodes)
			}
			store.mu.Lock()
			defer store.mu.Unlock()
			if len(store.ids) > 0 {
				t.Errorf("a search of facts loaded entities %v; their names and types come with the facts", store.ids)
			}
		})
	}
}
