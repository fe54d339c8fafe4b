package memory_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"testing"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/internal/llmtest"
	"github.com/kgmem/kgmem/memory"
)

// TestItemFactsFollowTheItem: an item put with extraction becomes facts
// citing it; rewriting it invalidates what only it stated and keeps what
// it restates; deleting it leaves facts other items back, invalidates the
// rest.
func TestItemFactsFollowTheItem(t *testing.T) {
	person := []llmtest.Entity{{Name: "Alice", Type: "Person"}, {Name: "red bicycle", Type: "Object"}, {Name: "Acme", Type: "Organization"}}
	llm := llmtest.New(t, llmtest.WithScript(
		llmtest.On("rides a red bicycle", llmtest.Text(llmtest.ExtractionJSON(person, []llmtest.Fact{
			{Subject: "Alice", Predicate: "rides", Object: "red bicycle", Text: "Alice rides a red bicycle."},
			{Subject: "Alice", Predicate: "works_at", Object: "Acme", Text: "Alice works at Acme."},
		}))),
		llmtest.On("employed at Acme", llmtest.Text(llmtest.ExtractionJSON(person, []llmtest.Fact{
			{Subject: "Alice", Predicate: "works_at", Object: "Acme", Text: "Alice works at Acme."},
		}))),
		llmtest.On("sold her bicycle", llmtest.Text(llmtest.ExtractionJSON(person, []llmtest.Fact{
			{Subject: "Alice", Predicate: "works_at", Object: "Acme", Text: "Alice works at Acme."},
		}))),
	))
	h := newHarness(t, llm)
	ctx := context.Background()
	const ns = kgmem.Namespace("lm/alice")
	put := func(key, content string) memory.PutItemResult {
		t.Helper()
		res, err := h.engine.PutItem(ctx, memory.PutItemRequest{Namespace: ns, Key: key, Value: json.RawMessage(`{"content":"` + content + `"}`), Extract: true})
		if err != nil {
			t.Fatalf("PutItem %s: %v", key, err)
		}
		return res
	}
	fact := func(predicate string) kgmem.Fact {
		t.Helper()
		facts, err := h.graph.ListFacts(ctx, ns, kgmem.FactFilter{Predicate: predicate, IncludeExpired: true})
		if err != nil || len(facts) != 1 {
			t.Fatalf("facts %s: %v, %v; want one", predicate, facts, err)
		}
		return facts[0]
	}
	k1 := put("k1", "Alice rides a red bicycle and works at Acme")
	if countOps(k1.Facts, kgmem.OpAdded) != 2 || len(k1.Item.FactIDs) != 2 {
		t.Fatalf("k1: changes %+v, fact ids %v; want 2 facts added and cited", k1.Facts, k1.Item.FactIDs)
	}
	if rides := fact("rides"); !slices.Equal(rides.Episodes, []string{k1.Item.ID}) {
		t.Errorf("rides provenance %v, want the item %s", rides.Episodes, k1.Item.ID)
	}
	k2 := put("k2", "Alice is employed at Acme")
	if works := fact("works_at"); !slices.Contains(works.Episodes, k1.Item.ID) || !slices.Contains(works.Episodes, k2.Item.ID) {
		t.Errorf("works_at provenance %v, want both items", works.Episodes)
	}

	rewritten := put("k1", "Alice sold her bicycle but still works at Acme")
	if rewritten.Created || countOps(rewritten.Facts, kgmem.OpInvalidated) != 1 {
		t.Errorf("rewrite: created %v, changes %+v; want rides invalidated", rewritten.Created, rewritten.Facts)
	}
	if st := fact("rides").Status(h.clock.Now()); st != kgmem.FactInvalidated {
		t.Errorf("rides after the rewrite: %s, want invalidated", st)
	}
	if st := fact("works_at").Status(h.clock.Now()); st != kgmem.FactCurrent {
		t.Errorf("works_at after the rewrite: %s, want current", st)
	}
	if len(rewritten.Item.FactIDs) != 1 {
		t.Errorf("rewritten item cites %v, want works_at only", rewritten.Item.FactIDs)
	}

	if err := h.engine.DeleteItem(ctx, ns, "k1"); err != nil {
		t.Fatal(err)
	}
	works := fact("works_at")
	if works.Status(h.clock.Now()) != kgmem.FactCurrent || !slices.Equal(works.Episodes, []string{k2.Item.ID}) {
		t.Errorf("works_at after deleting k1: %s, provenance %v; want current, backed by k2 only", works.Status(h.clock.Now()), works.Episodes)
	}
	if err := h.engine.DeleteItem(ctx, ns, "k2"); err != nil {
		t.Fatal(err)
	}
	if st := fact("works_at").Status(h.clock.Now()); st != kgmem.FactInvalidated {
		t.Errorf("works_at after deleting its last source: %s, want invalidated", st)
	}
}

func TestItemExtractionNeedsAnLLM(t *testing.T) {
	h := newHarness(t, nil)
	_, err := h.engine.PutItem(context.Background(), memory.PutItemRequest{Namespace: "x", Key: "k", Value: json.RawMessage(`{"a":"b"}`), Extract: true})
	if !errors.Is(err, memory.ErrExtractionDisabled) {
		t.Errorf("extract without an LLM: %v, want ErrExtractionDisabled", err)
	}
	if nss, _ := h.engine.ItemNamespaces(context.Background(), "", false); len(nss) != 0 {
		t.Errorf("the refused put stored items in %v", nss)
	}
}

// TestItemVectorsStayConsistent: items with and without text, rewritten and
// deleted, leave the vector index matching the graph, and reindexing
// rebuilds them.
func TestItemVectorsStayConsistent(t *testing.T) {
	h := newHarness(t, nil)
	ctx := context.Background()
	const ns = kgmem.Namespace("vec/items")
	put := func(key, value string, index []string) {
		t.Helper()
		if _, err := h.engine.PutItem(ctx, memory.PutItemRequest{Namespace: ns, Key: key, Value: json.RawMessage(value), Index: index}); err != nil {
			t.Fatal(err)
		}
	}
	put("a", `{"t":"alpha text"}`, nil)
	put("b", `{"t":"beta text"}`, nil)
	put("c", `{"t":"never searched"}`, []string{})
	put("b", `{"t":"beta text, now hidden"}`, []string{}) // loses its vector
	put("d", `{"t":"delta text"}`, nil)
	if err := h.engine.DeleteItem(ctx, ns, "d"); err != nil {
		t.Fatal(err)
	}
	check := func(when string) {
		t.Helper()
		rep, err := h.engine.CheckConsistency(ctx, ns)
		if err != nil || !rep.Consistent() || rep.Vectors != 1 {
			t.Errorf("%s: %+v, %v; want consistent with one vector (item a)", when, rep, err)
		}
	}
	check("after the writes")
	st, err := h.engine.Reindex(ctx, ns)
	if err != nil || st.Items != 3 {
		t.Fatalf("Reindex: %+v, %v; want 3 items read", st, err)
	}
	check("after reindexing")
}
