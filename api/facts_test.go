package api_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/api"
)

type factsResponse struct {
	Facts []kgmem.FactChange `json:"facts"`
}

type factView struct {
	ID        string   `json:"id"`
	Subject   string   `json:"subject"`
	SubjectID string   `json:"subject_id"`
	Predicate string   `json:"predicate"`
	Object    string   `json:"object"`
	Fact      string   `json:"fact"`
	Status    string   `json:"status"`
	Episodes  []string `json:"episodes"`
	ValidAt   string   `json:"valid_at"`
}

type factList struct {
	Facts []factView `json:"facts"`
	Next  string     `json:"next"`
}

type entityView struct {
	ID      string   `json:"id"`
	Name    string   `json:"name"`
	Type    string   `json:"type"`
	Aliases []string `json:"aliases"`
}

func postFacts(t *testing.T, s *testServer, ns string, facts ...map[string]any) factsResponse {
	t.Helper()
	var out factsResponse
	if st := s.json("POST", "/v1/facts", map[string]any{"namespace": ns, "facts": facts}, &out); st != http.StatusCreated && st != http.StatusOK {
		t.Fatalf("POST /v1/facts: status %d", st)
	}
	return out
}

func TestExplicitFactsLifecycle(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		s := newTestServer(t, b, api.Options{}, nil)
		const ns = "acme/users/u42"
		var ing ingestResponse
		s.json("POST", "/v1/memories", map[string]any{"namespace": ns, "thread_id": "t1", "messages": []message{{"id": "m1", "name": "Alice", "content": "Bob leads the ML team now.", "timestamp": "2024-03-01T09:00:00Z"}}}, &ing)

		out := postFacts(t, s, ns,
			map[string]any{"subject": "Bob", "subject_type": "Person", "predicate": "leads", "object": "ML team", "object_type": "Team",
				"fact": "Bob leads the ML team.", "valid_at": "2024-03-01", "episode_ids": []string{ing.Episodes[0].ID}},
			map[string]any{"subject": "bob", "predicate": "Works On", "object": "NLP project", "object_type": "Project"},
		)
		if len(out.Facts) != 2 || out.Facts[0].Op != kgmem.OpAdded || out.Facts[1].Op != kgmem.OpAdded {
			t.Fatalf("changes %+v, want two added", out.Facts)
		}
		lead := out.Facts[0].Fact
		if lead.Predicate != "leads" || lead.Text != "Bob leads the ML team." || len(lead.Episodes) != 1 {
			t.Errorf("stored fact %+v", lead)
		}
		if out.Facts[1].Fact.Predicate != "works_on" {
			t.Errorf("predicate %q, want normalised works_on", out.Facts[1].Fact.Predicate)
		}
		if lead.SubjectID != out.Facts[1].Fact.SubjectID {
			t.Errorf("Bob and bob resolved to two entities: %s, %s", lead.SubjectID, out.Facts[1].Fact.SubjectID)
		}

		// Posting the same triple again is a duplicate, not a second fact.
		again := postFacts(t, s, ns, map[string]any{"subject": "BOB", "predicate": "leads", "object": "ml team"})
		if again.Facts[0].Op != kgmem.OpDuplicate {
			t.Errorf("re-posted triple: %s, want duplicate", again.Facts[0].Op)
		}
		if _, facts, ents := s.counts(ns); facts != 2 || ents != 3 {
			t.Errorf("store holds %d facts and %d entities, want 2 and 3", facts, ents)
		}

		// Read one fact, list by entity name and by id.
		var one factView
		if st := s.json("GET", "/v1/facts/"+lead.ID+"?namespace="+url.QueryEscape(ns), nil, &one); st != 200 || one.Status != "current" || one.Subject != "Bob" || one.Object != "ML team" {
			t.Fatalf("GET fact: %d %+v", st, one)
		}
		var byName factList
		if st := s.json("GET", "/v1/facts?namespace="+url.QueryEscape(ns)+"&entity=bob", nil, &byName); st != 200 || len(byName.Facts) != 2 {
			t.Fatalf("facts of bob: %d %+v", st, byName)
		}
		var byID factList
		s.json("GET", "/v1/facts?namespace="+url.QueryEscape(ns)+"&entity="+lead.ObjectID, nil, &byID)
		if len(byID.Facts) != 1 || byID.Facts[0].ID != lead.ID {
			t.Fatalf("facts of the ML team: %+v", byID)
		}

		// Entities: list with a query, read one.
		var ents struct {
			Entities []entityView `json:"entities"`
		}
		if st := s.json("GET", "/v1/entities?namespace="+url.QueryEscape(ns)+"&q=ml", nil, &ents); st != 200 || len(ents.Entities) != 1 || ents.Entities[0].Type != "Team" {
			t.Fatalf("entities q=ml: %d %+v", st, ents)
		}
		var ent entityView
		if st := s.json("GET", "/v1/entities/"+lead.SubjectID+"?namespace="+url.QueryEscape(ns), nil, &ent); st != 200 || ent.Name != "Bob" {
			t.Fatalf("GET entity: %d %+v", st, ent)
		}

		// Search finds the fact with its breakdown.
		var res searchResponse
		s.json("POST", "/v1/search", map[string]any{"namespace": ns, "query": "who leads the ML team", "include": []string{"facts"}}, &res)
		if len(res.Facts) == 0 || res.Facts[0].ID != lead.ID || len(res.Episodes) != 0 {
			t.Fatalf("search facts: %+v", res)
		}

		// Delete the fact: gone from reads and search; a second delete is 404.
		if st := s.json("DELETE", "/v1/facts/"+lead.ID+"?namespace="+url.QueryEscape(ns), nil, nil); st != http.StatusNoContent {
			t.Fatalf("DELETE fact: %d", st)
		}
		if st := s.json("GET", "/v1/facts/"+lead.ID+"?namespace="+url.QueryEscape(ns), nil, nil); st != http.StatusNotFound {
			t.Fatalf("GET deleted fact: %d, want 404", st)
		}
		if st := s.json("DELETE", "/v1/facts/"+lead.ID+"?namespace="+url.QueryEscape(ns), nil, nil); st != http.StatusNotFound {
			t.Fatalf("second DELETE: %d, want 404", st)
		}
		s.json("POST", "/v1/search", map[string]any{"namespace": ns, "query": "who leads the ML team", "include": []string{"facts"}}, &res)
		for _, f := range res.Facts {
			if f.ID == lead.ID {
				t.Fatal("deleted fact still found by search")
			}
		}

		// Purge: everything goes, and the answer counts it.
		var purged struct {
			Namespace string           `json:"namespace"`
			Deleted   kgmem.PurgeStats `json:"deleted"`
		}
		if st := s.json("DELETE", "/v1/namespaces/"+url.PathEscape(ns), nil, &purged); st != 200 {
			t.Fatalf("purge: %d", st)
		}
		if purged.Namespace != ns || purged.Deleted.Episodes != 1 || purged.Deleted.Facts != 1 || purged.Deleted.Entities != 3 {
			t.Errorf("purge reported %+v", purged)
		}
		if eps, facts, ents := s.counts(ns); eps+facts+ents != 0 {
			t.Errorf("after purge: %d episodes, %d facts, %d entities", eps, facts, ents)
		}
		s.json("POST", "/v1/search", map[string]any{"namespace": ns, "query": "Bob leads the ML team"}, &res)
		if len(res.Facts)+len(res.Episodes)+len(res.Entities) != 0 {
			t.Errorf("search after purge found %+v", res)
		}
	})
}

