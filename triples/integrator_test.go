package triples

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/kgmem/kgmem"
)

type fixedClock struct{ t time.Time }

func (c *fixedClock) Now() time.Time { return c.t }

var t0 = time.Date(2025, 3, 10, 9, 0, 0, 0, time.UTC)

// ingest integrates triples said by speaker in one episode and applies the result.
func ingest(t *testing.T, in *Integrator, st kgmem.GraphStore, ns kgmem.Namespace, msgID, speaker, content string, at time.Time, ents []kgmem.ExtractedEntity, ts ...kgmem.Triple) IntegrateResult {
	t.Helper()
	ep := kgmem.Episode{ID: kgmem.EpisodeID(ns, "t1", msgID), Namespace: ns, ThreadID: "t1", MessageID: msgID, Role: "user", Name: speaker, Content: content, Timestamp: at, CreatedAt: at}
	for i := range ts {
		if ts[i].EpisodeIDs == nil {
			ts[i].EpisodeIDs = []string{ep.ID}
		}
	}
	res, err := in.Integrate(context.Background(), IntegrateRequest{Namespace: ns, Entities: ents, Triples: ts, Episodes: []kgmem.Episode{ep}})
	if err != nil {
		t.Fatalf("integrate %s: %v", msgID, err)
	}
	cs := res.Changes
	cs.Episodes = []kgmem.Episode{ep}
	if err := st.Apply(context.Background(), cs); err != nil {
		t.Fatalf("apply %s: %v", msgID, err)
	}
	return res
}

func tr(s, p, o string) kgmem.Triple { return kgmem.Triple{Subject: s, Predicate: p, Object: o} }

// graphFacts renders the facts of ns as "subject predicate object" strings, current or historical.
func graphFacts(t *testing.T, st kgmem.GraphStore, ns kgmem.Namespace, current bool) []string {
	t.Helper()
	fs, err := st.ListFacts(context.Background(), ns, kgmem.FactFilter{IncludeExpired: true, Page: kgmem.Page{Limit: 1000}})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, f := range fs {
		if f.Current() == current {
			out = append(out, f.SubjectName+" "+f.Predicate+" "+f.ObjectName)
		}
	}
	return out
}

func ops(res IntegrateResult) string {
	var out []string
	for _, c := range res.FactChanges {
		out = append(out, string(c.Op))
	}
	return strings.Join(out, ",")
}

func assertSet(t *testing.T, what string, got []string, want ...string) {
	t.Helper()
	g := map[string]bool{}
	for _, s := range got {
		g[s] = true
	}
	if len(g) != len(want) || len(got) != len(want) {
		t.Errorf("%s = %q, want %q", what, got, want)
		return
	}
	for _, w := range want {
		if !g[w] {
			t.Errorf("%s = %q, want %q", what, got, want)
			return
		}
	}
}

func TestIntegrateRules(t *testing.T) {
	ns := kgmem.Namespace("acme/u1")
	st := newMemStore()
	clock := &fixedClock{t: t0}
	in := NewIntegrator(st, IntegratorOptions{Clock: clock})

	r1 := ingest(t, in, st, ns, "m1", "Carol", "Alice manages the ML team and mentors Bob", t0, nil,
		kgmem.Triple{Subject: "Alice", SubjectType: "Person", Predicate: "is manager of", Object: "ML team", ObjectType: "team"},
		kgmem.Triple{Subject: "Alice", SubjectType: "Person", Predicate: "mentors", Object: "Bob", ObjectType: "Person"})
	if ops(r1) != "added,added" {
		t.Fatalf("first message ops = %s", ops(r1))
	}
	clock.t = t0.Add(48 * time.Hour)
	r2 := ingest(t, in, st, ns, "m2", "Carol", "Bob now leads the ML team and the NLP project", clock.t, nil,
		tr("Bob", "now leads", "the ML team"), tr("Bob", "leads", "NLP project"))
	if ops(r2) != "added,invalidated,added" {
		t.Fatalf("second message ops = %s (%+v)", ops(r2), r2.FactChanges)
	}
	inv := r2.FactChanges[1]
	if !inv.Fact.InvalidAt.Equal(clock.t) || !inv.Fact.ExpiredAt.Equal(clock.t) || inv.SupersededBy != r2.FactChanges[0].Fact.ID {
		t.Errorf("invalidation = %+v", inv)
	}
	assertSet(t, "current", graphFacts(t, st, ns, true), "Bob leads ML team", "Bob leads NLP project", "Alice mentors Bob")
	assertSet(t, "history", graphFacts(t, st, ns, false), "Alice manages ML team")
	ents, _ := st.FindEntities(context.Background(), ns, kgmem.EntityFilter{})
	if len(ents) != 4 {
		t.Errorf("entities = %d, want 4 (Alice, Bob, ML team, NLP project)", len(ents))
	}
}

