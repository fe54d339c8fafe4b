package triples

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/kgmem/kgmem"
)

// Restatement and ordering rules. Both are functions of the set of statements
// known, not of the order they arrived in:
//
// Restatement (same subject, predicate and object). A fact's validity is the
// interval [valid_at, invalid_at); a zero valid_at is an unknown start, a zero
// invalid_at an open end.
//   - Same interval: duplicate (provenance added, reinforced), whether the
//     stored fact is current or history.
//   - No dates at all: duplicate of the latest stored period.
//   - Overlapping or touching intervals merge into the earliest stored period
//     they meet: the start becomes the earlier known start; the end becomes
//     the later of two ends, an open statement inside a closed period keeps
//     the period's end (it restates it), and a closed statement closes an open
//     period (it says when it ended). The fact is reported "updated", or
//     "duplicate" when nothing changed.
//   - Disjoint intervals are separate periods ("lived in Paris 2015–2017,
//     and again since 2022").
//
// Ordering (single-valued relations, see cardinalityTable; p versus not_p;
// likes versus dislikes). Facts that exclude each other form a timeline
// ordered by start (an unknown start counts from when kgmem recorded the
// fact; on the same start the later statement comes last). Each fact ends
// where the next conflicting fact in that timeline starts, when that is
// before its own end: it is then "invalidated" with invalid_at = that start.
// A fact whose own end comes first stays "ended". A late fact (older than
// what is known) is placed in the timeline like any other, so the end state
// never depends on arrival order.

// meets reports whether the intervals [s1, e1) and [s2, e2) overlap or
// touch; a zero start is -∞, a zero end +∞.
func meets(s1, e1, s2, e2 time.Time) bool {
	notAfter := func(start, end time.Time) bool { return start.IsZero() || end.IsZero() || !start.After(end) }
	return notAfter(s1, e2) && notAfter(s2, e1)
}

// sameTriple lists every known fact (current or history) with the subject,
// predicate and object of nf, earliest start first.
func (w *work) sameTriple(nf *kgmem.Fact) []*kgmem.Fact {
	var out []*kgmem.Fact
	for _, id := range w.factsOf[nf.SubjectID] {
		f := w.facts[id]
		if f.ID != nf.ID && f.SubjectID == nf.SubjectID && f.ObjectID == nf.ObjectID && f.Predicate == nf.Predicate {
			out = append(out, f)
		}
	}
	slices.SortStableFunc(out, func(a, b *kgmem.Fact) int { return w.compareStart(a, b) })
	return out
}

// restate applies the restatement rule to nf; it reports whether nf was a
// restatement (and so must not be added) and returns the stored fact whose
// interval changed, if any.
func (w *work) restate(c candidate, nf *kgmem.Fact) (handled bool, changed *kgmem.Fact) {
	same := w.sameTriple(nf)
	if len(same) == 0 {
		return false, nil
	}
	for _, r := range same {
		if r.ValidAt.Equal(nf.ValidAt) && r.InvalidAt.Equal(nf.InvalidAt) {
			w.duplicate(c, r, "same subject, predicate, object and validity")
			return true, nil
		}
	}
	if nf.ValidAt.IsZero() && nf.InvalidAt.IsZero() {
		latest := same[len(same)-1]
		for _, r := range same {
			if r.ExpiredAt.IsZero() && r.InvalidAt.IsZero() {
				latest = r
			}
		}
		w.duplicate(c, latest, "restates a known fact without dates")
		return true, nil
	}
	var r *kgmem.Fact
	for _, f := range same {
		if meets(f.ValidAt, f.InvalidAt, nf.ValidAt, nf.InvalidAt) {
			r = f
			break
		}
	}
	if r == nil {
		return false, nil // another period of the same fact
	}
	start := r.ValidAt
	if start.IsZero() || !nf.ValidAt.IsZero() && nf.ValidAt.Before(start) {
		start = nf.ValidAt
	}
	// Remember the later starts merged into the period: an end before one
	// of them (a conflicting fact, a closing restatement) splits the period
	// there (spawnRestated).
	restated := restatedStarts(r)
	for _, s := range []time.Time{nf.ValidAt, r.ValidAt} {
		if !s.IsZero() && s.After(start) && !slices.ContainsFunc(restated, s.Equal) {
			restated = append(restated, s)
		}
	}
	startsChanged := len(restated) != len(restatedStarts(r))
	// What the statements say about the end: a closed statement closes an
	// open period, an open statement inside a closed period restates it, two
	// closed ones give the later end.
	stated := statedEnd(r)
	switch {
	case stated.IsZero():
		stated = nf.InvalidAt
	case nf.InvalidAt.IsZero():
	case nf.InvalidAt.After(stated):
		stated = nf.InvalidAt
	}
	// The end is the stated end, or the cut a later conflicting fact made,
	// whichever comes first.
	end, expired := stated, time.Time{}
	if !r.ExpiredAt.IsZero() && (stated.IsZero() || r.InvalidAt.Before(stated)) {
		end, expired = r.InvalidAt, r.ExpiredAt
	}
	if start.Equal(r.ValidAt) && end.Equal(r.InvalidAt) && expired.Equal(r.ExpiredAt) {
		if !expired.IsZero() {
			setStatedEnd(r, stated)
			w.changedFact[r.ID] = true
		}
		if startsChanged {
			setRestatedStarts(r, restated)
			w.changedFact[r.ID] = true
		}
		w.duplicate(c, r, "restates a known period of the same fact")
		if startsChanged {
			return true, r
		}
		return true, nil
	}
	if w.req.Policy.DisableUpdates {
		w.duplicate(c, r, "restates the fact with other dates; write policy disables updates")
		return true, nil
	}
	old := period(r.ValidAt, r.InvalidAt)
	r.ValidAt, r.InvalidAt, r.ExpiredAt = start, end, expired
	if expired.IsZero() {
		clearStatedEnd(r)
	} else {
		setStatedEnd(r, stated)
	}
	setRestatedStarts(r, restated)
	w.duplicate(c, r, "")
	last := &w.changes[len(w.changes)-1]
	last.Op = kgmem.OpUpdated
	last.Reason = joinReason(fmt.Sprintf("same fact restated with validity %s; period %s merged to %s",
		period(nf.ValidAt, nf.InvalidAt), old, period(start, end)), last.Reason)
	w.changedFact[r.ID] = true
	return true, r
}

