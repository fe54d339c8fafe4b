package kgmem

import (
	"cmp"
	"context"
	"fmt"
	"slices"
)

// NeighborhoodSteps are the two reads a graph store provides to
// WalkNeighborhood, both within one consistent snapshot of a namespace.
type NeighborhoodSteps struct {
	// Entities returns the entities with the given ids, in the order of ids,
	// leaving out unknown ids.
	Entities func(ctx context.Context, ids []string) ([]Entity, error)
	// Expand appends to dst, for every entity of frontier (sorted, distinct),
	// at most the fan-out's worth of its facts in either direction, most
	// important first, then by id, and returns the extended slice (facts are
	// large: the walk keeps them where Expand put them). A fact reached from
	// two entities may come twice.
	Expand func(ctx context.Context, frontier []string, dst []Fact) ([]Fact, error)
}

// WalkNeighborhood is the breadth-first walk behind GraphStore.Neighborhood,
// shared by the stores: from the seeds of q that exist, each level's whole
// frontier is expanded in one step, the facts are kept once, and each fact's
// ends not seen before are reached one hop further (so an entity's distance
// is its hop count from the nearest seed), up to depth levels (the store's
// checked depth, not q.Depth). Facts and entities come back sorted by id;
// with q.FactsOnly no entity is loaded beyond the seeds' existence check.
func WalkNeighborhood(ctx context.Context, q NeighborhoodQuery, depth int, steps NeighborhoodSteps) (Subgraph, error) {
	g := Subgraph{Distance: map[string]int{}}
	seeds := slices.Compact(slices.Sorted(slices.Values(q.Seeds)))
	if len(seeds) == 0 {
		return g, nil
	}
	found, err := steps.Entities(ctx, seeds)
	if err != nil {
		return g, fmt.Errorf("seeds: %w", err)
	}
	frontier := make([]string, 0, len(found))
	for _, e := range found {
		g.Distance[e.ID] = 0
		frontier = append(frontier, e.ID)
	}
	slices.Sort(frontier)
	factSeen := map[string]bool{}
	for d := 0; d < depth && len(frontier) > 0; d++ {
		start := len(g.Facts)
		all, err := steps.Expand(ctx, frontier, g.Facts)
		if err != nil {
			return g, fmt.Errorf("expand level %d: %w", d, err)
		}
		// The level's facts are kept in place, each once.
		var next []string
		kept := start
		for i := start; i < len(all); i++ {
			f := &all[i]
			if factSeen[f.ID] {
				continue
			}
			factSeen[f.ID] = true
			if kept != i {
				all[kept] = *f
			}
			kept++
			// One end is on the frontier (already placed); the other, if
			// new, is one hop further.
			for _, end := range []string{f.SubjectID, f.ObjectID} {
				if _, ok := g.Distance[end]; !ok {
					g.Distance[end] = d + 1
					next = append(next, end)
				}
			}
		}
		clear(all[kept:]) // repeats, not to be held
		g.Facts = all[:kept]
		slices.Sort(next)
		frontier = next
	}
	sortFactsByID(g.Facts)
	if q.FactsOnly || len(g.Distance) == 0 {
		return g, nil
	}
	ids := make([]string, 0, len(g.Distance))
	for id := range g.Distance {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	if g.Entities, err = steps.Entities(ctx, ids); err != nil {
		return g, fmt.Errorf("entities: %w", err)
	}
	return g, nil
}

// sortFactsByID orders facts by id. A Fact is a few hundred bytes and a walk
// can reach thousands, so it sorts their indexes and then moves each fact
// once, along the cycles of the permutation, instead of swapping facts.
func sortFactsByID(facts []Fact) {
	order := make([]int32, len(facts)) // order[i]: the fact that belongs at i
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortFunc(order, func(a, b int32) int { return cmp.Compare(facts[a].ID, facts[b].ID) })
	for i := range order {
		if order[i] < 0 || int(order[i]) == i {
			continue // placed, or in place
		}
		held := facts[i]
		for j := i; ; {
			from := int(order[j])
			order[j] = -1
			if from == i {
				facts[j] = held
				break
			}
			facts[j] = facts[from]
			j = from
		}
	}
}

// UnreachedDistance is the distance VisitSubgraph gives an end a walk did
// not place: past any walk's depth, and small enough to add hops to.
const UnreachedDistance = 1 << 30

// VisitSubgraph calls visit for each fact of g, in the order of g.Facts,
// with its ends' distances from g.Distance (an end it lacks gets
// UnreachedDistance): GraphStore.WalkFacts over a walk that returned its
// facts.
func VisitSubgraph(g Subgraph, visit func(WalkedFact)) {
	distance := func(id string) int {
		if d, ok := g.Distance[id]; ok {
			return d
		}
		return UnreachedDistance
	}
	for i := range g.Facts {
		f := &g.Facts[i]
		visit(WalkedFact{Fact: f, SubjectDistance: distance(f.SubjectID), ObjectDistance: distance(f.ObjectID)})
	}
}
