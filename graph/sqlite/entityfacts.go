package sqlite

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"unsafe"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/internal/nscache"
)

// Bounds of the entity-facts cache: the bytes it holds over all namespaces
// (as factBytes and entityBytes estimate them: a fact restated in many
// episodes weighs its list), the facts a namespace may have to be read into
// it at all, and the size above which a stale view is read again in the
// background (nscache).
const (
	entityFactsBudget       = 128 << 20
	entityFactsMaxFacts     = 250_000
	entityFactsRefreshAbove = 16 << 20
)

// factLayerDeltaAtLeast is the least number of facts and entities at which
// an entity-facts view's delta layer is merged into its base: past a
// quarter of the base, or this, each write's copy of the delta would cost
// more than an occasional merge.
const factLayerDeltaAtLeast = 1024

// Estimated bytes of a fact and of an entity in the view besides their
// strings: the fact's struct, its entry in the layer's map and under its two
// ends; the entity's shown struct and map entry.
const (
	listEntryBytes      = 16 // a string header in a list
	mapEntryBytes       = 32 // a string key, a word of value, the map's own
	factOverheadBytes   = int(unsafe.Sizeof(kgmem.Fact{})) + mapEntryBytes + 2*listEntryBytes
	entityOverheadBytes = int(unsafe.Sizeof(shownEntity{})) + mapEntryBytes
	attributeBytes      = 64 // a decoded attribute, key and value
)

// factBytes estimates what fact f holds in a view.
func factBytes(f *kgmem.Fact) int {
	n := factOverheadBytes + len(f.ID) + len(f.SubjectID) + len(f.Predicate) + len(f.ObjectID) + len(f.Text) +
		len(f.Attributes)*attributeBytes
	for _, e := range f.Episodes {
		n += listEntryBytes + len(e)
	}
	return n
}

// entityBytes estimates what entity id, shown as e, holds in a view.
func entityBytes(id string, e shownEntity) int {
	return entityOverheadBytes + len(id) + len(e.name) + len(e.typ)
}

// entityFacts is one namespace's facts as stored, listed by the entities at
// their ends, and each entity's name and type: ListFacts of an entity
// answered from memory. Integration asks for the facts of an entity pair or
// of an entity and predicate for every triple, most of which find a few
// facts or none, and statements with two joins per row were a large share
// of an extracting import's CPU.
//
// The view is kept current by the writer: a change set's facts and
// entities go into a small delta layer over an immutable base (advanceViews),
// merged into a new base when the delta outgrows a quarter of it, so that a
// write costs what it changed, not the namespace; SetDecay raises the
// namespace's version when it changes facts and gives the view their new
// decay state (advanceDecayed). Facts leave the view only through writes that
// raise the version without advancing it (DeleteFact, PurgeNamespace),
// after which the next read builds it again. An entityFacts is never
// changed once built: with and withDecay return new ones, and what
// ListFacts returns is copied out of it.
type entityFacts struct {
	base, delta *factLayer
}

// factLayer is one layer of an entityFacts: a fact or entity in the delta
// layer replaces the base's.
type factLayer struct {
	facts map[string]*kgmem.Fact // by id, as stored, without the ends' names
	// byEntity lists, for an entity id, the facts with it at an end that
	// this layer holds, each once; a fact whose ends a newer layer changed
	// stays listed under its old ends, and lookups check the ends.
	byEntity map[string][]string
	shown    map[string]shownEntity // by entity id
	// bytes estimates what the layer holds (factBytes, entityBytes).
	bytes int
}

// newFactLayer returns an empty layer with room for n facts.
func newFactLayer(n int) *factLayer {
	return &factLayer{facts: make(map[string]*kgmem.Fact, n), byEntity: map[string][]string{}, shown: map[string]shownEntity{}}
}

// clone returns a copy of l whose maps can be written; the lists stay
// shared, clipped, so that an append copies them.
func (l *factLayer) clone() *factLayer {
	c := &factLayer{facts: maps.Clone(l.facts), byEntity: maps.Clone(l.byEntity), shown: maps.Clone(l.shown), bytes: l.bytes}
	for id, ids := range c.byEntity {
		c.byEntity[id] = slices.Clip(ids)
	}
	return c
}

// putFact records f in the layer, listed under both its ends.
func (l *factLayer) putFact(f *kgmem.Fact) {
	old, had := l.facts[f.ID]
	if had {
		l.bytes -= factBytes(old)
	}
	l.bytes += factBytes(f)
	l.facts[f.ID] = f
	for i, end := range []string{f.SubjectID, f.ObjectID} {
		if i == 1 && end == f.SubjectID {
			break // a fact from an entity to itself is listed once
		}
		// Only a fact the layer had can be listed already (a hub's list
		// is not searched for each of its facts).
		if !had || !slices.Contains(l.byEntity[end], f.ID) {
			l.byEntity[end] = append(l.byEntity[end], f.ID)
		}
	}
}

