package memory_test

import (
	"context"
	"errors"
	"testing"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/episodes"
	"github.com/kgmem/kgmem/memory"
)

// TestIngestThreads stores several threads of a namespace in one call,
// reports each request's episodes in order (created, then existing on a
// re-post that also adds a message), finds them by search, and rejects a
// call with a request of another namespace or asking for extraction
// without writing anything.
func TestIngestThreads(t *testing.T) {
	h := newHarness(t, nil)
	ctx := context.Background()
	ns := kgmem.Namespace("threads")
	first := []memory.IngestRequest{
		{Namespace: ns, ThreadID: "a", Messages: []episodes.Message{msg("m1", "Ann", "I moved to Lisbon.", "2024-05-01T10:00:00Z"), msg("m2", "Ann", "The tram is yellow.", "2024-05-01T10:01:00Z")}},
		{Namespace: ns, ThreadID: "b", Messages: []episodes.Message{msg("m1", "Ben", "Porto has bridges.", "2024-05-02T10:00:00Z")}},
	}
	res, err := h.engine.IngestThreads(ctx, ns, first)
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 2 || len(res[0].Episodes) != 2 || len(res[1].Episodes) != 1 {
		t.Fatalf("results %+v: want two, of 2 and 1 episodes", res)
	}
	for i, r := range res {
		for j, ep := range r.Episodes {
			if !ep.Created || ep.ThreadID != first[i].ThreadID || ep.MessageID != first[i].Messages[j].ID || ep.Namespace != ns {
				t.Errorf("requests[%d] episode %d: %+v, want created in thread %s as %s", i, j, ep, first[i].ThreadID, first[i].Messages[j].ID)
			}
		}
	}
	found, err := h.engine.Search(ctx, memory.SearchRequest{Namespace: ns, Query: "bridges Porto", Include: []kgmem.Kind{kgmem.KindEpisode}})
	if err != nil || len(found.Episodes) == 0 || found.Episodes[0].ThreadID != "b" {
		t.Errorf("search after the call: %+v, %v; want thread b's message first", found.Episodes, err)
	}

	again := []memory.IngestRequest{first[1], {Namespace: ns, ThreadID: "a", Messages: append(first[0].Messages, msg("m3", "Ann", "It rains.", "2024-05-03T10:00:00Z"))}}
	res, err = h.engine.IngestThreads(ctx, ns, again)
	if err != nil {
		t.Fatal(err)
	}
	created := func(r memory.IngestResult) (n int) {
		for _, ep := range r.Episodes {
			if ep.Created {
				n++
			}
		}
		return n
	}
	if len(res) != 2 || created(res[0]) != 0 || len(res[1].Episodes) != 3 || created(res[1]) != 1 || !res[1].Episodes[2].Created {
		t.Errorf("re-post results %+v: want thread b's message existing, thread a's third message alone created", res)
	}

	for _, tc := range []struct {
		name  string
		reqs  []memory.IngestRequest
		field string
	}{
		{"another namespace", []memory.IngestRequest{{Namespace: ns, ThreadID: "c", Messages: []episodes.Message{msg("m1", "Cy", "new", "2024-05-04T10:00:00Z")}},
			{Namespace: "elsewhere", ThreadID: "d", Messages: []episodes.Message{msg("m1", "Di", "new", "2024-05-04T10:00:00Z")}}}, "requests[1].namespace"},
		{"extraction asked", []memory.IngestRequest{{Namespace: ns, ThreadID: "c", Extract: true, Messages: []episodes.Message{msg("m1", "Cy", "new", "2024-05-04T10:00:00Z")}}}, "requests[0].extract"},
		{"an empty message", []memory.IngestRequest{{Namespace: ns, ThreadID: "c", Messages: []episodes.Message{msg("m1", "Cy", "", "2024-05-04T10:00:00Z")}}}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := h.engine.IngestThreads(ctx, ns, tc.reqs)
			var fe *kgmem.FieldError
			if !errors.Is(err, kgmem.ErrInvalid) || tc.field != "" && (!errors.As(err, &fe) || fe.Field != tc.field) {
				t.Errorf("IngestThreads = %v, want an invalid %q", err, tc.field)
			}
			page, err := h.graph.ListEpisodes(ctx, ns, kgmem.Page{Limit: 100})
			if err != nil || len(page) != 4 {
				t.Errorf("after the rejected call %d episodes (%v), want the 4 stored before", len(page), err)
			}
		})
	}
}