// statedEnd is what the statements of f said about its end (zero: open).
// It is InvalidAt unless a later conflicting fact cut f short; then it is
// kept in f's kgmem.StatedEndAttribute (a fact cut before that attribute
// existed counts as open).
func statedEnd(f *kgmem.Fact) time.Time {
	if f.ExpiredAt.IsZero() {
		return f.InvalidAt
	}
	if v, ok := f.Attributes[kgmem.StatedEndAttribute].(string); ok {
		if t, err := time.Parse(time.RFC3339Nano, v); err == nil {
			return t.UTC()
		}
	}
	return time.Time{}
}

// setStatedEnd records f's stated end before a cut overwrites InvalidAt.
func setStatedEnd(f *kgmem.Fact, end time.Time) {
	v := "open"
	if !end.IsZero() {
		v = end.UTC().Format(time.RFC3339Nano)
	}
	attrs := make(map[string]any, len(f.Attributes)+1)
	for k, x := range f.Attributes {
		attrs[k] = x
	}
	attrs[kgmem.StatedEndAttribute] = v
	f.Attributes = attrs
}

// clearStatedEnd drops the attribute once InvalidAt is the stated end again.
func clearStatedEnd(f *kgmem.Fact) {
	if _, ok := f.Attributes[kgmem.StatedEndAttribute]; !ok {
		return
	}
	attrs := make(map[string]any, len(f.Attributes))
	for k, x := range f.Attributes {
		if k != kgmem.StatedEndAttribute {
			attrs[k] = x
		}
	}
	if len(attrs) == 0 {
		attrs = nil
	}
	f.Attributes = attrs
}

// period renders an interval for reasons.
func period(s, e time.Time) string {
	day := func(t time.Time, none string) string {
		if t.IsZero() {
			return none
		}
		return t.UTC().Format(time.RFC3339)
	}
	return "[" + day(s, "?") + ", " + day(e, "open") + ")"
}

// effectiveStart is where a fact sits in a timeline: its valid_at, else when
// it was recorded.
func effectiveStart(f *kgmem.Fact) time.Time {
	if !f.ValidAt.IsZero() {
		return f.ValidAt
	}
	return f.CreatedAt
}

// compareStart orders facts by effective start, then by when they were
// recorded, then by the order this ingest met them.
func (w *work) compareStart(a, b *kgmem.Fact) int {
	if c := effectiveStart(a).Compare(effectiveStart(b)); c != 0 {
		return c
	}
	if c := a.CreatedAt.Compare(b.CreatedAt); c != 0 {
		return c
	}
	return slices.Index(w.factOrder, a.ID) - slices.Index(w.factOrder, b.ID)
}

// exclusion is one set of facts that cannot hold at the same time: the
// facts of one anchor entity in a role group with different values, or the
// opposite predicates between two entities.
type exclusion struct {
	members  []*kgmem.Fact
	conflict func(a, b *kgmem.Fact) bool
	reason   string
}

