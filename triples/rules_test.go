package triples

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kgmem/kgmem"
)

// step is one message of a rules case: triples (and optional listed entities)
// said at a day offset.
type step struct {
	ents    []kgmem.ExtractedEntity
	triples []kgmem.Triple
	policy  kgmem.WritePolicy
}

func TestIntegrateRuleCases(t *testing.T) {
	txt := func(s, p, o, text string) kgmem.Triple {
		return kgmem.Triple{Subject: s, Predicate: p, Object: o, Text: text}
	}
	typed := func(s, st, p, o, ot string) kgmem.Triple {
		return kgmem.Triple{Subject: s, SubjectType: st, Predicate: p, Object: o, ObjectType: ot}
	}
	tests := []struct {
		name     string
		steps    []step
		lastOps  string
		current  []string
		history  []string
		entities int
	}{
		{name: "passive predicate swaps subject and object",
			steps:   []step{{triples: []kgmem.Triple{tr("Bob", "is managed by", "Alice")}}},
			lastOps: "added", current: []string{"Alice manages Bob"}, entities: 2},
		{name: "richer text updates in place",
			steps: []step{{triples: []kgmem.Triple{txt("Bob", "leads", "ML team", "Bob leads the ML team.")}},
				{triples: []kgmem.Triple{txt("Bob", "leads", "ML team", "Bob leads the ML team since March.")}}},
			lastOps: "updated", current: []string{"Bob leads ML team"}, entities: 2},
		{name: "rewording is a duplicate",
			steps: []step{{triples: []kgmem.Triple{txt("Bob", "leads", "ML team", "Bob leads the ML team.")}},
				{triples: []kgmem.Triple{txt("Bob", "heads", "the ML team", "Bob heads ML.")}}},
			lastOps: "duplicate", current: []string{"Bob leads ML team"}, entities: 2},
		{name: "less specific restatement is a duplicate",
			steps: []step{{triples: []kgmem.Triple{tr("Ann", "likes", "miso ramen")}},
				{triples: []kgmem.Triple{tr("Ann", "likes", "ramen")}}},
			lastOps: "duplicate", current: []string{"Ann likes miso ramen"}, entities: 3},
		{name: "functional predicate replaces the object",
			steps: []step{{triples: []kgmem.Triple{tr("Ann", "works at", "Initech")}},
				{triples: []kgmem.Triple{tr("Ann", "works for", "Globex")}}},
			lastOps: "added,invalidated", current: []string{"Ann works_at Globex"}, history: []string{"Ann works_at Initech"}, entities: 3},
		{name: "non-functional predicate accumulates without an LLM",
			steps: []step{{triples: []kgmem.Triple{tr("Ann", "likes", "tea")}},
				{triples: []kgmem.Triple{tr("Ann", "enjoys", "coffee")}}},
			lastOps: "added", current: []string{"Ann likes tea", "Ann likes coffee"}, entities: 3},
		{name: "positive restatement ends a negation",
			steps: []step{{triples: []kgmem.Triple{tr("Ann", "doesn't like", "jazz")}},
				{triples: []kgmem.Triple{tr("Ann", "loves", "jazz")}}},
			lastOps: "added,invalidated", current: []string{"Ann likes jazz"}, history: []string{"Ann not_likes jazz"}, entities: 2},
		{name: "dislike contradicts like",
			steps: []step{{triples: []kgmem.Triple{tr("Ann", "likes", "jazz")}},
				{triples: []kgmem.Triple{tr("Ann", "hates", "jazz")}}},
			lastOps: "added,invalidated", current: []string{"Ann dislikes jazz"}, history: []string{"Ann likes jazz"}, entities: 2},
		{name: "updates disabled: a refinement is added instead",
			steps: []step{{triples: []kgmem.Triple{tr("Ann", "likes", "ramen")}},
				{triples: []kgmem.Triple{tr("Ann", "likes", "miso ramen")}, policy: kgmem.WritePolicy{DisableUpdates: true}}},
			lastOps: "added", current: []string{"Ann likes ramen", "Ann likes miso ramen"}, entities: 3},
		{name: "first name joins the batch's only full name",
			steps: []step{{ents: []kgmem.ExtractedEntity{{Name: "Bob Smith", Type: "Person"}},
				triples: []kgmem.Triple{typed("Bob", "", "likes", "tea", ""), typed("Bob Smith", "Person", "works at", "Initech", "Company")}}},
			lastOps: "added,added", current: []string{"Bob Smith likes tea", "Bob Smith works_at Initech"}, entities: 3},
		{name: "first name stays apart when two people share it",
			steps: []step{{ents: []kgmem.ExtractedEntity{{Name: "Bob Smith", Type: "Person"}, {Name: "Bob Jones", Type: "Person"}},
				triples: []kgmem.Triple{tr("Bob", "likes", "tea")}}},
			lastOps: "added", current: []string{"Bob likes tea"}, entities: 4},
		{name: "first name stays apart from a full name that is not a person's",
			steps: []step{{ents: []kgmem.ExtractedEntity{{Name: "Bob Marley Foundation", Type: "Organization"}},
				triples: []kgmem.Triple{tr("Bob", "likes", "tea")}}},
			lastOps: "added", current: []string{"Bob likes tea"}, entities: 3},
		{name: "first name of another type stays apart from a person's full name",
			steps: []step{{ents: []kgmem.ExtractedEntity{{Name: "Jordan Smith", Type: "Person"}},
				triples: []kgmem.Triple{typed("Ann", "Person", "visited", "Jordan", "Location")}}},
			lastOps: "added", current: []string{"Ann visited Jordan"}, entities: 3},
		{name: "articles and hyphens do not split an entity",
			steps: []step{{triples: []kgmem.Triple{tr("Bob", "leads", "the ML team")}},
				{triples: []kgmem.Triple{tr("Bob", "leads", "ML-Team")}}},
			lastOps: "duplicate", current: []string{"Bob leads the ML team"}, entities: 2},
		{name: "a person joins a stored full name by first name",
			steps: []step{{triples: []kgmem.Triple{typed("Bob Smith", "Person", "works at", "Initech", "Company")}},
				{triples: []kgmem.Triple{typed("Bob", "Person", "likes", "tea", "")}}},
			lastOps: "added", current: []string{"Bob Smith works_at Initech", "Bob Smith likes tea"}, entities: 3},
		{name: "a stated end date ends the current fact",
			steps: []step{{triples: []kgmem.Triple{tr("Ann", "works at", "Initech")}},
				{triples: []kgmem.Triple{{Subject: "Ann", Predicate: "works_at", Object: "Initech", InvalidAt: t0.Add(30 * time.Minute)}}}},
			lastOps: "updated", history: []string{"Ann works_at Initech"}, entities: 2},
		{name: "an ended fact does not contradict the current one",
			steps: []step{{triples: []kgmem.Triple{tr("Ann", "works at", "Globex")}},
				{triples: []kgmem.Triple{{Subject: "Ann", Predicate: "works_at", Object: "Initech", ValidAt: day(-900), InvalidAt: day(-400)}}}},
			lastOps: "added", current: []string{"Ann works_at Globex"}, history: []string{"Ann works_at Initech"}, entities: 3},
		{name: "an ended fact restated for a new period is added",
			steps: []step{{triples: []kgmem.Triple{{Subject: "Ann", Predicate: "lives_in", Object: "Paris", ValidAt: day(-900), InvalidAt: day(-400)}}},
				{triples: []kgmem.Triple{tr("Ann", "lives in", "Paris")}}},
			lastOps: "added", current: []string{"Ann lives_in Paris"}, history: []string{"Ann lives_in Paris"}, entities: 2},
		{name: "an ended fact restated for its period is a duplicate",
			steps: []step{{triples: []kgmem.Triple{{Subject: "Ann", Predicate: "lives_in", Object: "Paris", ValidAt: day(-900), InvalidAt: day(-400)}}},
				{triples: []kgmem.Triple{{Subject: "Ann", Predicate: "lives_in", Object: "Paris", ValidAt: day(-800)}}}},
			lastOps: "duplicate", history: []string{"Ann lives_in Paris"}, entities: 2},
		{name: "a self loop after resolution is skipped",
			steps: []step{{ents: []kgmem.ExtractedEntity{{Name: "Bob Smith", Type: "Person", Aliases: []string{"Bob"}}},
				triples: []kgmem.Triple{tr("Bob", "knows", "Bob Smith")}}},
			lastOps: "skipped", entities: 1},
		{name: "object exclusivity only across subjects",
			steps: []step{{triples: []kgmem.Triple{tr("Alice", "manages", "ML team")}},
				{triples: []kgmem.Triple{tr("Alice", "leads", "ML team")}}},
			lastOps: "added", current: []string{"Alice manages ML team", "Alice leads ML team"}, entities: 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := newMemStore()
			clock := &fixedClock{t: t0}
			in := NewIntegrator(st, IntegratorOptions{Clock: clock})
			ns := kgmem.Namespace("rules")
			var last IntegrateResult
			for i, s := range tt.steps {
				clock.t = t0.Add(time.Duration(i) * time.Hour)
				ep := kgmem.Episode{ID: kgmem.EpisodeID(ns, "t", string(rune('a'+i))), Namespace: ns, Role: "user", Name: "Zed", Content: "…", Timestamp: clock.t}
				res, err := in.Integrate(context.Background(), IntegrateRequest{Namespace: ns, Entities: s.ents, Triples: s.triples, Episodes: []kgmem.Episode{ep}, Policy: s.policy})
				if err != nil {
					t.Fatal(err)
				}
				cs := res.Changes
				cs.Episodes = []kgmem.Episode{ep}
				if err := st.Apply(context.Background(), cs); err != nil {
					t.Fatal(err)
				}
				last = res
			}
			if ops(last) != tt.lastOps {
				t.Errorf("last ops = %s, want %s (%+v)", ops(last), tt.lastOps, last.FactChanges)
			}
			assertSet(t, "current", graphFacts(t, st, ns, true), tt.current...)
			assertSet(t, "history", graphFacts(t, st, ns, false), tt.history...)
			if es, _ := st.FindEntities(context.Background(), ns, kgmem.EntityFilter{}); len(es) != tt.entities {
				t.Errorf("entities = %d, want %d: %+v", len(es), tt.entities, es)
			}
		})
	}
}

