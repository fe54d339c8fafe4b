package triples

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/kgmem/kgmem"
)

// judgeUserPrefix starts the judge's user message.
const judgeUserPrefix = "Answer these questions as JSON.\n"

// maxContextFacts bounds the example sentences shown per ambiguous entity.
const maxContextFacts = 3

// decisions are the LLM judge's answers for one batch. Integrate asks the judge
// once, after a rules-only pass, with every ambiguous entity and every
// undecided fact of the batch, then re-runs the batch applying the answers.
type decisions struct {
	// entity maps a group's identity to the chosen stored entity id ("" for none).
	entity map[string]string
	// fact maps a candidate's triple index to the judge's answer.
	fact map[int]factAnswer
	// err is set when the judge call failed: the rules decide instead.
	err error
}

// factAnswer is the judge's decision about one triple.
type factAnswer struct {
	Decision  string
	TargetIDs []string
	Reason    string
}

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

// groupID identifies a group across the two passes of one batch.
func groupID(g *group) string {
	keys := slices.Clone(g.keys)
	slices.Sort(keys)
	return strings.Join(keys, "\x00")
}

// judge asks the LLM, in one call, which stored candidate (if any) each
// ambiguous group names and what each pending triple does to its related facts.
// Answers naming ids that were not offered are ignored.
func (w *work) judge(ctx context.Context) *decisions {
	d := &decisions{entity: map[string]string{}, fact: map[int]factAnswer{}}
	entityQs := make([]entityQuestion, len(w.ambiguous))
	for i, g := range w.ambiguous {
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
		entityQs[i] = q
	}
	factQs := make([]factQuestion, len(w.pending))
	for i, p := range w.pending {
		q := factQuestion{ID: i + 1, New: summarizeFact(&p.fact, false)}
		for _, id := range p.related {
			q.Existing = append(q.Existing, summarizeFact(w.facts[id], true))
		}
		factQs[i] = q
	}
	payload := struct {
		Entities []entityQuestion `json:"entities"`
		Facts    []factQuestion   `json:"facts"`
	}{Entities: entityQs, Facts: factQs}
	raw, err := marshalPlain(payload, "  ")
	if err != nil {
		d.err = fmt.Errorf("render questions: %w", err)
		return d
	}
	var ans judgeAnswer
	usage, _, err := w.in.llm.completeJSON(ctx, jsonCall{
		system: judgeSystemPrompt, user: judgeUserPrefix + raw,
		schemaName: "memory_decisions", schema: judgeSchema(),
		parse: func(s string) error {
			ans = judgeAnswer{}
			return json.Unmarshal([]byte(s), &ans)
		},
	})
	w.usage = w.usage.Add(usage)
	if err != nil {
		d.err = err
		return d
	}
	for _, a := range ans.Entities {
		i := a.ID - 1
		if i < 0 || i >= len(w.ambiguous) {
			continue
		}
		g := w.ambiguous[i]
		id := ""
		if a.MatchID != nil && slices.ContainsFunc(g.fuzzy, func(c scoredEntity) bool { return c.entity.ID == *a.MatchID }) {
			id = *a.MatchID
		}
		d.entity[groupID(g)] = id
	}
	for _, a := range ans.Facts {
		i := a.ID - 1
		if i < 0 || i >= len(w.pending) {
			continue
		}
		idx := w.pending[i].cand.index
		if _, dup := d.fact[idx]; !dup {
			d.fact[idx] = factAnswer{Decision: a.Decision, TargetIDs: a.TargetIDs, Reason: strings.TrimSpace(a.Reason)}
		}
	}
	return d
}

// applyAnswer applies the judge's answer about candidate c (whose fact would
// be nf, related to the stored facts related) in the decided pass.
func (w *work) applyAnswer(c candidate, nf *kgmem.Fact, related []string) {
	a, ok := w.decisions.fact[c.index]
	switch {
	case w.decisions.err != nil:
		w.add(nf, "LLM decision unavailable, added: "+shortErr(w.decisions.err))
		return
	case !ok:
		w.add(nf, "LLM gave no decision, added")
		return
	}
	var targets []*kgmem.Fact
	for _, id := range a.TargetIDs {
		if slices.Contains(related, id) {
			targets = append(targets, w.facts[id])
		}
	}
	reason := joinReason("LLM", a.Reason)
	switch {
	case a.Decision == "duplicate" && len(targets) > 0:
		w.duplicate(c, targets[0], reason)
	case a.Decision == "update" && len(targets) > 0 && !w.req.Policy.DisableUpdates:
		t := targets[0]
		t.Predicate, t.ObjectID, t.ObjectName, t.Text = nf.Predicate, nf.ObjectID, nf.ObjectName, nf.Text
		for _, ep := range nf.Episodes {
			if !slices.Contains(t.Episodes, ep) {
				t.Episodes = append(t.Episodes, ep)
			}
		}
		t.Confidence, t.Importance = max(t.Confidence, nf.Confidence), max(t.Importance, nf.Importance)
		if !slices.Contains(w.factsOf[nf.ObjectID], t.ID) {
			w.factsOf[nf.ObjectID] = append(w.factsOf[nf.ObjectID], t.ID)
		}
		w.changedFact[t.ID] = true
		w.changes = append(w.changes, kgmem.FactChange{Op: kgmem.OpUpdated, Fact: *t, Reason: reason})
	case a.Decision == "invalidate" && len(targets) > 0:
		reasons := make([]string, len(targets))
		for i := range reasons {
			reasons[i] = reason
		}
		w.supersede(nf, targets, reasons)
	default:
		w.add(nf, reason)
	}
}

func shortErr(err error) string {
	s := err.Error()
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}