func TestFactsPaging(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		s := newTestServer(t, b, api.Options{}, nil)
		var facts []map[string]any
		for _, obj := range []string{"tea", "coffee", "juice", "water", "milk"} {
			facts = append(facts, map[string]any{"subject": "Ann", "predicate": "drinks", "object": obj})
		}
		postFacts(t, s, "p", facts...)
		seen := map[string]bool{}
		after := ""
		for pages := 0; pages < 10; pages++ {
			var page factList
			if st := s.json("GET", "/v1/facts?namespace=p&limit=2&after="+after, nil, &page); st != 200 {
				t.Fatalf("page: %d", st)
			}
			for _, f := range page.Facts {
				if seen[f.ID] {
					t.Fatalf("fact %s on two pages", f.ID)
				}
				seen[f.ID] = true
			}
			if page.Next == "" {
				break
			}
			after = page.Next
		}
		if len(seen) != 5 {
			t.Fatalf("paged through %d facts, want 5", len(seen))
		}
	})
}

func TestExplicitFactProvenanceIsPerFact(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		s := newTestServer(t, b, api.Options{}, nil)
		var ing ingestResponse
		s.json("POST", "/v1/memories", map[string]any{"namespace": "prov", "messages": []message{{"id": "m1", "name": "Ann", "content": "I drink tea every morning.", "timestamp": "2024-05-01T08:00:00Z"}}}, &ing)
		out := postFacts(t, s, "prov",
			map[string]any{"subject": "Ann", "predicate": "drinks", "object": "tea", "episode_ids": []string{ing.Episodes[0].ID}},
			map[string]any{"subject": "Ann", "predicate": "owns", "object": "a bicycle"},
		)
		if got := out.Facts[0].Fact.Episodes; len(got) != 1 || got[0] != ing.Episodes[0].ID {
			t.Errorf("cited fact has provenance %v, want [%s]", got, ing.Episodes[0].ID)
		}
		if got := out.Facts[0].Fact.ValidAt; !got.Equal(mustParse(t, "2024-05-01T08:00:00Z")) {
			t.Errorf("cited fact valid_at %v, want the message time", got)
		}
		if got := out.Facts[1].Fact.Episodes; len(got) != 0 {
			t.Errorf("uncited fact borrowed provenance %v from the other fact", got)
		}
	})
}

