package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"slices"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/internal/nscache"
)

// Bounds of the entity-name cache: the names (entity_names rows) it holds
// over all namespaces, about 100 bytes each (and 40 more per entity for the
// name and type facts show), and the size above which a stale view is read
// again in the background (nscache).
const (
	entityNamesBudget       = 2_000_000
	entityNamesRefreshAbove = 50_000
)

// entityNames is one namespace's entity_names in memory: the ids of the
// entities each normalized name or alias belongs to. It answers entity
// linking's question (which entities does a run of the query's words name?)
// without a statement for the many runs that name nothing. It is read-only
// once built: a write of entities makes the next search read it again
// (advanceViews), like the topology after a write of facts.
type entityNames struct {
	// ids are the entities with a name row, sorted: they exist.
	ids []string
	// byNorm holds, for each normalized name or alias, its entities as
	// indexes into ids (an index takes a quarter of a string header).
	byNorm map[string][]int32
	// shown holds each entity's name and type as stored, in the order of
	// ids: what a fact shows of its ends (Facts), without joining the
	// entities table for every fact loaded.
	shown []shownEntity
}

// shownEntity is what a fact shows of one of its ends; read is false for
// an id with a name row but no entity row (read between the two), which
// show does not vouch for.
type shownEntity struct {
	name, typ string
	read      bool
}

// entityNamesOf returns the current entity names of ns, reading them when
// the cached view is missing or was read at another graph version, or ok
// false when ns holds too many to cache.
func (s *Store) entityNamesOf(ctx context.Context, ns kgmem.Namespace) (*entityNames, bool, error) {
	v, err := s.versionsOf(ctx, ns)
	if err != nil {
		return nil, false, err
	}
	return s.names.Get(ctx, string(ns), v.graph, func(ctx context.Context) (nscache.Loaded[*entityNames], error) {
		return readView(ctx, s, ns, "entity_names", entityNamesBudget, func(q querier) (*entityNames, int, error) {
			type row struct{ norm, id string }
			rows, err := collect(ctx, q, func(r *sql.Rows) (row, error) {
				var x row
				return x, r.Scan(&x.norm, &x.id)
			}, `SELECT norm, entity_id FROM entity_names WHERE namespace = ?`, ns)
			if err != nil {
				return nil, 0, fmt.Errorf("read entity names: %w", err)
			}
			n := &entityNames{byNorm: make(map[string][]int32, len(rows))}
			for _, r := range rows {
				n.ids = append(n.ids, r.id)
			}
			slices.Sort(n.ids)
			n.ids = slices.Clip(slices.Compact(n.ids))
			for _, r := range rows {
				i, _ := slices.BinarySearch(n.ids, r.id)
				n.byNorm[r.norm] = append(n.byNorm[r.norm], int32(i))
			}
			if n.shown, err = readShown(ctx, q, ns, n.ids); err != nil {
				return nil, 0, err
			}
			return n, len(rows), nil
		})
	})
}

// entityRow is what a fact shows of an entity, as stored, with its id.
type entityRow struct{ id, name, typ string }

// readEntityRows reads the id, name and type of every entity of ns, in id
// order.
func readEntityRows(ctx context.Context, q querier, ns kgmem.Namespace) ([]entityRow, error) {
	rows, err := collect(ctx, q, func(r *sql.Rows) (entityRow, error) {
		var x entityRow
		return x, r.Scan(&x.id, &x.name, &x.typ)
	}, `SELECT id, name, type FROM entities WHERE namespace = ? ORDER BY id`, ns)
	if err != nil {
		return nil, fmt.Errorf("read entity names shown: %w", err)
	}
	return rows, nil
}

// readShown reads the name and type of each entity of ids (sorted) in ns, in
// the order of ids, in one pass over the namespace's entities in id order.
// Types repeat: one copy of each is kept.
func readShown(ctx context.Context, q querier, ns kgmem.Namespace, ids []string) ([]shownEntity, error) {
	rows, err := readEntityRows(ctx, q, ns)
	if err != nil {
		return nil, err
	}
	types := map[string]string{}
	shown := make([]shownEntity, len(ids))
	j := 0
	for i, id := range ids {
		for j < len(rows) && rows[j].id < id {
			j++
		}
		if j < len(rows) && rows[j].id == id {
			typ, ok := types[rows[j].typ]
			if !ok {
				typ = rows[j].typ
				types[typ] = typ
			}
			shown[i] = shownEntity{name: rows[j].name, typ: typ, read: true}
		}
	}
	return shown, nil
}

// show fills the names and types of f's ends, and reports whether it knew
// both: an entity without a name row, or whose entity row the view did not
// find, is not held, and the caller reads the fact with them from the file.
func (n *entityNames) show(f *kgmem.Fact) bool {
	s, sok := slices.BinarySearch(n.ids, f.SubjectID)
	o, ook := slices.BinarySearch(n.ids, f.ObjectID)
	if !sok || !ook || !n.shown[s].read || !n.shown[o].read {
		return false
	}
	f.SubjectName, f.SubjectType = n.shown[s].name, n.shown[s].typ
	f.ObjectName, f.ObjectType = n.shown[o].name, n.shown[o].typ
	return true
}

// named returns the ids, sorted and unique, of the entities with one of
// the normalized names keys.
func (n *entityNames) named(keys []string) []string {
	var ids []string
	for _, k := range keys {
		for _, i := range n.byNorm[k] {
			ids = append(ids, n.ids[i])
		}
	}
	slices.Sort(ids)
	return slices.Compact(ids)
}

// existing returns the entities among ids, in the order of ids, with their
// ids only, and those it cannot vouch for, which the caller looks up (an
// entity's name has a letter or digit, so each has a name row; a file
// written otherwise is still answered right).
func (n *entityNames) existing(ids []string) (found []kgmem.Entity, unknown []string) {
	for _, id := range ids {
		if _, ok := slices.BinarySearch(n.ids, id); ok {
			found = append(found, kgmem.Entity{ID: id})
		} else {
			unknown = append(unknown, id)
		}
	}
	return found, unknown
}
