package memory

import (
	"time"

	"github.com/kgmem/kgmem"
)

// This file is the one place search reads a fact's status: which facts a
// request may see (inView) and which are true now (currentAt, for the
// currency prior), both in the terms of kgmem.FactStatus.

// inView reports whether a fact belongs to the request's temporal view:
// with history, every fact; for a question that names a time (named, the
// window it names), also the facts true then that were superseded since
// ("where did Nils live in 2020?"), none begun after as_of when it is given;
// with as_of, the facts valid then (never one not yet true); otherwise those
// not invalidated by a contradiction.
func inView(req *SearchRequest, named *timeWindow, f *kgmem.Fact) bool {
	if req.IncludeHistory {
		return true
	}
	if named != nil {
		if span, known := factSpan(*f); known && span.overlaps(*named) {
			return req.AsOf.IsZero() || !begunAfter(f, req.AsOf)
		}
	}
	if !req.AsOf.IsZero() {
		return f.ValidAtInstant(req.AsOf)
	}
	return f.ExpiredAt.IsZero()
}

// begunAfter reports whether f was not yet true at t: it holds from later,
// or, without a start, kgmem learnt it later (as Fact.ValidAtInstant reads
// it).
func begunAfter(f *kgmem.Fact, t time.Time) bool {
	if !f.ValidAt.IsZero() {
		return f.ValidAt.After(t)
	}
	return f.CreatedAt.After(t)
}

// currentAt reports whether f is true at world time at and still
// believed: its status then is FactCurrent.
func currentAt(f kgmem.Fact, at time.Time) bool {
	return f.Status(at) == kgmem.FactCurrent
}

// factSpan is the world-time interval a fact held: [ValidAt, InvalidAt),
// open at a zero end; known is false when neither end is set.
func factSpan(f kgmem.Fact) (span timeWindow, known bool) {
	return timeWindow{From: f.ValidAt, To: f.InvalidAt}, !f.ValidAt.IsZero() || !f.InvalidAt.IsZero()
}
