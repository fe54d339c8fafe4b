package api_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/kgmem/kgmem/api"
)

// walkthroughFacts posts the README's two facts about the ML team.
func walkthroughFacts(t *testing.T, s *testServer, ns string) (alice, bob string) {
	t.Helper()
	var res struct {
		Facts []struct {
			Op   string `json:"op"`
			Fact struct {
				ID string `json:"id"`
			} `json:"fact"`
		} `json:"facts"`
	}
	body := map[string]any{"namespace": ns, "facts": []map[string]any{
		{"subject": "Alice", "subject_type": "Person", "predicate": "manages", "object": "ML team", "object_type": "Team", "fact": "Alice manages the ML team.", "valid_at": "2024-01-10"},
		{"subject": "Bob", "subject_type": "Person", "predicate": "leads", "object": "ML team", "object_type": "Team", "fact": "Bob leads the ML team.", "valid_at": "2024-03-01"},
	}}
	if st := s.json(http.MethodPost, "/v1/facts", body, &res); st != http.StatusCreated || len(res.Facts) < 2 {
		t.Fatalf("post facts: %d %+v", st, res)
	}
	return res.Facts[0].Fact.ID, res.Facts[1].Fact.ID
}

func TestListNamespacesAndEpisodes(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		s := newTestServer(t, b, api.Options{}, nil)
		ns := "browse/u1"
		if st := s.json(http.MethodPost, "/v1/memories", map[string]any{"namespace": ns, "thread_id": "c1", "messages": conversation()}, nil); st != http.StatusCreated {
			t.Fatalf("ingest: %d", st)
		}
		var nss struct {
			Namespaces []string `json:"namespaces"`
		}
		if st := s.json(http.MethodGet, "/v1/namespaces", nil, &nss); st != http.StatusOK || !strings.Contains(strings.Join(nss.Namespaces, ","), ns) {
			t.Fatalf("namespaces: %d %+v", st, nss)
		}
		q := "/v1/episodes?namespace=" + url.QueryEscape(ns)
		var page struct {
			Episodes []struct {
				ID      string `json:"id"`
				Content string `json:"content"`
			} `json:"episodes"`
			Next string `json:"next"`
		}
		if st := s.json(http.MethodGet, q+"&limit=2", nil, &page); st != http.StatusOK || len(page.Episodes) != 2 || page.Next != page.Episodes[1].ID {
			t.Fatalf("first page: %d %+v", st, page)
		}
		first, second := page.Episodes[0], page.Episodes[1]
		page.Next = ""
		if st := s.json(http.MethodGet, q+"&id="+second.ID+"&id=ep_missing&id="+first.ID, nil, &page); st != http.StatusOK ||
			len(page.Episodes) != 2 || page.Episodes[0] != second || page.Episodes[1] != first || page.Next != "" {
			t.Fatalf("by id: %d %+v", st, page)
		}
		for _, tc := range []struct{ name, query, field string }{
			{"bad limit", "&limit=0", "limit"},
			{"empty id", "&id=", "id"},
		} {
			var p struct {
				Field string `json:"field"`
			}
			if st := s.json(http.MethodGet, q+tc.query, nil, &p); st != http.StatusBadRequest || p.Field != tc.field {
				t.Errorf("%s: %d field %q, want 400 %q", tc.name, st, p.Field, tc.field)
			}
		}
	})
}

type strengthJSON struct {
	Kind      string  `json:"kind"`
	ID        string  `json:"id"`
	Retention float64 `json:"retention"`
	Pinned    bool    `json:"pinned"`
	Stability float64 `json:"stability_days"`
	Curve     []struct {
		Days, Retention float64
	} `json:"curve"`
}