// exclusions lists the timelines fact f takes part in.
func (w *work) exclusions(f *kgmem.Fact) []exclusion {
	var out []exclusion
	card := w.cards.of(f.Predicate)
	group := w.cards.group(f.Predicate)
	inGroup := func(g *kgmem.Fact) bool {
		return w.cards.group(g.Predicate) == group && w.cards.of(g.Predicate) == card
	}
	// facts of anchor in the group, at the given side(s)
	collect := func(anchor string, subjectSide, objectSide bool) []*kgmem.Fact {
		var ms []*kgmem.Fact
		for _, id := range w.factsOf[anchor] {
			g := w.facts[id]
			if inGroup(g) && (subjectSide && g.SubjectID == anchor || objectSide && g.ObjectID == anchor) {
				ms = append(ms, g)
			}
		}
		return ms
	}
	other := func(g *kgmem.Fact, anchor string) string {
		if g.SubjectID == anchor {
			return g.ObjectID
		}
		return g.SubjectID
	}
	switch card {
	case kgmem.CardinalityOneObject:
		s := f.SubjectID
		out = append(out, exclusion{members: collect(s, true, false),
			conflict: func(a, b *kgmem.Fact) bool { return a.ObjectID != b.ObjectID },
			reason:   fmt.Sprintf("%s holds for one object at a time", f.Predicate)})
	case kgmem.CardinalityOneSubject:
		o := f.ObjectID
		if !w.cards.needsSpecific(f.Predicate) || specificName(w.entities[o].Name) {
			out = append(out, exclusion{members: collect(o, false, true),
				conflict: func(a, b *kgmem.Fact) bool { return a.SubjectID != b.SubjectID },
				reason:   fmt.Sprintf("%s holds for one subject per object at a time (%s)", f.Predicate, w.entities[o].Name)})
		}
	case kgmem.CardinalityOneEach:
		for _, anchor := range []string{f.SubjectID, f.ObjectID} {
			out = append(out, exclusion{members: collect(anchor, true, true),
				conflict: func(a, b *kgmem.Fact) bool { return other(a, anchor) != other(b, anchor) },
				reason:   fmt.Sprintf("%s holds for one partner at a time (%s)", f.Predicate, w.entities[anchor].Name)})
		}
	}
	// p versus not_p, likes versus dislikes, between the same two entities
	var pair []*kgmem.Fact
	hasOpposite := false
	for _, id := range w.factsOf[f.SubjectID] {
		g := w.facts[id]
		if g.SubjectID == f.SubjectID && g.ObjectID == f.ObjectID && (g.Predicate == f.Predicate || opposite(g.Predicate, f.Predicate)) {
			pair = append(pair, g)
			hasOpposite = hasOpposite || opposite(g.Predicate, f.Predicate)
		}
	}
	if hasOpposite {
		out = append(out, exclusion{members: pair,
			conflict: func(a, b *kgmem.Fact) bool { return opposite(a.Predicate, b.Predicate) },
			reason:   "contradicts " + f.Predicate})
	}
	return out
}

// excluder reports, for stored facts g, whether g is in one of nf's
// timelines and conflicts with it (the timelines are computed once).
func (w *work) excluder(nf *kgmem.Fact) func(g *kgmem.Fact) bool {
	type member struct {
		set      map[*kgmem.Fact]bool
		conflict func(a, b *kgmem.Fact) bool
	}
	var ms []member
	for _, ex := range w.exclusions(nf) {
		set := make(map[*kgmem.Fact]bool, len(ex.members))
		for _, m := range ex.members {
			set[m] = true
		}
		ms = append(ms, member{set, ex.conflict})
	}
	return func(g *kgmem.Fact) bool {
		for _, m := range ms {
			if m.set[g] && m.conflict(nf, g) {
				return true
			}
		}
		return false
	}
}

// reconcile re-derives the ends of every timeline f takes part in: each
// fact ends where the next conflicting fact starts, when that comes before
// its own end. It only ever moves ends earlier, so applying it after every
// statement gives the same result in any order.
func (w *work) reconcile(f *kgmem.Fact) {
	// A cut can free restated starts into a new period, which can cut
	// again: repeat until nothing changes (each round adds a record, and
	// there are finitely many restated starts).
	for {
		spawned := w.spawnRestated(f)
		for _, ex := range w.exclusions(f) {
			ms := slices.Clone(ex.members)
			slices.SortStableFunc(ms, w.compareStart)
			for i, a := range ms {
				var next *kgmem.Fact
				for _, b := range ms[i+1:] {
					if ex.conflict(a, b) {
						next = b
						break
					}
				}
				if next != nil {
					w.cut(f, a, next, ex.reason)
				}
				if w.spawnRestated(a) {
					spawned = true
				}
			}
		}
		if !spawned {
			return
		}
	}
}

