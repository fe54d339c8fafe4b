package triples

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/kgmem/kgmem"
)

// opposite reports whether two canonical predicates contradict each other for
// the same subject and object: "p" and "not_p", "likes" and "dislikes".
func opposite(a, b string) bool {
	if pa, ok := Negated(a); ok && pa == b {
		return true
	}
	if pb, ok := Negated(b); ok && pb == a {
		return true
	}
	pos := func(p string) string {
		if q, ok := Negated(p); ok {
			return q
		}
		return p
	}
	pa, pb := pos(a), pos(b)
	_, na := Negated(a)
	_, nb := Negated(b)
	// likes ⟂ dislikes; not_likes and not_dislikes can both hold.
	return !na && !nb && (pa == "likes" && pb == "dislikes" || pa == "dislikes" && pb == "likes")
}

// maxRelatedFacts bounds the stored facts shown to the LLM per new triple.
const maxRelatedFacts = 8

// pendingDecision is a triple the rules could not decide: a question for the
// LLM judge, asked after the first (rules-only) pass.
type pendingDecision struct {
	cand    candidate
	fact    kgmem.Fact // the fact it would add
	related []string   // ids of related stored facts
}

// decideAll decides every prepared triple in order.
func (w *work) decideAll(ctx context.Context) error {
	for _, c := range w.cands {
		sID, oID := w.keyToEntity[c.subject.key], w.keyToEntity[c.object.key]
		if sID == oID {
			w.changes = append(w.changes, kgmem.FactChange{Op: kgmem.OpSkipped,
				Fact:   kgmem.Fact{Namespace: w.ns, SubjectName: c.subject.name, Predicate: c.predicate, ObjectName: c.object.name, Text: c.text},
				Reason: fmt.Sprintf("triples[%d]: subject %q and object %q are the same entity", c.index, c.subject.name, c.object.name)})
			continue
		}
		if err := w.loadRelated(ctx, sID, c.predicate, oID); err != nil {
			return err
		}
		w.decide(c, sID, oID)
	}
	return nil
}

// loadRelated reads into the working set every stored fact decide can weigh
// for the triple (sID, predicate, oID): the facts between the two entities,
// history included (restatements, opposites), the facts of either in the
// predicate's exclusive timelines, history included (single-valued
// relations), and the current facts of either with the same predicate (the
// LLM judge's related facts). It reads those slices, not every fact of both
// entities, so a hub entity with thousands of facts costs an index lookup per
// message, not a full load.
func (w *work) loadRelated(ctx context.Context, sID, predicate, oID string) error {
	type load struct {
		filter kgmem.FactFilter
		all    bool // every match, or the first maxRelatedFacts
	}
	var loads []load
	sStored, oStored := w.storedEntity(sID), w.storedEntity(oID)
	if sStored && oStored {
		loads = append(loads, load{kgmem.FactFilter{EntityID: sID, OtherID: oID, IncludeExpired: true}, true})
	}
	card := w.cards.of(predicate)
	subjectSide := card == kgmem.CardinalityOneObject || card == kgmem.CardinalityOneEach
	objectSide := card == kgmem.CardinalityOneSubject || card == kgmem.CardinalityOneEach
	for _, p := range w.cards.groupPredicates(predicate) {
		if sStored && subjectSide {
			loads = append(loads, load{kgmem.FactFilter{EntityID: sID, Predicate: p, IncludeExpired: true}, true})
		}
		if oStored && objectSide {
			loads = append(loads, load{kgmem.FactFilter{EntityID: oID, Predicate: p, IncludeExpired: true}, true})
		}
	}
	// The judge's related facts: current ones, a few of them. "Lisbon" may
	// have thousands of residents, and a newcomer needs eight of them.
	if sStored && !subjectSide {
		loads = append(loads, load{kgmem.FactFilter{EntityID: sID, Predicate: predicate}, true})
	}
	if oStored && !objectSide {
		loads = append(loads, load{kgmem.FactFilter{EntityID: oID, Predicate: predicate}, false})
	}
	for _, l := range loads {
		if err := w.loadFacts(ctx, l.filter, l.all); err != nil {
			return err
		}
	}
	return nil
}