func TestIntegratePreferences(t *testing.T) {
	ns := kgmem.Namespace("u2")
	st := newMemStore()
	clock := &fixedClock{t: t0}
	in := NewIntegrator(st, IntegratorOptions{Clock: clock})
	ingest(t, in, st, ns, "m1", "Dana", "I love ramen. I like pasta", t0, nil,
		kgmem.Triple{Subject: "Dana", Predicate: "loves", Object: "ramen", Text: "Dana loves ramen."},
		kgmem.Triple{Subject: "I", Predicate: "likes", Object: "pasta"})
	clock.t = t0.Add(time.Hour)
	r := ingest(t, in, st, ns, "m2", "Dana", "I like miso ramen. I don't like pasta any more", clock.t, nil,
		tr("I", "likes", "miso ramen"), tr("Dana", "doesn't like", "pasta"))
	if ops(r) != "updated,added,invalidated" {
		t.Fatalf("ops = %s", ops(r))
	}
	assertSet(t, "current", graphFacts(t, st, ns, true), "Dana likes miso ramen", "Dana not_likes pasta")
	assertSet(t, "history", graphFacts(t, st, ns, false), "Dana likes pasta")
}

func TestIntegrateSkipsBadTriples(t *testing.T) {
	st := newMemStore()
	in := NewIntegrator(st, IntegratorOptions{Clock: &fixedClock{t: t0}})
	long := strings.Repeat("x", MaxNameLen+1)
	tests := []struct {
		name   string
		triple kgmem.Triple
		reason string
	}{
		{"empty subject", tr("  ", "likes", "tea"), "subject"},
		{"empty predicate", tr("Ann", "!!", "tea"), "predicate"},
		{"empty object", tr("Ann", "likes", ""), "object"},
		{"long subject", tr(long, "likes", "tea"), "at most"},
		{"pronoun", tr("he", "likes", "tea"), "pronoun"},
		{"self loop", tr("Ann", "likes", "ann"), "same entity"},
		{"bad confidence", kgmem.Triple{Subject: "Ann", Predicate: "likes", Object: "tea", Confidence: 2}, "confidence"},
		{"bad importance", kgmem.Triple{Subject: "Ann", Predicate: "likes", Object: "tea", Importance: 11}, "importance"},
		{"inverted times", kgmem.Triple{Subject: "Ann", Predicate: "likes", Object: "tea", ValidAt: t0, InvalidAt: t0.Add(-time.Hour)}, "before"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := in.Integrate(context.Background(), IntegrateRequest{Namespace: "ns", Triples: []kgmem.Triple{tt.triple}})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.FactChanges) != 1 || res.FactChanges[0].Op != kgmem.OpSkipped || !strings.Contains(res.FactChanges[0].Reason, tt.reason) {
				t.Fatalf("changes = %+v, want one skip mentioning %q", res.FactChanges, tt.reason)
			}
			if len(res.Changes.Facts) != 0 {
				t.Errorf("a skipped triple wrote facts: %+v", res.Changes.Facts)
			}
		})
	}
	if _, err := in.Integrate(context.Background(), IntegrateRequest{Namespace: "bad//ns"}); !errors.Is(err, kgmem.ErrInvalid) {
		t.Errorf("bad namespace: err = %v, want ErrInvalid", err)
	}
}