// cut ends a where its conflicting successor next starts, when that is
// before a's own end; f is the fact being decided.
func (w *work) cut(f, a, next *kgmem.Fact, reason string) {
	cut := effectiveStart(next)
	if !a.InvalidAt.IsZero() && !cut.Before(a.InvalidAt) {
		return // its own end comes first: it ended
	}
	if w.req.Policy.DisableInvalidations && !w.addedNow[a.ID] {
		return
	}
	if !a.ValidAt.IsZero() && cut.Before(a.ValidAt) {
		cut = a.ValidAt
	}
	if a.ExpiredAt.IsZero() {
		setStatedEnd(a, a.InvalidAt)
		a.ExpiredAt = w.now
	}
	a.InvalidAt = cut
	w.changedFact[a.ID] = true
	if a == f {
		reason = joinReason(reason, "older than a known fact that replaced it; stored as history")
	}
	w.changes = append(w.changes, kgmem.FactChange{Op: kgmem.OpInvalidated, Fact: *a, SupersededBy: next.ID, Reason: reason})
}

// spawnRestated splits off a new period when a ended (cut short, or closed
// by a restatement) before starts its statements restated: "in Paris since
// 2020" and "since 2024" were one period until "in Berlin since 2022"
// arrived; then Paris since 2024 is a period of its own, as if the
// statements had arrived in time order.
func (w *work) spawnRestated(a *kgmem.Fact) bool {
	starts := restatedStarts(a)
	if a.InvalidAt.IsZero() || len(starts) == 0 {
		return false
	}
	var keep, later []time.Time
	for _, s := range starts {
		if s.Before(a.InvalidAt) {
			keep = append(keep, s)
		} else {
			later = append(later, s)
		}
	}
	if len(later) == 0 {
		return false
	}
	setRestatedStarts(a, keep)
	w.changedFact[a.ID] = true
	// The new period runs to what a's statements said about the end, or is
	// open when that end came before it (it was an open statement).
	stated := statedEnd(a)
	if !stated.IsZero() && !stated.After(later[0]) {
		stated = time.Time{}
	}
	g := *a
	g.ID = kgmem.NewID("fact")
	g.ValidAt, g.InvalidAt, g.ExpiredAt, g.CreatedAt = later[0], stated, time.Time{}, w.now
	g.Episodes = slices.Clone(a.Episodes)
	g.Attributes = nil
	for k, v := range a.Attributes {
		if !strings.HasPrefix(k, kgmem.ReservedAttributePrefix) {
			if g.Attributes == nil {
				g.Attributes = map[string]any{}
			}
			g.Attributes[k] = v
		}
	}
	setRestatedStarts(&g, later[1:])
	w.registerFact(&g, true)
	w.addedNow[g.ID] = true
	w.changes = append(w.changes, kgmem.FactChange{Op: kgmem.OpAdded, Fact: g,
		Reason: "a restated period of " + a.ID + ", which ended before it"})
	return true
}

// restatedStartsAttribute keeps the starts of statements merged into a
// period after its own start, so a conflicting fact that later cuts the
// period short can split them off (spawnRestated).
const restatedStartsAttribute = kgmem.ReservedAttributePrefix + "restated_starts"

func restatedStarts(f *kgmem.Fact) []time.Time {
	raw, _ := f.Attributes[restatedStartsAttribute].([]any)
	var out []time.Time
	for _, v := range raw {
		if s, ok := v.(string); ok {
			if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
				out = append(out, t.UTC())
			}
		}
	}
	if ss, ok := f.Attributes[restatedStartsAttribute].([]string); ok {
		for _, s := range ss {
			if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
				out = append(out, t.UTC())
			}
		}
	}
	slices.SortFunc(out, time.Time.Compare)
	return slices.CompactFunc(out, time.Time.Equal)
}

func setRestatedStarts(f *kgmem.Fact, ts []time.Time) {
	attrs := make(map[string]any, len(f.Attributes)+1)
	for k, x := range f.Attributes {
		attrs[k] = x
	}
	delete(attrs, restatedStartsAttribute)
	if len(ts) > 0 {
		slices.SortFunc(ts, time.Time.Compare)
		vs := make([]any, 0, len(ts))
		for _, t := range slices.CompactFunc(ts, time.Time.Equal) {
			vs = append(vs, t.UTC().Format(time.RFC3339Nano))
		}
		attrs[restatedStartsAttribute] = vs
	}
	if len(attrs) == 0 {
		attrs = nil
	}
	f.Attributes = attrs
}
