package graphtest

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"testing"

	"github.com/kgmem/kgmem"
)

// testThreadNeighbors covers ThreadNeighbors: order by timestamp, then by
// storage order (the order within a change set, later change sets after
// earlier ones), the window on each side, thread and namespace boundaries,
// unknown ids and a bad window.
func testThreadNeighbors(t *testing.T, open Opener) {
	h := newH(t, open)
	ns := kgmem.Namespace("graph/thread")
	// Thread 1: e0..e4 share one timestamp and are stored in one change set
	// (storage order decides), e5 comes in a later change set with a later
	// timestamp, and e6 has the earliest timestamp though stored last.
	ep := func(i int) kgmem.Episode {
		e := Episode(ns, fmt.Sprintf("ep_th_%d", i), "Ann", fmt.Sprintf("turn %d", i))
		e.MessageID = fmt.Sprintf("m%d", i)
		if i%2 == 1 {
			e.Role = "assistant"
		}
		return e
	}
	first := kgmem.ChangeSet{Namespace: ns}
	for i := range 5 {
		first.Episodes = append(first.Episodes, ep(i))
	}
	h.apply(first)
	e5 := ep(5)
	e5.Timestamp, e5.CreatedAt = at(1), at(1)
	h.apply(kgmem.ChangeSet{Namespace: ns, Episodes: []kgmem.Episode{e5}})
	e6 := ep(6)
	e6.Timestamp, e6.CreatedAt = at(-1), at(2)
	other := ep(7)
	other.ThreadID = "thread-2"
	h.apply(kgmem.ChangeSet{Namespace: ns, Episodes: []kgmem.Episode{e6, other}})
	// The same ids in another namespace must not leak in.
	elsewhere := Episode("graph/thread-other", "ep_th_x", "Bob", "other namespace")
	h.apply(kgmem.ChangeSet{Namespace: "graph/thread-other", Episodes: []kgmem.Episode{elsewhere}})

	roleOf := func(id string) string {
		var i int
		if _, err := fmt.Sscanf(id, "ep_th_%d", &i); err == nil && i%2 == 1 {
			return "assistant"
		}
		return "user"
	}
	type near struct {
		of     string
		offset int
		id     string
	}
	tests := []struct {
		name string
		q    kgmem.ThreadNeighborsQuery
		want []near
	}{
		{"default window is one each side", kgmem.ThreadNeighborsQuery{IDs: []string{"ep_th_2"}},
			[]near{{"ep_th_2", -1, "ep_th_1"}, {"ep_th_2", 1, "ep_th_3"}}},
		{"window two", kgmem.ThreadNeighborsQuery{IDs: []string{"ep_th_2"}, Window: 2},
			[]near{{"ep_th_2", -1, "ep_th_1"}, {"ep_th_2", -2, "ep_th_0"}, {"ep_th_2", 1, "ep_th_3"}, {"ep_th_2", 2, "ep_th_4"}}},
		{"timestamp before storage order", kgmem.ThreadNeighborsQuery{IDs: []string{"ep_th_0", "ep_th_4"}},
			[]near{{"ep_th_0", -1, "ep_th_6"}, {"ep_th_0", 1, "ep_th_1"}, {"ep_th_4", -1, "ep_th_3"}, {"ep_th_4", 1, "ep_th_5"}}},
		{"thread ends", kgmem.ThreadNeighborsQuery{IDs: []string{"ep_th_5", "ep_th_6"}},
			[]near{{"ep_th_5", -1, "ep_th_4"}, {"ep_th_6", 1, "ep_th_0"}}},
		{"alone in its thread", kgmem.ThreadNeighborsQuery{IDs: []string{"ep_th_7"}}, nil},
		{"unknown and other-namespace ids", kgmem.ThreadNeighborsQuery{IDs: []string{"ep_missing", "ep_th_x"}}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := h.s.ThreadNeighbors(h.ctx, ns, tc.q)
			if err != nil {
				t.Fatal(err)
			}
			var have []near
			for _, n := range got {
				have = append(have, near{n.Of, n.Offset, n.ID})
				// A store may report the roles (odd turns are the assistant's).
				if n.RolesKnown && (n.Role != roleOf(n.ID) || n.OfRole != roleOf(n.Of)) {
					t.Errorf("%s near %s: roles %q of %q, want %q of %q", n.ID, n.Of, n.Role, n.OfRole, roleOf(n.ID), roleOf(n.Of))
				}
			}
			// Order within one id's list is nearest first per side; compare as sets of triples.
			if len(have) != len(tc.want) {
				t.Fatalf("ThreadNeighbors = %v, want %v", have, tc.want)
			}
			for _, w := range tc.want {
				found := false
				for _, g := range have {
					found = found || g == w
				}
				if !found {
					t.Errorf("ThreadNeighbors = %v, missing %v", have, w)
				}
			}
		})
	}
	t.Run("gaps of days", func(t *testing.T) { testThreadGaps(t, h) })
	for _, w := range []int{-1, kgmem.MaxThreadWindow + 1} {
		_, err := h.s.ThreadNeighbors(h.ctx, ns, kgmem.ThreadNeighborsQuery{IDs: []string{"ep_th_2"}, Window: w})
		var fe *kgmem.FieldError
		if !errors.Is(err, kgmem.ErrInvalid) || !errors.As(err, &fe) || fe.Field != "window" {
			t.Errorf("window %d: err = %v, want ErrInvalid naming window", w, err)
		}
	}
}