// loadFacts reads the facts matching f into the working set (history only
// when f.IncludeExpired), once per filter: all of them with the entities at
// their other ends, or (all false) the first maxRelatedFacts alone.
func (w *work) loadFacts(ctx context.Context, f kgmem.FactFilter, all bool) error {
	key := fmt.Sprintf("%s\x00%s\x00%s\x00%t", f.EntityID, f.OtherID, f.Predicate, f.IncludeExpired)
	if w.loadedFacts[key] {
		return nil
	}
	w.loadedFacts[key] = true
	f.Page = kgmem.Page{Limit: storePageSize}
	if !all {
		f.Limit = maxRelatedFacts
	}
	for {
		page, err := w.reads.ListFacts(ctx, f)
		if err != nil {
			return fmt.Errorf("list facts of %s: %w", f.EntityID, err)
		}
		var missing []string
		for _, fact := range page {
			if _, ok := w.facts[fact.ID]; ok {
				continue
			}
			cp := fact
			w.registerFact(&cp, false)
			for _, id := range []string{fact.SubjectID, fact.ObjectID} {
				if _, ok := w.entities[id]; !ok && !slices.Contains(missing, id) {
					missing = append(missing, id)
				}
			}
		}
		// A partial load feeds the judge only, which reads the facts' own
		// names: the entities at their other ends are not needed.
		if len(missing) > 0 && all {
			ents, err := w.reads.Entities(ctx, missing)
			if err != nil {
				return fmt.Errorf("read entities of facts of %s: %w", f.EntityID, err)
			}
			for i := range ents {
				e := ents[i]
				w.addEntity(&e, false)
			}
		}
		if len(page) < f.Limit || !all {
			return nil
		}
		f.After = page[len(page)-1].ID
	}
}

// storedEntity reports whether an entity came from the store (new ones have no facts yet).
func (w *work) storedEntity(id string) bool {
	_, ok := w.entities[id]
	return ok && !w.newEntity[id]
}

func (w *work) registerFact(f *kgmem.Fact, changed bool) {
	w.facts[f.ID] = f
	w.factOrder = append(w.factOrder, f.ID)
	for _, id := range []string{f.SubjectID, f.ObjectID} {
		if !slices.Contains(w.factsOf[id], f.ID) {
			w.factsOf[id] = append(w.factsOf[id], f.ID)
		}
	}
	if changed {
		w.changedFact[f.ID] = true
	}
}

// current lists the current (not expired, not ended) facts touching subject or object.
func (w *work) current(sID, oID string) []*kgmem.Fact {
	var out []*kgmem.Fact
	seen := map[string]bool{}
	for _, id := range []string{sID, oID} {
		for _, fid := range w.factsOf[id] {
			f := w.facts[fid]
			if seen[fid] || !f.ExpiredAt.IsZero() {
				continue
			}
			seen[fid] = true
			out = append(out, f)
		}
	}
	return out
}

// newFact builds the record a candidate would be stored as.
func (w *work) newFact(c candidate, sID, oID string) *kgmem.Fact {
	f := &kgmem.Fact{
		ID: kgmem.NewID("fact"), Namespace: w.ns, SubjectID: sID, Predicate: c.predicate, ObjectID: oID,
		SubjectName: w.entities[sID].Name, ObjectName: w.entities[oID].Name,
		Text: c.text, Confidence: c.confidence, Importance: c.importance,
		Episodes: slices.Clone(c.episodes), Attributes: c.attributes,
		ValidAt: c.validAt, InvalidAt: c.invalidAt, CreatedAt: w.now,
	}
	if f.Text == "" {
		f.Text = fmt.Sprintf("%s %s %s.", f.SubjectName, predicateWords(f.Predicate), f.ObjectName)
	}
	return f
}

