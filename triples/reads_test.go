package triples

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/internal/llmtest"
)

// countingStore counts the reads the Integrator makes, by method and arguments.
type countingStore struct {
	kgmem.GraphStore
	mu    sync.Mutex
	calls map[string]int
}

func (s *countingStore) count(key string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls[key]++
}

func (s *countingStore) ListFacts(ctx context.Context, ns kgmem.Namespace, f kgmem.FactFilter) ([]kgmem.Fact, error) {
	s.count(fmt.Sprintf("ListFacts %+v", f))
	return s.GraphStore.ListFacts(ctx, ns, f)
}

func (s *countingStore) Entities(ctx context.Context, ns kgmem.Namespace, ids []string) ([]kgmem.Entity, error) {
	for _, id := range ids {
		s.count("Entities " + id)
	}
	return s.GraphStore.Entities(ctx, ns, ids)
}

func (s *countingStore) FindEntities(ctx context.Context, ns kgmem.Namespace, f kgmem.EntityFilter) ([]kgmem.Entity, error) {
	s.count(fmt.Sprintf("FindEntities %+v", f))
	return s.GraphStore.FindEntities(ctx, ns, f)
}

func (s *countingStore) SearchText(ctx context.Context, ns kgmem.Namespace, q kgmem.TextQuery) ([]kgmem.Hit, error) {
	s.count(fmt.Sprintf("SearchText %+v", q))
	return s.GraphStore.SearchText(ctx, ns, q)
}

// TestDecidedPassReadsNothingTwice: when the judge is asked, the decided
// pass weighs the records the first pass read without reading them again,
// and decides as the scenario expects.
func TestDecidedPassReadsNothingTwice(t *testing.T) {
	var st *countingStore
	says := func(s, p, o, text string) fct { return fct{S: s, P: p, O: o, Text: text} }
	ents := []ent{{"Erin", "Person"}, {"Apollo", "Project"}}
	p := newPipe(t, func(t *testing.T) kgmem.GraphStore {
		st = &countingStore{GraphStore: scenarioStores(t)["sqlite"](t), calls: map[string]int{}}
		return st
	}, llmtest.Script(llmtest.On("work on", llmtest.Text(answer(ents, says("Erin", "works_on", "Apollo", "Erin works on Apollo."))))))
	p.mustSay(ns1, "m1", "Erin", "I work on Apollo", day(0))
	apollo := p.fact(ns1, "Erin", "works_on", "Apollo")
	p.script(llmtest.Script(
		llmtest.On(llmtest.JudgeMarker, judge("duplicate:"+apollo.ID)),
		llmtest.On("contribute", llmtest.Text(answer(ents, says("Erin", "contributes_to", "Apollo", "Erin contributes to Apollo.")))),
	))
	st.calls = map[string]int{}
	before := p.srv.ChatCalls()
	res := p.mustSay(ns1, "m2", "Erin", "I contribute to Apollo", day(1))
	if got := p.srv.ChatCalls() - before; got != 2 {
		t.Fatalf("LLM calls = %d, want 2 (extraction and the judge): without the judge there is no decided pass", got)
	}
	if ops(res) != "duplicate" {
		t.Errorf("ops = %s (%+v)", ops(res), res.FactChanges)
	}
	if len(st.calls) == 0 {
		t.Fatal("no store reads counted")
	}
	for key, n := range st.calls {
		if n > 1 {
			t.Errorf("%s read %d times in one Integrate call", key, n)
		}
	}
}

// TestCallReadsHandsOutCopies: each answer is the passes' own to change,
// and Entities keeps the order of ids, leaves missing ones out and reads
// only ids it has not read.
func TestCallReadsHandsOutCopies(t *testing.T) {
	ctx := t.Context()
	ns := kgmem.Namespace("acme/copies")
	mem := newMemStore()
	ann := kgmem.Entity{ID: "ent_ann", Namespace: ns, Name: "Ann", Type: kgmem.TypePerson, Aliases: []string{"Annie"}, Attributes: map[string]any{"role": "cook"}}
	bob := kgmem.Entity{ID: "ent_bob", Namespace: ns, Name: "Bob", Type: kgmem.TypePerson}
	fact := kgmem.Fact{ID: "fact_1", Namespace: ns, SubjectID: ann.ID, Predicate: "knows", ObjectID: bob.ID, Text: "Ann knows Bob.",
		Confidence: 1, Importance: 3, Episodes: []string{"ep_1"}, Attributes: map[string]any{"since": "2020"}}
	if err := mem.Apply(ctx, kgmem.ChangeSet{Namespace: ns, Entities: []kgmem.Entity{ann, bob}, Facts: []kgmem.Fact{fact}}); err != nil {
		t.Fatal(err)
	}
	st := &countingStore{GraphStore: mem, calls: map[string]int{}}
	r := newCallReads(st, ns)

	filter := kgmem.FactFilter{EntityID: ann.ID, IncludeExpired: true}
	first, err := r.ListFacts(ctx, filter)
	if err != nil || len(first) != 1 {
		t.Fatalf("ListFacts = %+v, %v", first, err)
	}
	first[0].Episodes[0], first[0].Attributes["since"] = "changed", "changed"
	again, err := r.ListFacts(ctx, filter)
	if err != nil || len(again) != 1 || again[0].Episodes[0] != "ep_1" || again[0].Attributes["since"] != "2020" {
		t.Errorf("ListFacts after a change to its first answer = %+v, %v", again, err)
	}

	got, err := r.Entities(ctx, []string{bob.ID, "ent_missing", ann.ID})
	if err != nil {
		t.Fatal(err)
	}
	if ids := entityIDs(got); !slices.Equal(ids, []string{bob.ID, ann.ID}) {
		t.Errorf("Entities = %v, want bob then ann, the missing id left out", ids)
	}
	got[1].Aliases[0], got[1].Attributes["role"] = "changed", "changed"
	got, err = r.Entities(ctx, []string{ann.ID, "ent_missing"})
	if err != nil || len(got) != 1 || got[0].Aliases[0] != "Annie" || got[0].Attributes["role"] != "cook" {
		t.Errorf("Entities after a change to an answer = %+v, %v", got, err)
	}
	for _, key := range []string{"Entities " + ann.ID, "Entities ent_missing", fmt.Sprintf("ListFacts %+v", filter)} {
		if st.calls[key] != 1 {
			t.Errorf("%s read %d times, want once", key, st.calls[key])
		}
	}
}

func entityIDs(es []kgmem.Entity) []string {
	ids := make([]string, len(es))
	for i, e := range es {
		ids[i] = e.ID
	}
	return ids
}
