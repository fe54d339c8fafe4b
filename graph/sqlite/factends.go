package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/internal/nscache"
)

// Bounds of the fact-ends cache: the facts and entities it holds over all
// namespaces (a fact is its id, ends, predicate and rowid; an entity its
// name and type), and the size above which a stale view is read again in
// the background (nscache).
const (
	factEndsBudget       = 400_000
	factEndsRefreshAbove = 50_000
)

// endsDeltaAtLeast is the least size (facts and entities) at which a
// fact-ends view's delta layer is merged into its base: past a quarter of
// the base, or this, each write's copy of the delta would cost more than an
// occasional merge.
const endsDeltaAtLeast = 1024

// factEnds is one namespace's facts reduced to what ListFacts filters on
// (their ends, predicate and whether they are expired, with their rowids),
// and the name and type of each entity. ListFacts of an entity finds the
// matching facts' rowids here and reads only those rows, with the ends'
// names and types from here: integration asks it for the facts of an
// entity pair or of an entity and predicate some fifty thousand times per
// twenty thousand messages, a third of them with no answer, and the indexed
// statements with two joins per row were a fifth of the scripted-LLM
// import's CPU (bench/README.md).
//
// The view is kept current by the writer (advanceViews): a change set's
// facts and entities go into a small delta layer over an immutable base,
// merged into a new base when the delta outgrows a quarter of it, so that a
// write costs what it changed, not the namespace. Facts leave the view only
// through writes that raise the namespace's version without advancing it
// (DeleteFact, PurgeNamespace), after which the next read builds it again.
// A factEnds is never changed once built: with returns a new one.
type factEnds struct {
	base, delta *endsLayer
}

// endsLayer is one layer of a factEnds: a fact or entity in the delta
// layer replaces the base's.
type endsLayer struct {
	facts map[string]factEnd // by fact id
	// byEntity lists, for an entity id, the facts with it at an end that
	// this layer holds, each once; a fact whose ends a newer layer changed
	// stays listed under its old ends, and lookups check the ends.
	byEntity map[string][]string
	shown    map[string]shownEntity // by entity id
}

// factEnd is what the view keeps of one fact.
type factEnd struct {
	rid                        int64
	subject, predicate, object string
	expired                    bool
}

// newEndsLayer returns an empty layer with room for n facts.
func newEndsLayer(n int) *endsLayer {
	return &endsLayer{facts: make(map[string]factEnd, n), byEntity: map[string][]string{}, shown: map[string]shownEntity{}}
}

// putFact records f (id) in the layer, listed under both its ends.
func (l *endsLayer) putFact(id string, f factEnd) {
	l.facts[id] = f
	l.list(f.subject, id)
	if f.object != f.subject {
		l.list(f.object, id)
	}
}

// list adds id to the facts listed under entity, unless it is there.
func (l *endsLayer) list(entity, id string) {
	if !slices.Contains(l.byEntity[entity], id) {
		l.byEntity[entity] = append(l.byEntity[entity], id)
	}
}

// size is the view's size in the cache's units: facts and entities held.
func (v *factEnds) size() int {
	return len(v.base.facts) + len(v.base.shown) + len(v.delta.facts) + len(v.delta.shown)
}

// fact returns the current ends of fact id.
func (v *factEnds) fact(id string) (factEnd, bool) {
	if f, ok := v.delta.facts[id]; ok {
		return f, true
	}
	f, ok := v.base.facts[id]
	return f, ok
}

// entity returns the name and type of entity id.
func (v *factEnds) entity(id string) (shownEntity, bool) {
	if e, ok := v.delta.shown[id]; ok {
		return e, true
	}
	e, ok := v.base.shown[id]
	return e, ok
}

// with returns the view with the facts and entities cs wrote (rids holding
// each written fact's rowid), or ok false when a fact's rowid is missing.
func (v *factEnds) with(cs kgmem.ChangeSet, rids map[string]int64) (next *factEnds, ok bool) {
	if len(cs.Facts) == 0 && len(cs.Entities) == 0 {
		return v, true
	}
	delta := &endsLayer{facts: maps.Clone(v.delta.facts), byEntity: maps.Clone(v.delta.byEntity), shown: maps.Clone(v.delta.shown)}
	for _, e := range cs.Entities {
		delta.shown[e.ID] = shownEntity{name: e.Name, typ: e.Type, read: true}
	}
	// The lists are shared with v: clipped, each is copied by its first
	// append instead of appended to in place.
	for _, f := range cs.Facts {
		for _, end := range []string{f.SubjectID, f.ObjectID} {
			delta.byEntity[end] = slices.Clip(delta.byEntity[end])
		}
	}
	for _, f := range cs.Facts {
		rid, found := rids[f.ID]
		if !found {
			return nil, false
		}
		delta.putFact(f.ID, factEnd{rid: rid, subject: f.SubjectID, predicate: f.Predicate, object: f.ObjectID, expired: !f.ExpiredAt.IsZero()})
	}
	next = &factEnds{base: v.base, delta: delta}
	if len(delta.facts)+len(delta.shown) > max(endsDeltaAtLeast, (len(v.base.facts)+len(v.base.shown))/4) {
		next = next.merged()
	}
	return next, true
}

// merged returns the view as one base layer and an empty delta.
func (v *factEnds) merged() *factEnds {
	base := newEndsLayer(len(v.base.facts) + len(v.delta.facts))
	maps.Copy(base.shown, v.base.shown)
	maps.Copy(base.shown, v.delta.shown)
	for id, f := range v.base.facts {
		if _, replaced := v.delta.facts[id]; !replaced {
			base.putFact(id, f)
		}
	}
	for id, f := range v.delta.facts {
		base.putFact(id, f)
	}
	return &factEnds{base: base, delta: newEndsLayer(0)}
}

