package sqlite

import (
	"testing"

	"github.com/kgmem/kgmem"
)

// TestShowVouchesOnlyForEntitiesRead: a fact's ends are shown from the view
// only when both have a name row and an entity row was read for them; an id
// whose entity row the view did not find (written between its two reads)
// sends the caller to the file rather than showing an empty name.
func TestShowVouchesOnlyForEntitiesRead(t *testing.T) {
	n := &entityNames{
		ids: []string{"a", "b", "c"},
		shown: []shownEntity{
			{name: "Alice", typ: "person", read: true},
			{name: "Bob", typ: "person", read: true},
			{},
		},
	}
	tests := []struct {
		name             string
		subject, object  string
		want             bool
		wantSubj, wantOb string
	}{
		{name: "both read", subject: "a", object: "b", want: true, wantSubj: "Alice", wantOb: "Bob"},
		{name: "object not read", subject: "a", object: "c"},
		{name: "subject not read", subject: "c", object: "b"},
		{name: "object without a name row", subject: "a", object: "z"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := kgmem.Fact{SubjectID: tc.subject, ObjectID: tc.object}
			if got := n.show(&f); got != tc.want {
				t.Fatalf("show(%s→%s) = %v, want %v", tc.subject, tc.object, got, tc.want)
			}
			if f.SubjectName != tc.wantSubj || f.ObjectName != tc.wantOb {
				t.Errorf("show(%s→%s) named %q→%q, want %q→%q", tc.subject, tc.object, f.SubjectName, f.ObjectName, tc.wantSubj, tc.wantOb)
			}
		})
	}
}
