package hnsw

import "cmp"

// cand is a slot and its distance to the query.
type cand struct {
	slot int32
	dist float32
}

// cmpCand orders candidates nearest first, ties by slot.
func cmpCand(a, b cand) int {
	if c := cmp.Compare(a.dist, b.dist); c != 0 {
		return c
	}
	return cmp.Compare(a.slot, b.slot)
}

// minHeap pops the nearest candidate first.
type minHeap struct{ items []cand }

// maxHeap keeps the farthest candidate on top.
type maxHeap struct{ items []cand }

func (h *minHeap) len() int { return len(h.items) }
func (h *minHeap) push(c cand) {
	h.items = append(h.items, c)
	up(h.items, len(h.items)-1, func(a, b cand) bool { return a.dist < b.dist })
}
func (h *minHeap) pop() cand { return pop(&h.items, func(a, b cand) bool { return a.dist < b.dist }) }

func (h *maxHeap) len() int  { return len(h.items) }
func (h *maxHeap) top() cand { return h.items[0] }
func (h *maxHeap) push(c cand) {
	h.items = append(h.items, c)
	up(h.items, len(h.items)-1, func(a, b cand) bool { return a.dist > b.dist })
}
func (h *maxHeap) pop() cand { return pop(&h.items, func(a, b cand) bool { return a.dist > b.dist }) }

// up restores the heap order (before(a, b): a belongs above b) from i upwards.
func up(h []cand, i int, before func(a, b cand) bool) {
	for i > 0 {
		p := (i - 1) / 2
		if !before(h[i], h[p]) {
			return
		}
		h[i], h[p] = h[p], h[i]
		i = p
	}
}

// pop removes and returns the top of the heap.
func pop(hp *[]cand, before func(a, b cand) bool) cand {
	h := *hp
	top := h[0]
	last := len(h) - 1
	h[0] = h[last]
	h = h[:last]
	for i := 0; ; {
		l, r, m := 2*i+1, 2*i+2, i
		if l < len(h) && before(h[l], h[m]) {
			m = l
		}
		if r < len(h) && before(h[r], h[m]) {
			m = r
		}
		if m == i {
			break
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
	*hp = h
	return top
}