func TestIntegrateRecords(t *testing.T) {
	st := newMemStore()
	clock := &fixedClock{t: t0}
	in := NewIntegrator(st, IntegratorOptions{Clock: clock})
	ns := kgmem.Namespace("rec")
	ep1 := kgmem.Episode{ID: "ep1", Namespace: ns, Name: "Zed", Content: "Acme hired Ann. Ann likes tea.", Timestamp: t0.Add(-time.Hour)}
	ep2 := kgmem.Episode{ID: "ep2", Namespace: ns, Name: "Zed", Content: "Nothing about them.", Timestamp: t0}
	res, err := in.Integrate(context.Background(), IntegrateRequest{Namespace: ns,
		Entities: []kgmem.ExtractedEntity{{Name: "Acme", Type: "", Attributes: map[string]any{"size": "big"}}},
		Triples: []kgmem.Triple{
			{Subject: "Ann", Predicate: "works_at", Object: "Acme", EpisodeIDs: []string{"ep1"}, Importance: 8, Confidence: 0.5},
			{Subject: "Ann", Predicate: "likes", Object: "tea", EpisodeIDs: []string{"ep1"}},
		},
		Episodes: []kgmem.Episode{ep1, ep2}})
	if err != nil {
		t.Fatal(err)
	}
	cs := res.Changes
	if len(cs.Facts) != 2 || len(cs.Entities) != 3 || cs.Namespace != ns || len(cs.Episodes) != 0 {
		t.Fatalf("change set = %+v", cs)
	}
	f := cs.Facts[0]
	if !strings.HasPrefix(f.ID, "fact_") || f.Text != "Ann works at Acme." || !f.CreatedAt.Equal(t0) || !f.ValidAt.Equal(ep1.Timestamp) ||
		f.Importance != 8 || f.Confidence != 0.5 || !slices.Equal(f.Episodes, []string{"ep1"}) || f.Decay != (kgmem.DecayState{}) {
		t.Errorf("fact = %+v", f)
	}
	if cs.Facts[1].Importance != DefaultImportance || cs.Facts[1].Confidence != DefaultConfidence {
		t.Errorf("defaults = %+v", cs.Facts[1])
	}
	for _, e := range cs.Entities {
		if e.ID != kgmem.EntityID(ns, e.Name) || !e.CreatedAt.Equal(t0) || e.Namespace != ns {
			t.Errorf("entity = %+v", e)
		}
		if e.Name == "Acme" && e.Attributes["size"] != "big" {
			t.Errorf("attributes lost: %+v", e)
		}
	}
	for _, m := range cs.Mentions {
		if m.EpisodeID != "ep1" {
			t.Errorf("mention %+v: ep2 mentions nothing", m)
		}
	}
	if len(cs.Mentions) != 3 {
		t.Errorf("mentions = %+v", cs.Mentions)
	}
	if err := st.Apply(context.Background(), cs); err != nil {
		t.Fatal(err)
	}
	// A later, typed mention upgrades the stored type and keeps the decay state.
	st.mu.Lock()
	acme := st.entities[scoped(ns, kgmem.EntityID(ns, "Acme"))]
	acme.Decay = kgmem.DecayState{Stability: 3, Reinforcements: 2}
	st.entities[scoped(ns, acme.ID)] = acme
	st.mu.Unlock()
	clock.t = t0.Add(time.Hour)
	res, err = in.Integrate(context.Background(), IntegrateRequest{Namespace: ns,
		Entities: []kgmem.ExtractedEntity{{Name: "ACME", Type: "company", Aliases: []string{"Acme Inc."}}}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Changes.Entities) != 1 {
		t.Fatalf("entities = %+v", res.Changes.Entities)
	}
	got := res.Changes.Entities[0]
	if got.ID != acme.ID || got.Type != kgmem.TypeOrganization || !slices.Contains(got.Aliases, "Acme Inc") ||
		got.Decay != acme.Decay || !got.UpdatedAt.Equal(clock.t) || !got.CreatedAt.Equal(t0) {
		t.Errorf("upgraded entity = %+v", got)
	}
}

// vecEmbedder embeds names through a fixed table (unknown names: a distinct axis each).
type vecEmbedder map[string][]float32

func (v vecEmbedder) Embed(_ context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, s := range texts {
		if vec, ok := v[s]; ok {
			out[i] = vec
		} else {
			out[i] = []float32{0, 0, float32(len(s))}
		}
	}
	return out, nil
}
func (v vecEmbedder) Dimension() int { return 3 }
func (v vecEmbedder) Name() string   { return "table" }

func TestIntegrateEmbedderMergesAmbiguousNames(t *testing.T) {
	tests := []struct {
		name   string
		emb    vecEmbedder
		merged bool
	}{
		{"close embeddings merge", vecEmbedder{"Acme Corp": {1, 0, 0}, "Acme Corporation": {0.99, 0.05, 0}}, true},
		{"distant embeddings stay apart", vecEmbedder{"Acme Corp": {1, 0, 0}, "Acme Corporation": {0, 1, 0}}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := newMemStore()
			in := NewIntegrator(st, IntegratorOptions{Clock: &fixedClock{t: t0}, Embedder: tt.emb})
			ns := kgmem.Namespace("emb")
			for _, obj := range []string{"Acme Corporation", "Acme Corp"} {
				res, err := in.Integrate(context.Background(), IntegrateRequest{Namespace: ns,
					Triples: []kgmem.Triple{typed3("Ann", "works_at", obj, "Organization")}})
				if err != nil {
					t.Fatal(err)
				}
				if err := st.Apply(context.Background(), res.Changes); err != nil {
					t.Fatal(err)
				}
			}
			es, _ := st.FindEntities(context.Background(), ns, kgmem.EntityFilter{Query: "acme"})
			if (len(es) == 1) != tt.merged {
				t.Errorf("acme entities = %+v, merged want %v", es, tt.merged)
			}
		})
	}
}

func typed3(s, p, o, ot string) kgmem.Triple {
	return kgmem.Triple{Subject: s, SubjectType: "Person", Predicate: p, Object: o, ObjectType: ot}
}