// decide applies the rules to one candidate: a restatement merges into the
// known fact (timeline.go); a fact in a single-valued or opposite timeline is
// added and the timeline's ends re-derived; a more specific object refines
// the known fact. What the rules cannot decide goes to the LLM judge: in the
// first pass it is recorded as a question (and added provisionally), in the
// decided pass the judge's answer is applied.
func (w *work) decide(c candidate, sID, oID string) {
	nf := w.newFact(c, sID, oID)
	if handled, changed := w.restate(c, nf); handled {
		if changed != nil {
			w.reconcile(changed)
		}
		return
	}
	var related []string
	excluded := false
	excludes := w.excluder(nf)
	for _, f := range w.current(sID, oID) {
		sameS, sameO, sameP := f.SubjectID == sID, f.ObjectID == oID, f.Predicate == nf.Predicate
		if !f.InvalidAt.IsZero() || sameS && sameO && sameP {
			continue
		}
		switch {
		case excludes(f):
			excluded = true
		case excluded:
		case sameS && sameP && refines(w.entities[oID], w.entities[f.ObjectID]):
			w.refine(c, nf, f)
			return
		case sameS && sameP && refines(w.entities[f.ObjectID], w.entities[oID]):
			w.duplicate(c, f, fmt.Sprintf("less specific restatement of %q", f.Text))
			return
		case (sameS && (sameP || sameO) || sameO && sameP) && !w.addedNow[f.ID]:
			// Facts stated in the same batch are taken as compatible.
			related = append(related, f.ID)
		}
	}
	if excluded || !nf.InvalidAt.IsZero() || w.in.llm == nil || len(related) == 0 || w.req.Policy.DisableInserts {
		if w.add(nf, "") {
			w.reconcile(nf)
		}
		return
	}
	if len(related) > maxRelatedFacts {
		related = related[:maxRelatedFacts]
	}
	if w.decisions == nil {
		w.pending = append(w.pending, pendingDecision{cand: c, fact: *nf, related: related})
		w.add(nf, "provisional: awaiting the LLM judge")
		return
	}
	w.applyAnswer(c, nf, related)
}

// refines reports whether entity a is a more specific form of b: a's name
// contains all of b's words and more ("miso ramen" refines "ramen").
func refines(a, b *kgmem.Entity) bool {
	if a == nil || b == nil || a.ID == b.ID {
		return false
	}
	return tokenSubset(kgmem.NormalizeName(b.Name), kgmem.NormalizeName(a.Name))
}

// add stores nf as a new fact unless inserts are disabled; it reports whether it did.
func (w *work) add(nf *kgmem.Fact, reason string) bool {
	if w.req.Policy.DisableInserts {
		w.changes = append(w.changes, kgmem.FactChange{Op: kgmem.OpSkipped, Fact: *nf,
			Reason: joinReason("write policy disables inserts", reason)})
		return false
	}
	w.registerFact(nf, true)
	w.addedNow[nf.ID] = true
	w.changes = append(w.changes, kgmem.FactChange{Op: kgmem.OpAdded, Fact: *nf, Reason: reason})
	return true
}

// duplicate records that c restates f: f gains provenance and, when c's text is
// richer and updates are allowed, c's text.
func (w *work) duplicate(c candidate, f *kgmem.Fact, reason string) {
	changed := false
	for _, ep := range c.episodes {
		if !slices.Contains(f.Episodes, ep) {
			f.Episodes = append(f.Episodes, ep)
			changed = true
		}
	}
	if c.confidence > f.Confidence {
		f.Confidence, changed = c.confidence, true
	}
	if c.importance > f.Importance {
		f.Importance, changed = c.importance, true
	}
	op := kgmem.OpDuplicate
	if richer(c.text, f.Text) && !w.req.Policy.DisableUpdates {
		f.Text, changed, op = c.text, true, kgmem.OpUpdated
		reason = joinReason(reason, "richer text")
	}
	if changed {
		w.changedFact[f.ID] = true
	}
	w.changes = append(w.changes, kgmem.FactChange{Op: op, Fact: *f, Reason: reason})
}