// TestFactsStatusAndChangeSnapshots pins POST /v1/facts's answer: 201 when
// it created a fact, 200 for a pure re-post; and each change shows the fact
// as that change left it ("added" Paris is not yet invalidated, though the
// same request then invalidates it).
func TestFactsStatusAndChangeSnapshots(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		s := newTestServer(t, b, api.Options{}, nil)
		facts := []map[string]any{
			{"subject": "Al", "predicate": "lives in", "object": "Paris", "valid_at": "2020-01-01"},
			{"subject": "Al", "predicate": "lives in", "object": "Rome", "valid_at": "2022-01-01"},
		}
		var res struct {
			Facts []struct {
				Op   string `json:"op"`
				Fact struct {
					Text      string `json:"fact"`
					InvalidAt string `json:"invalid_at"`
					ExpiredAt string `json:"expired_at"`
				} `json:"fact"`
			} `json:"facts"`
		}
		if st := s.json("POST", "/v1/facts", map[string]any{"namespace": "st/a", "facts": facts}, &res); st != http.StatusCreated {
			t.Fatalf("first post: %d, want 201", st)
		}
		if len(res.Facts) != 3 {
			t.Fatalf("changes %+v, want added, added, invalidated", res.Facts)
		}
		added, invalidated := res.Facts[0], res.Facts[2]
		if added.Op != "added" || added.Fact.InvalidAt != "" || added.Fact.ExpiredAt != "" {
			t.Errorf("first change %+v: want Paris as added (no invalid_at, no expired_at)", added)
		}
		if invalidated.Op != "invalidated" || !strings.HasPrefix(invalidated.Fact.InvalidAt, "2022-01-01") || invalidated.Fact.ExpiredAt == "" {
			t.Errorf("last change %+v: want Paris invalidated at 2022-01-01", invalidated)
		}
		if st := s.json("POST", "/v1/facts", map[string]any{"namespace": "st/a", "facts": facts}, &res); st != http.StatusOK {
			t.Errorf("re-post: %d, want 200 (nothing created)", st)
		}
	})
}