// sortLists puts every list of the layer in id order, for a base layer
// (matching stops early in its lists).
func (l *factLayer) sortLists() {
	for _, ids := range l.byEntity {
		slices.Sort(ids)
	}
}

// putEntity records entity id, shown as e, in the layer.
func (l *factLayer) putEntity(id string, e shownEntity) {
	if old, ok := l.shown[id]; ok {
		l.bytes -= entityBytes(id, old)
	}
	l.bytes += entityBytes(id, e)
	l.shown[id] = e
}

// size is the view's size in the cache's units, bytes as estimated: a fact
// or entity the delta replaces counts in both layers.
func (v *entityFacts) size() int { return v.base.bytes + v.delta.bytes }

// fact returns fact id as stored.
func (v *entityFacts) fact(id string) (*kgmem.Fact, bool) {
	if f, ok := v.delta.facts[id]; ok {
		return f, true
	}
	f, ok := v.base.facts[id]
	return f, ok
}

// entity returns the name and type of entity id.
func (v *entityFacts) entity(id string) (shownEntity, bool) {
	if e, ok := v.delta.shown[id]; ok {
		return e, true
	}
	e, ok := v.base.shown[id]
	return e, ok
}

// with returns the view with the facts and entities cs wrote, as reading
// them back would give them.
func (v *entityFacts) with(cs kgmem.ChangeSet) (*entityFacts, error) {
	if len(cs.Facts) == 0 && len(cs.Entities) == 0 {
		return v, nil
	}
	delta := v.delta.clone()
	for _, e := range cs.Entities {
		delta.putEntity(e.ID, shownEntity{name: e.Name, typ: e.Type, read: true})
	}
	for _, f := range cs.Facts {
		stored, err := factAsStored(f)
		if err != nil {
			return nil, err
		}
		delta.putFact(&stored)
	}
	return v.withDelta(delta), nil
}

// withDecay returns the view with the decay state of the facts among
// updates replaced, as reading them back would give it.
func (v *entityFacts) withDecay(updates []kgmem.DecayUpdate) *entityFacts {
	delta := v.delta.clone()
	for _, u := range updates {
		if u.Kind != kgmem.KindFact {
			continue
		}
		if f, ok := v.fact(u.ID); ok {
			next := *f
			next.Decay = storedDecay(u.State)
			delta.putFact(&next)
		}
	}
	return v.withDelta(delta)
}

// withDelta returns the view of v's base and delta, merged into a new base
// when the delta outgrows its bound.
func (v *entityFacts) withDelta(delta *factLayer) *entityFacts {
	next := &entityFacts{base: v.base, delta: delta}
	if len(delta.facts)+len(delta.shown) > max(factLayerDeltaAtLeast, (len(v.base.facts)+len(v.base.shown))/4) {
		return next.merged()
	}
	return next
}

// merged returns the view as one base layer and an empty delta.
func (v *entityFacts) merged() *entityFacts {
	base := newFactLayer(len(v.base.facts) + len(v.delta.facts))
	for _, l := range []*factLayer{v.base, v.delta} {
		for id, e := range l.shown {
			base.putEntity(id, e)
		}
	}
	for id, f := range v.base.facts {
		if _, replaced := v.delta.facts[id]; !replaced {
			base.putFact(f)
		}
	}
	for _, f := range v.delta.facts {
		base.putFact(f)
	}
	base.sortLists()
	return &entityFacts{base: base, delta: newFactLayer(0)}
}

// matching returns the facts f asks for (f.EntityID set), as stored, in id
// order, at most limit. The facts between two entities are looked for
// among those of the one with fewer. The base's lists are in id order, so
// its walk stops at the limit: the first limit matches of the base and
// every match of the small delta hold the first limit of all.
func (v *entityFacts) matching(f kgmem.FactFilter, limit int) []*kgmem.Fact {
	end := f.EntityID
	if f.OtherID != "" && v.listed(f.OtherID) < v.listed(end) {
		end = f.OtherID
	}
	var found []*kgmem.Fact
	for _, id := range v.delta.byEntity[end] {
		if fact, ok := v.fact(id); ok && id > f.After && matches(fact, f) {
			found = append(found, fact)
		}
	}
	ids := v.base.byEntity[end]
	from, _ := slices.BinarySearch(ids, f.After)
	fromBase := 0
	for _, id := range ids[from:] {
		if fromBase == limit {
			break
		}
		if fact, ok := v.fact(id); ok && id > f.After && matches(fact, f) {
			found = append(found, fact)
			fromBase++
		}
	}
	// A fact both layers list under the entity was found twice.
	slices.SortFunc(found, func(a, b *kgmem.Fact) int { return strings.Compare(a.ID, b.ID) })
	found = slices.CompactFunc(found, func(a, b *kgmem.Fact) bool { return a.ID == b.ID })
	return found[:min(limit, len(found))]
}

