package memory

import (
	"cmp"
	"context"
	"fmt"
	"slices"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/episodes"
)

// threadHits returns the episodes around the best fused episode candidates
// in their threads, as the ranked list of the "thread" retriever: the
// neighbours of the first anchor first, nearer neighbours before farther ones.
// In a conversation the answer to a question is often the turn right after
// the one that matches its words ("what did you research?" — "adoption
// agencies"), which shares none of them.
//
// Between a person and an assistant it is not so: the person's turn states
// what they said, and the assistant's reply is derived from it, long and
// generic, so it pushes the person's other turns out. The thread retriever
// expands neither to nor from an assistant's turn (role "assistant"); a
// dialogue between people keeps every neighbour.
func (e *Engine) threadHits(ctx context.Context, ns kgmem.Namespace, opts SearchOptions, anchors []*fused) ([]kgmem.Hit, error) {
	if len(anchors) == 0 || opts.ThreadWeight == 0 {
		return nil, nil
	}
	ids := make([]string, len(anchors))
	for i, a := range anchors {
		ids[i] = a.id
	}
	near, err := e.graph.ThreadNeighbors(ctx, ns, kgmem.ThreadNeighborsQuery{IDs: ids, Window: opts.ThreadWindow})
	if err != nil {
		return nil, fmt.Errorf("thread neighbours: %w", err)
	}
	near, err = e.withoutAssistantTurns(ctx, ns, ids, near)
	if err != nil {
		return nil, err
	}
	rankOf := make(map[string]int, len(ids))
	for i, id := range ids {
		rankOf[id] = i
	}
	// Order: by anchor rank plus distance, so the next turn of the best hit
	// comes first, then the turns one place from the second hit and two from
	// the first, and so on.
	type cand struct {
		id   string
		cost int
	}
	best := make(map[string]int, len(near))
	order := make([]string, 0, len(near))
	for _, n := range near {
		d := n.Offset
		if d < 0 {
			d = -d
		}
		cost := rankOf[n.Of] + d
		if c, ok := best[n.ID]; !ok || cost < c {
			if !ok {
				order = append(order, n.ID)
			}
			best[n.ID] = cost
		}
	}
	cands := make([]cand, len(order))
	for i, id := range order {
		cands[i] = cand{id, best[id]}
	}
	slices.SortStableFunc(cands, func(a, b cand) int { return cmp.Compare(a.cost, b.cost) })
	hits := make([]kgmem.Hit, len(cands))
	for i, c := range cands {
		hits[i] = kgmem.Hit{Kind: kgmem.KindEpisode, ID: c.id, Score: 1 / float64(1+c.cost)}
	}
	return hits, nil
}

// withoutAssistantTurns drops the neighbours of an assistant's turn, and on
// each side of a person's turn the neighbours from the first assistant's
// turn on: the walk neither starts at, reaches nor crosses one (threadHits).
func (e *Engine) withoutAssistantTurns(ctx context.Context, ns kgmem.Namespace, anchors []string, near []kgmem.ThreadNeighbor) ([]kgmem.ThreadNeighbor, error) {
	if len(near) == 0 {
		return near, nil
	}
	assistant, err := e.assistantTurns(ctx, ns, anchors, near)
	if err != nil {
		return nil, err
	}
	// The nearest assistant's turn on each side of each anchor, as a
	// distance (an anchor's side without one: absent).
	type side struct {
		of   string
		sign int
	}
	stop := map[side]int{}
	for _, n := range near {
		if !assistant[n.ID] {
			continue
		}
		sd, d := sideOf(n)
		if at, ok := stop[side{n.Of, sd}]; !ok || d < at {
			stop[side{n.Of, sd}] = d
		}
	}
	return slices.DeleteFunc(near, func(n kgmem.ThreadNeighbor) bool {
		if assistant[n.Of] {
			return true
		}
		sd, d := sideOf(n)
		at, ok := stop[side{n.Of, sd}]
		return ok && d >= at
	}), nil
}

// assistantTurns are the anchors and neighbours of near that are an
// assistant's turns: from the roles the store reported with the neighbours
// when it did, else from the episodes, read.
func (e *Engine) assistantTurns(ctx context.Context, ns kgmem.Namespace, anchors []string, near []kgmem.ThreadNeighbor) (map[string]bool, error) {
	assistant := map[string]bool{}
	if !slices.ContainsFunc(near, func(n kgmem.ThreadNeighbor) bool { return !n.RolesKnown }) {
		for _, n := range near {
			assistant[n.ID] = n.Role == episodes.RoleAssistant
			assistant[n.Of] = n.OfRole == episodes.RoleAssistant
		}
		return assistant, nil
	}
	ids := slices.Clone(anchors)
	for _, n := range near {
		ids = append(ids, n.ID)
	}
	slices.Sort(ids)
	eps, err := e.graph.Episodes(ctx, ns, slices.Compact(ids))
	if err != nil {
		return nil, fmt.Errorf("thread neighbours' roles: %w", err)
	}
	for _, ep := range eps {
		if ep.Role == episodes.RoleAssistant {
			assistant[ep.ID] = true
		}
	}
	return assistant, nil
}

// sideOf splits a neighbour's offset into its side (-1 before, 1 after)
// and its distance.
func sideOf(n kgmem.ThreadNeighbor) (sign, distance int) {
	if n.Offset < 0 {
		return -1, -n.Offset
	}
	return 1, n.Offset
}
