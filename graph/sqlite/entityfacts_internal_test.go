package sqlite

import (
	"testing"

	"github.com/kgmem/kgmem"
)

// TestEntityFactsSize checks the byte estimate an entity-facts view is
// cached by: it follows the facts and entities written, a fact replaced in
// the same layer counts once, one the delta replaces counts in both layers
// until a merge, and deriving a view leaves the one it came from as it was.
func TestEntityFactsSize(t *testing.T) {
	ns := kgmem.Namespace("size/facts")
	ann, bob := shownEntity{name: "Ann", typ: "person", read: true}, shownEntity{name: "Bob", typ: "person", read: true}
	fact := func(id string, episodes ...string) kgmem.Fact {
		return kgmem.Fact{ID: id, Namespace: ns, SubjectID: "ann", Predicate: "knows", ObjectID: "bob", Text: "Ann knows Bob", Episodes: episodes}
	}
	bytesOf := func(f kgmem.Fact) int {
		stored, err := factAsStored(f)
		if err != nil {
			t.Fatal(err)
		}
		return factBytes(&stored)
	}
	with := func(v *entityFacts, cs kgmem.ChangeSet) *entityFacts {
		t.Helper()
		cs.Namespace = ns
		next, err := v.with(cs)
		if err != nil {
			t.Fatal(err)
		}
		return next
	}
	empty := &entityFacts{base: newFactLayer(0), delta: newFactLayer(0)}
	v1 := with(empty, kgmem.ChangeSet{
		Entities: []kgmem.Entity{{ID: "ann", Namespace: ns, Name: "Ann", Type: "person"}, {ID: "bob", Namespace: ns, Name: "Bob", Type: "person"}},
		Facts:    []kgmem.Fact{fact("f1", "e1"), fact("f2")},
	})
	want1 := entityBytes("ann", ann) + entityBytes("bob", bob) + bytesOf(fact("f1", "e1")) + bytesOf(fact("f2"))
	if got := v1.size(); got != want1 {
		t.Fatalf("after the first write: %d bytes, want %d", got, want1)
	}
	long := fact("f1", "e1", "e2", "e3", "e4")
	v2 := with(v1, kgmem.ChangeSet{Facts: []kgmem.Fact{long}})
	want2 := want1 - bytesOf(fact("f1", "e1")) + bytesOf(long)
	if got := v2.size(); got != want2 || bytesOf(long) <= bytesOf(fact("f1", "e1")) {
		t.Fatalf("after f1 grew its episode list in the delta: %d bytes, want %d (more than before)", got, want2)
	}
	if got := v1.size(); got != want1 {
		t.Fatalf("the view derived from changed: %d bytes, want %d", got, want1)
	}
	merged := v2.merged()
	if got := merged.size(); got != want2 {
		t.Fatalf("merged: %d bytes, want %d", got, want2)
	}
	v3 := with(merged, kgmem.ChangeSet{Facts: []kgmem.Fact{fact("f2", "e9")}})
	if got, want := v3.size(), want2+bytesOf(fact("f2", "e9")); got != want {
		t.Fatalf("f2 replaced over the base: %d bytes, want %d (both versions)", got, want)
	}
	if got, want := v3.merged().size(), want2-bytesOf(fact("f2"))+bytesOf(fact("f2", "e9")); got != want {
		t.Fatalf("merged again: %d bytes, want %d (the newer version only)", got, want)
	}
}