// testThreadGaps covers neighbours hours and months apart in one thread, so
// that a store which looks near an episode first must look further for the
// rest of the window, in order, and stop at the thread's ends.
func testThreadGaps(t *testing.T, h *h) {
	ns := kgmem.Namespace("graph/thread-gaps")
	hours := []int{0, 1, 720, 721, 1440, 1440}
	cs := kgmem.ChangeSet{Namespace: ns}
	for i, hr := range hours {
		e := Episode(ns, fmt.Sprintf("ep_gap_%d", i), "Ann", fmt.Sprintf("turn %d", i))
		e.MessageID, e.ThreadID = fmt.Sprintf("g%d", i), "gaps"
		e.Timestamp, e.CreatedAt = at(hr), at(hr)
		cs.Episodes = append(cs.Episodes, e)
	}
	h.apply(cs)
	got, err := h.s.ThreadNeighbors(h.ctx, ns, kgmem.ThreadNeighborsQuery{IDs: []string{"ep_gap_2", "ep_gap_3", "ep_gap_0", "ep_gap_5"}, Window: 3})
	if err != nil {
		t.Fatal(err)
	}
	have := map[string][]string{} // "of offset" -> id
	for _, n := range got {
		key := fmt.Sprintf("%s %+d", n.Of, n.Offset)
		have[key] = append(have[key], n.ID)
	}
	want := map[string][]string{
		"ep_gap_2 -1": {"ep_gap_1"}, "ep_gap_2 -2": {"ep_gap_0"}, "ep_gap_2 +1": {"ep_gap_3"}, "ep_gap_2 +2": {"ep_gap_4"}, "ep_gap_2 +3": {"ep_gap_5"},
		"ep_gap_3 -1": {"ep_gap_2"}, "ep_gap_3 -2": {"ep_gap_1"}, "ep_gap_3 -3": {"ep_gap_0"}, "ep_gap_3 +1": {"ep_gap_4"}, "ep_gap_3 +2": {"ep_gap_5"},
		"ep_gap_0 +1": {"ep_gap_1"}, "ep_gap_0 +2": {"ep_gap_2"}, "ep_gap_0 +3": {"ep_gap_3"},
		"ep_gap_5 -1": {"ep_gap_4"}, "ep_gap_5 -2": {"ep_gap_3"}, "ep_gap_5 -3": {"ep_gap_2"},
	}
	if !maps.EqualFunc(have, want, slices.Equal) {
		t.Errorf("ThreadNeighbors across gaps of days =\n%v\nwant\n%v", have, want)
	}
}