func TestStrength(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		s := newTestServer(t, b, api.Options{}, nil)
		ns := "browse/strength"
		alice, bob := walkthroughFacts(t, s, ns)
		refs := []map[string]string{{"kind": "fact", "id": alice}, {"kind": "fact", "id": bob}}
		var res struct {
			Records []strengthJSON `json:"records"`
		}
		if st := s.json(http.MethodPost, "/v1/strength", map[string]any{"namespace": ns, "refs": refs}, &res); st != http.StatusOK || len(res.Records) != 2 {
			t.Fatalf("strength: %d %+v", st, res)
		}
		for i, r := range res.Records {
			// Facts valid since 2024 were stated then: they have faded since.
			if r.ID != refs[i]["id"] || r.Pinned || !(r.Retention > 0 && r.Retention < 1) || r.Stability <= 0 || len(r.Curve) < 10 {
				t.Fatalf("record %d: %+v", i, r)
			}
			for j := 1; j < len(r.Curve); j++ {
				if r.Curve[j].Days <= r.Curve[j-1].Days || r.Curve[j].Retention > r.Curve[j-1].Retention {
					t.Fatalf("record %d: curve not a falling function of age: %+v", i, r.Curve)
				}
			}
			if r.Curve[0].Retention != 1 {
				t.Errorf("record %d: retention at age 0 is %v, want 1", i, r.Curve[0].Retention)
			}
		}
		if st := s.json(http.MethodPost, "/v1/pins", map[string]any{"namespace": ns, "refs": refs[:1]}, nil); st != http.StatusOK {
			t.Fatalf("pin: %d", st)
		}
		if st := s.json(http.MethodPost, "/v1/strength", map[string]any{"namespace": ns, "refs": refs[:1]}, &res); st != http.StatusOK || len(res.Records) != 1 || !res.Records[0].Pinned || res.Records[0].Retention != 1 {
			t.Fatalf("after pin: %d %+v", st, res)
		}
		for _, tc := range []struct {
			name   string
			body   map[string]any
			status int
			field  string
		}{
			{"unknown kind", map[string]any{"namespace": ns, "refs": []map[string]string{{"kind": "fish", "id": alice}}}, http.StatusBadRequest, "refs[0].kind"},
			{"no refs", map[string]any{"namespace": ns, "refs": []map[string]string{}}, http.StatusBadRequest, "refs"},
			{"pinned field", map[string]any{"namespace": ns, "refs": refs, "pinned": true}, http.StatusBadRequest, "pinned"},
			{"missing record", map[string]any{"namespace": ns, "refs": []map[string]string{{"kind": "fact", "id": "fact_missing"}}}, http.StatusNotFound, ""},
			{"bad namespace", map[string]any{"namespace": "../x", "refs": refs}, http.StatusBadRequest, "namespace"},
		} {
			var p struct {
				Field string `json:"field"`
			}
			if st := s.json(http.MethodPost, "/v1/strength", tc.body, &p); st != tc.status || p.Field != tc.field {
				t.Errorf("%s: %d field %q, want %d %q", tc.name, st, p.Field, tc.status, tc.field)
			}
		}
	})
}

func TestEntitiesByIDAndContributions(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		s := newTestServer(t, b, api.Options{}, nil)
		ns := "browse/ents"
		walkthroughFacts(t, s, ns)
		q := "/v1/entities?namespace=" + url.QueryEscape(ns)
		type ent struct {
			ID   string `json:"id"`
			Name string `json:"name"`
			Type string `json:"type"`
		}
		var all struct {
			Entities []ent `json:"entities"`
			Next     string
		}
		if st := s.json(http.MethodGet, q, nil, &all); st != http.StatusOK || len(all.Entities) != 3 {
			t.Fatalf("entities: %d %+v", st, all)
		}
		var some struct {
			Entities []ent `json:"entities"`
			Next     string
		}
		a, c := all.Entities[0], all.Entities[2]
		if st := s.json(http.MethodGet, q+"&limit=2&id="+c.ID+"&id=ent_missing&id="+a.ID, nil, &some); st != http.StatusOK ||
			len(some.Entities) != 2 || some.Entities[0] != c || some.Entities[1] != a || some.Next != "" {
			t.Fatalf("by id: %d %+v", st, some)
		}
		// Each retriever's contribution is its share of the fused relevance.
		var res struct {
			Facts []struct {
				Score struct {
					Relevance float64 `json:"relevance"`
					Sources   []struct {
						Retriever    string  `json:"retriever"`
						Contribution float64 `json:"contribution"`
					} `json:"sources"`
				} `json:"score"`
			} `json:"facts"`
		}
		if st := s.json(http.MethodPost, "/v1/search", map[string]any{"namespace": ns, "query": "Who leads the ML team?", "reinforce": false}, &res); st != http.StatusOK || len(res.Facts) == 0 {
			t.Fatalf("search: %d %+v", st, res)
		}
		for i, f := range res.Facts {
			sum := 0.0
			for _, src := range f.Score.Sources {
				if src.Contribution <= 0 {
					t.Errorf("fact %d: %s contributed %v", i, src.Retriever, src.Contribution)
				}
				sum += src.Contribution
			}
			if sum <= 0 || sum > f.Score.Relevance*(1+1e-9) {
				t.Errorf("fact %d: contributions sum to %v, relevance %v", i, sum, f.Score.Relevance)
			}
		}
	})
}

