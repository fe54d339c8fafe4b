package triples

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/kgmem/kgmem"
)

// maxContextFacts bounds the example sentences shown per ambiguous entity.
const maxContextFacts = 3

// judgeAnswer is the batched answer about entities and facts.
type judgeAnswer struct {
	Entities []struct {
		ID      int     `json:"id"`
		MatchID *string `json:"match_id"`
	} `json:"entities"`
	Facts []struct {
		ID        int      `json:"id"`
		Decision  string   `json:"decision"`
		TargetIDs []string `json:"target_ids"`
		Reason    string   `json:"reason"`
	} `json:"facts"`
}

// askJudge makes one judge call with the given questions.
func (w *work) askJudge(ctx context.Context, entities []entityQuestion, facts []factQuestion) (judgeAnswer, error) {
	payload := struct {
		Entities []entityQuestion `json:"entities"`
		Facts    []factQuestion   `json:"facts"`
	}{Entities: entities, Facts: facts}
	if payload.Entities == nil {
		payload.Entities = []entityQuestion{}
	}
	if payload.Facts == nil {
		payload.Facts = []factQuestion{}
	}
	raw, err := marshalPlain(payload)
	if err != nil {
		return judgeAnswer{}, fmt.Errorf("render questions: %w", err)
	}
	var ans judgeAnswer
	usage, _, err := w.in.llm.completeJSON(ctx, jsonCall{
		system: judgeSystemPrompt, user: "Answer these questions as JSON.\n" + raw,
		schemaName: "memory_decisions", schema: judgeSchema(),
		parse: func(s string) error {
			ans = judgeAnswer{}
			return json.Unmarshal([]byte(s), &ans)
		},
	})
	w.usage = w.usage.Add(usage)
	return ans, err
}

// resolveWithLLM asks, in one call, which stored candidate (if any) each
// ambiguous group names. It returns group index → chosen entity id ("" for
// none); ids that are not among the group's candidates are ignored.
func (w *work) resolveWithLLM(ctx context.Context, ambiguous []*group) (map[int]string, error) {
	qs := make([]entityQuestion, len(ambiguous))
	for i, g := range ambiguous {
		q := entityQuestion{ID: i + 1, Name: g.mentions[0].name, Type: g.typ}
		for _, c := range w.cands {
			if len(q.Context) < maxContextFacts && (slices.Contains(g.keys, c.subject.key) || slices.Contains(g.keys, c.object.key)) {
				text := c.text
				if text == "" {
					text = fmt.Sprintf("%s %s %s", c.subject.name, predicateWords(c.predicate), c.object.name)
				}
				q.Context = append(q.Context, text)
			}
		}
		for _, c := range g.fuzzy {
			q.Candidates = append(q.Candidates, entitySummary{ID: c.entity.ID, Name: c.entity.Name, Type: c.entity.Type, Aliases: c.entity.Aliases})
		}
		qs[i] = q
	}
	ans, err := w.askJudge(ctx, qs, nil)
	if err != nil {
		return nil, err
	}
	out := map[int]string{}
	for _, a := range ans.Entities {
		i := a.ID - 1
		if i < 0 || i >= len(ambiguous) || a.MatchID == nil {
			continue
		}
		if slices.ContainsFunc(ambiguous[i].fuzzy, func(c scoredEntity) bool { return c.entity.ID == *a.MatchID }) {
			out[i] = *a.MatchID
		}
	}
	return out, nil
}

// decidePending asks, in one call, about the tentatively added facts that have
// related existing facts, and applies the answers. When the call fails the
// facts stay added.
func (w *work) decidePending(ctx context.Context, pending []pendingDecision) {
	qs := make([]factQuestion, len(pending))
	for i, p := range pending {
		q := factQuestion{ID: i + 1, New: summarizeFact(w.facts[p.factID], false)}
		for _, id := range p.related {
			q.Existing = append(q.Existing, summarizeFact(w.facts[id], true))
		}
		qs[i] = q
	}
	ans, err := w.askJudge(ctx, nil, qs)
	if err != nil {
		for _, p := range pending {
			w.changes[p.change].Reason = "LLM decision unavailable, added: " + shortErr(err)
		}
		return
	}
	answered := map[int]bool{}
	var drop []int
	for _, a := range ans.Facts {
		i := a.ID - 1
		if i < 0 || i >= len(pending) || answered[i] {
			continue
		}
		answered[i] = true
		p := pending[i]
		var targets []*kgmem.Fact
		for _, id := range a.TargetIDs {
			if slices.Contains(p.related, id) {
				targets = append(targets, w.facts[id])
			}
		}
		reason := "LLM: " + strings.TrimSpace(a.Reason)
		nf := w.facts[p.factID]
		switch {
		case a.Decision == "duplicate" && len(targets) > 0:
			drop = append(drop, p.change)
			w.retract(nf)
			c := p.cand
			c.episodes = nf.Episodes
			w.duplicate(c, targets[0], reason)
		case a.Decision == "update" && len(targets) > 0 && !w.req.Policy.DisableUpdates:
			drop = append(drop, p.change)
			w.retract(nf)
			t := targets[0]
			t.Predicate, t.ObjectID, t.ObjectName, t.Text = nf.Predicate, nf.ObjectID, nf.ObjectName, nf.Text
			t.SubjectID, t.SubjectName = nf.SubjectID, nf.SubjectName
			for _, ep := range nf.Episodes {
				if !slices.Contains(t.Episodes, ep) {
					t.Episodes = append(t.Episodes, ep)
				}
			}
			t.Confidence, t.Importance = max(t.Confidence, nf.Confidence), max(t.Importance, nf.Importance)
			w.changedFact[t.ID] = true
			w.changes = append(w.changes, kgmem.FactChange{Op: kgmem.OpUpdated, Fact: *t, Reason: reason})
		case a.Decision == "invalidate" && len(targets) > 0:
			w.changes[p.change].Reason = reason
			if w.req.Policy.DisableInvalidations {
				w.changes[p.change].Reason = joinReason(reason, "write policy disables invalidations")
				continue
			}
			for _, t := range targets {
				if !t.ValidAt.IsZero() && !nf.ValidAt.IsZero() && t.ValidAt.After(nf.ValidAt) {
					nf.InvalidAt = t.ValidAt // the new fact is the older one: it becomes history.
					continue
				}
				w.invalidate(t, nf, reason)
			}
		default:
			w.changes[p.change].Reason = reason
		}
	}
	for i, p := range pending {
		if !answered[i] {
			w.changes[p.change].Reason = "LLM gave no decision, added"
		}
	}
	if len(drop) > 0 {
		kept := w.changes[:0]
		for i, c := range w.changes {
			if !slices.Contains(drop, i) {
				kept = append(kept, c)
			}
		}
		w.changes = kept
	}
}

// retract removes a tentatively added fact from the working set.
func (w *work) retract(f *kgmem.Fact) {
	delete(w.changedFact, f.ID)
	for _, id := range []string{f.SubjectID, f.ObjectID} {
		w.factsOf[id] = slices.DeleteFunc(w.factsOf[id], func(x string) bool { return x == f.ID })
	}
	f.ExpiredAt = w.now // keeps current() from offering it again.
}

func shortErr(err error) string {
	s := err.Error()
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}