// listed returns how many facts the view lists under entity id, counting
// a fact both layers list twice.
func (v *entityFacts) listed(id string) int {
	return len(v.delta.byEntity[id]) + len(v.base.byEntity[id])
}

// matches reports whether fact passes f (f.EntityID set; the page's After
// is checked by the caller).
func matches(fact *kgmem.Fact, f kgmem.FactFilter) bool {
	s, o := fact.SubjectID, fact.ObjectID
	switch {
	case s != f.EntityID && o != f.EntityID:
		return false
	case f.OtherID != "" && !(s == f.EntityID && o == f.OtherID || s == f.OtherID && o == f.EntityID):
		return false
	case f.Predicate != "" && fact.Predicate != f.Predicate:
		return false
	}
	return f.IncludeExpired || fact.ExpiredAt.IsZero()
}

// factAsStored is f as reading it back from the file gives it, without
// its ends' names and types (the entities' rows hold them).
func factAsStored(f kgmem.Fact) (kgmem.Fact, error) {
	attrs, err := jsonMap("attributes", f.Attributes)
	if err != nil {
		return f, err
	}
	if f.Attributes, err = storedMap(attrs); err != nil {
		return f, err
	}
	if f.Episodes, err = fromJSONList(jsonList(f.Episodes)); err != nil {
		return f, err
	}
	f.SubjectName, f.ObjectName, f.SubjectType, f.ObjectType = "", "", "", ""
	f.ValidAt, f.InvalidAt, f.CreatedAt, f.ExpiredAt = storedTime(f.ValidAt), storedTime(f.InvalidAt), storedTime(f.CreatedAt), storedTime(f.ExpiredAt)
	f.Decay = storedDecay(f.Decay)
	return f, nil
}

// entityFactsOf returns the current entity-facts view of ns, reading it
// when the cached one is missing or was read at another graph version, or
// ok false when ns holds too many facts and entities to cache.
func (s *Store) entityFactsOf(ctx context.Context, ns kgmem.Namespace) (*entityFacts, bool, error) {
	v, err := s.versionsOf(ctx, ns)
	if err != nil {
		return nil, false, err
	}
	return s.entityFacts.Get(ctx, string(ns), v.graph, func(ctx context.Context) (nscache.Loaded[*entityFacts], error) {
		return readView(ctx, s, ns, "facts", entityFactsMaxFacts, func(q querier) (*entityFacts, int, error) {
			facts, err := collect(ctx, q, scanFactAlone, factAloneSelect+` WHERE f.namespace = ?`, ns)
			if err != nil {
				return nil, 0, fmt.Errorf("read facts: %w", err)
			}
			entities, err := readEntityRows(ctx, q, ns)
			if err != nil {
				return nil, 0, err
			}
			base := newFactLayer(len(facts))
			for _, e := range entities {
				base.putEntity(e.id, shownEntity{name: e.name, typ: e.typ, read: true})
			}
			for i := range facts {
				base.putFact(&facts[i])
			}
			base.sortLists()
			v := &entityFacts{base: base, delta: newFactLayer(0)}
			return v, v.size(), nil
		})
	})
}

// advanceEntityFacts moves the entity-facts view of ns cached at version
// from to version to by next, or leaves it to be read again when next
// fails.
func (s *Store) advanceEntityFacts(ns kgmem.Namespace, from, to int64, next func(*entityFacts) (*entityFacts, error)) {
	s.entityFacts.Advance(string(ns), from, to, func(v *entityFacts, _ int) (*entityFacts, int) {
		n, err := next(v)
		if err != nil {
			return v, entityFactsBudget + 1 // declined: the next read builds the view again
		}
		return n, n.size()
	})
}

// listFactsOfEntity is ListFacts for a filter with an entity (f.EntityID
// set) answered from the namespace's entity-facts view, or ok false, and
// the caller runs the indexed statements, when the view is not held or
// lacks an end's entity.
func (s *Store) listFactsOfEntity(ctx context.Context, ns kgmem.Namespace, f kgmem.FactFilter, limit int) (fs []kgmem.Fact, ok bool, err error) {
	view, ok, err := s.entityFactsOf(ctx, ns)
	if err != nil || !ok {
		return nil, false, err
	}
	found := view.matching(f, limit)
	if len(found) == 0 {
		return nil, true, nil
	}
	fs = make([]kgmem.Fact, len(found))
	for i, stored := range found {
		subject, sok := view.entity(stored.SubjectID)
		object, ook := view.entity(stored.ObjectID)
		if !sok || !ook {
			return nil, false, nil
		}
		fact := *stored
		fact.Episodes = slices.Clone(stored.Episodes)
		if stored.Attributes != nil {
			fact.Attributes = cloneJSONMap(stored.Attributes)
		}
		fact.SubjectName, fact.SubjectType = subject.name, subject.typ
		fact.ObjectName, fact.ObjectType = object.name, object.typ
		fs[i] = fact
	}
	return fs, true, nil
}