func TestListJobs(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		s := newAsyncServer(t, b)
		ns := "browse/jobs"
		var ids []string
		for i, thread := range []string{"t1", "t2"} {
			var job jobJSON
			msgs := []message{{"id": "m" + thread, "content": "message " + thread, "timestamp": "2024-01-01T00:00:00Z"}}
			if st := s.json(http.MethodPost, "/v1/memories", map[string]any{"namespace": ns, "thread_id": thread, "mode": "async", "messages": msgs}, &job); st != http.StatusAccepted {
				t.Fatalf("job %d: %d", i, st)
			}
			ids = append(ids, job.ID)
		}
		var list struct {
			Jobs []jobJSON `json:"jobs"`
		}
		q := "/v1/jobs?namespace=" + url.QueryEscape(ns)
		if st := s.json(http.MethodGet, q, nil, &list); st != http.StatusOK || len(list.Jobs) != 2 || list.Jobs[0].ID != ids[1] || list.Jobs[1].ID != ids[0] {
			t.Fatalf("jobs, newest first: %d %+v (ids %v)", st, list, ids)
		}
		if st := s.json(http.MethodGet, q+"&limit=1", nil, &list); st != http.StatusOK || len(list.Jobs) != 1 || list.Jobs[0].Progress.Messages != 1 {
			t.Fatalf("limit 1: %d %+v", st, list)
		}
		if st := s.json(http.MethodGet, "/v1/jobs?namespace=browse%2Fother", nil, &list); st != http.StatusOK || len(list.Jobs) != 0 {
			t.Fatalf("another namespace's jobs: %d %+v", st, list)
		}
		if st := s.json(http.MethodGet, q+"&limit=101", nil, nil); st != http.StatusBadRequest {
			t.Fatalf("limit 101: %d", st)
		}
	})
}

// TestNamedRecordsTakeTheListingFilters checks that ?id= combines with the
// listing's other filters: after and limit on messages; q, type, after and
// limit on entities.
func TestNamedRecordsTakeTheListingFilters(t *testing.T) {
	s := newTestServer(t, backends(t)[0], api.Options{}, nil)
	const ns = "named/a"
	postFacts(t, s, ns, map[string]any{"subject": "Alice", "subject_type": "Person", "predicate": "works at", "object": "Acme", "object_type": "Organization"},
		map[string]any{"subject": "Bob", "subject_type": "Person", "predicate": "works at", "object": "Initech", "object_type": "Organization"})
	var all struct {
		Entities []struct {
			ID   string `json:"id"`
			Name string `json:"name"`
		} `json:"entities"`
	}
	s.json("GET", "/v1/entities?namespace="+ns, nil, &all)
	if len(all.Entities) != 4 {
		t.Fatalf("entities %+v", all.Entities)
	}
	ids := ""
	for i := len(all.Entities) - 1; i >= 0; i-- { // named in reverse id order
		ids += "&id=" + all.Entities[i].ID
	}
	names := func(query string) []string {
		var out struct {
			Entities []struct {
				Name string `json:"name"`
			} `json:"entities"`
		}
		if st := s.json("GET", "/v1/entities?namespace="+ns+ids+query, nil, &out); st != http.StatusOK {
			t.Fatalf("%s: %d", query, st)
		}
		var got []string
		for _, e := range out.Entities {
			got = append(got, e.Name)
		}
		return got
	}
	if got := names("&type=Person"); len(got) != 2 {
		t.Errorf("type=Person: %q", got)
	}
	if got := names("&q=ACM"); len(got) != 1 || got[0] != "Acme" {
		t.Errorf("q=ACM: %q", got)
	}
	if got := names("&limit=1"); len(got) != 1 || got[0] != all.Entities[3].Name {
		t.Errorf("limit=1: %q, want the first named (%s)", got, all.Entities[3].Name)
	}
	if got := names("&after=" + all.Entities[1].ID); len(got) != 2 {
		t.Errorf("after the second id: %q, want the two with greater ids", got)
	}
}