// matching returns the facts f asks for (f.EntityID set) with their ends,
// in id order, at most limit.
func (v *factEnds) matching(f kgmem.FactFilter, limit int) []endsMatch {
	var found []endsMatch
	for _, l := range []*endsLayer{v.delta, v.base} {
		for _, id := range l.byEntity[f.EntityID] {
			if id <= f.After {
				continue
			}
			if fe, ok := v.fact(id); ok && matches(fe, f) {
				found = append(found, endsMatch{id: id, ends: fe})
			}
		}
	}
	// A fact both layers list under the entity was found twice.
	slices.SortFunc(found, func(a, b endsMatch) int { return strings.Compare(a.id, b.id) })
	found = slices.CompactFunc(found, func(a, b endsMatch) bool { return a.id == b.id })
	return found[:min(limit, len(found))]
}

// endsMatch is a fact matching a filter, and its ends.
type endsMatch struct {
	id   string
	ends factEnd
}

// matches reports whether a fact with ends fe passes f (f.EntityID set;
// the page's After is checked by the caller).
func matches(fe factEnd, f kgmem.FactFilter) bool {
	switch {
	case fe.subject != f.EntityID && fe.object != f.EntityID:
		return false
	case f.OtherID != "" && !(fe.subject == f.EntityID && fe.object == f.OtherID || fe.subject == f.OtherID && fe.object == f.EntityID):
		return false
	case f.Predicate != "" && fe.predicate != f.Predicate:
		return false
	}
	return f.IncludeExpired || !fe.expired
}

// factEndsOf returns the current fact-ends view of ns, reading it when the
// cached one is missing or was read at another graph version, or ok false
// when ns holds too many facts and entities to cache.
func (s *Store) factEndsOf(ctx context.Context, ns kgmem.Namespace) (*factEnds, bool, error) {
	v, err := s.versionsOf(ctx, ns)
	if err != nil {
		return nil, false, err
	}
	return s.ends.Get(ctx, string(ns), v.graph, func(ctx context.Context) (nscache.Loaded[*factEnds], error) {
		return readView(ctx, s, ns, "facts", factEndsBudget, func(q querier) (*factEnds, int, error) {
			type row struct {
				id string
				fe factEnd
			}
			rows, err := collect(ctx, q, func(r *sql.Rows) (row, error) {
				var x row
				return x, r.Scan(&x.fe.rid, &x.id, &x.fe.subject, &x.fe.predicate, &x.fe.object, &x.fe.expired)
			}, `SELECT rid, id, subject_id, predicate, object_id, expired_at IS NOT NULL FROM facts WHERE namespace = ?`, ns)
			if err != nil {
				return nil, 0, fmt.Errorf("read fact ends: %w", err)
			}
			type entityRow struct{ id, name, typ string }
			entities, err := collect(ctx, q, func(r *sql.Rows) (entityRow, error) {
				var x entityRow
				return x, r.Scan(&x.id, &x.name, &x.typ)
			}, `SELECT id, name, type FROM entities WHERE namespace = ?`, ns)
			if err != nil {
				return nil, 0, fmt.Errorf("read entity names shown: %w", err)
			}
			base := newEndsLayer(len(rows))
			for _, e := range entities {
				base.shown[e.id] = shownEntity{name: e.name, typ: e.typ, read: true}
			}
			for _, r := range rows {
				base.putFact(r.id, r.fe)
			}
			v := &factEnds{base: base, delta: newEndsLayer(0)}
			return v, v.size(), nil
		})
	})
}

// listFactsOfEntity is ListFacts for a filter with an entity (f.EntityID
// set) answered from the namespace's fact-ends view: the matching facts'
// rows are read by rowid, and their ends' names and types come from the
// view. ok is false, and the caller runs the indexed statements, when the
// view is not held or a row read disagrees with it.
func (s *Store) listFactsOfEntity(ctx context.Context, ns kgmem.Namespace, f kgmem.FactFilter, limit int) (fs []kgmem.Fact, ok bool, err error) {
	view, ok, err := s.factEndsOf(ctx, ns)
	if err != nil || !ok {
		return nil, false, err
	}
	found := view.matching(f, limit)
	if len(found) == 0 {
		return nil, true, nil
	}
	rids := make([]int64, len(found))
	for i, m := range found {
		rids[i] = m.ends.rid
	}
	args := padded(rids)
	rows, err := collect(ctx, s.cached(s.r), scanFactAlone,
		factAloneSelect+` WHERE f.rid IN (`+placeholders(len(args))+`) AND +f.namespace = ?`, append(args, ns)...)
	if err != nil {
		return nil, false, err
	}
	at := make(map[string]int, len(rows))
	for i, r := range rows {
		at[r.ID] = i
	}
	fs = make([]kgmem.Fact, 0, len(found))
	for _, m := range found {
		j, read := at[m.id]
		if !read {
			return nil, false, nil // deleted since the view was read
		}
		fact := rows[j]
		subject, sok := view.entity(fact.SubjectID)
		object, ook := view.entity(fact.ObjectID)
		if !sok || !ook || fact.SubjectID != m.ends.subject || fact.ObjectID != m.ends.object ||
			fact.Predicate != m.ends.predicate || fact.ExpiredAt.IsZero() == m.ends.expired {
			return nil, false, nil // written since the view was read
		}
		fact.SubjectName, fact.SubjectType = subject.name, subject.typ
		fact.ObjectName, fact.ObjectType = object.name, object.typ
		fs = append(fs, fact)
	}
	return fs, true, nil
}