// richer reports whether text says everything old says and more: it has all
// of old's words plus at least one more ("Bob leads the ML team since March."
// is richer than "Bob leads the ML team."; a rewording is not).
func richer(text, old string) bool {
	tw, ow := wordSet(text), wordSet(old)
	if len(tw) <= len(ow) {
		return false
	}
	for word := range ow {
		if !tw[word] {
			return false
		}
	}
	return true
}

// refine rewrites f in place to the more specific object of nf ("likes ramen"
// becomes "likes miso ramen"). With updates disabled nf is added instead.
func (w *work) refine(c candidate, nf, f *kgmem.Fact) {
	if w.req.Policy.DisableUpdates {
		w.add(nf, "refines "+f.ID+"; write policy disables updates")
		return
	}
	old := f.ObjectID
	f.ObjectID, f.ObjectName, f.Text = nf.ObjectID, nf.ObjectName, nf.Text
	for _, ep := range c.episodes {
		if !slices.Contains(f.Episodes, ep) {
			f.Episodes = append(f.Episodes, ep)
		}
	}
	f.Confidence = max(f.Confidence, c.confidence)
	f.Importance = max(f.Importance, c.importance)
	if !slices.Contains(w.factsOf[nf.ObjectID], f.ID) {
		w.factsOf[nf.ObjectID] = append(w.factsOf[nf.ObjectID], f.ID)
	}
	w.changedFact[f.ID] = true
	w.changes = append(w.changes, kgmem.FactChange{Op: kgmem.OpUpdated, Fact: *f,
		Reason: fmt.Sprintf("object refined from %s to %s", w.entities[old].Name, w.entities[nf.ObjectID].Name)})
}

// supersede adds nf and invalidates the facts it contradicts. When a
// contradicted fact is newer in world time than nf, nf is history: it is added
// already ended at that fact's valid_at and nothing is invalidated.
func (w *work) supersede(nf *kgmem.Fact, olds []*kgmem.Fact, reasons []string) {
	var ends []*kgmem.Fact
	for _, f := range olds {
		if !f.ValidAt.IsZero() && !nf.ValidAt.IsZero() && f.ValidAt.After(nf.ValidAt) {
			if nf.InvalidAt.IsZero() || f.ValidAt.Before(nf.InvalidAt) {
				nf.InvalidAt = f.ValidAt
			}
			continue
		}
		ends = append(ends, f)
	}
	if len(ends) == 0 {
		w.add(nf, "older than the fact that contradicts it; stored as history")
		return
	}
	if w.req.Policy.DisableInvalidations {
		w.add(nf, joinReason(fmt.Sprintf("contradicts %d fact(s)", len(ends)), "write policy disables invalidations"))
		return
	}
	if !w.add(nf, joinReason(reasons...)) {
		return
	}
	for i, f := range ends {
		w.invalidate(f, nf, reasons[min(i, len(reasons)-1)])
	}
}

// invalidate ends f in world time at nf's valid_at (else now) and expires it now.
func (w *work) invalidate(f, nf *kgmem.Fact, reason string) {
	at := nf.ValidAt
	if at.IsZero() {
		at = w.now
	}
	if !f.ValidAt.IsZero() && at.Before(f.ValidAt) {
		at = f.ValidAt
	}
	f.InvalidAt, f.ExpiredAt = at, w.now
	w.changedFact[f.ID] = true
	w.changes = append(w.changes, kgmem.FactChange{Op: kgmem.OpInvalidated, Fact: *f, SupersededBy: nf.ID, Reason: reason})
}

func joinReason(parts ...string) string {
	var out string
	for _, p := range parts {
		if p == "" {
			continue
		}
		if out != "" {
			out += "; "
		}
		out += p
	}
	return out
}

// timeOrZero formats t for prompts.
func timeOrZero(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339)
}
