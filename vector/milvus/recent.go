package milvus

import (
	"cmp"
	"slices"
	"sync"
	"time"

	"github.com/kgmem/kgmem"
)

// maxRecentRecords bounds the vectors recentWrites holds over all
// namespaces; a namespace whose writes would pass it is read with its
// session timestamp instead until they expire.
const maxRecentRecords = 50_000

// recentWrites holds the vectors this index upserted within sessionWindow,
// per namespace, so that a Session search (ranked here, exactSearch, or by
// Milvus, layOver) reads Bounded, without waiting for Milvus to apply the
// namespace's last write
// (most of a time tick, ~200 ms, when writes keep coming), and still sees
// every write this index acknowledged: its rows are laid over what the read
// returned. A write older than Milvus's graceful time is in the read itself,
// so holding it for sessionWindow, longer than that, loses nothing.
//
// Deletes are not laid over: a delete drops what is held of the records it
// deletes, and every read within deleteSettle of one is Strong
// (sessions.guarantee). Another server's writes are seen when Bounded
// allows, as with the session timestamp, which is this index's own too.
type recentWrites struct {
	// limit bounds the records held (maxRecentRecords when 0).
	limit   int
	mu      sync.Mutex
	byNS    map[kgmem.Namespace]*recentNamespace
	held    int
	pruned  time.Time
	overrun map[kgmem.Namespace]time.Time // namespaces not held whole, until then
}

// recentNamespace is one namespace's recent writes, by record id.
type recentNamespace struct {
	records map[string]recentRecord
	last    time.Time
}

// recentRecord is one upserted vector and when its write was acknowledged.
type recentRecord struct {
	kind   kgmem.Kind
	vector []float32
	seen   time.Time
}

// wrote records the acknowledged upsert of records.
func (r *recentWrites) wrote(records []kgmem.VectorRecord) {
	now := time.Now()
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.byNS == nil {
		r.byNS, r.overrun = map[kgmem.Namespace]*recentNamespace{}, map[kgmem.Namespace]time.Time{}
	}
	if now.Sub(r.pruned) > sessionWindow/4 {
		r.pruneLocked(now)
	}
	for _, rec := range records {
		ns := r.byNS[rec.Namespace]
		if ns == nil {
			ns = &recentNamespace{records: map[string]recentRecord{}}
			r.byNS[rec.Namespace] = ns
		}
		if _, ok := ns.records[rec.ID]; !ok {
			if r.held >= cmp.Or(r.limit, maxRecentRecords) {
				r.overrun[rec.Namespace] = now.Add(sessionWindow)
				continue
			}
			r.held++
		}
		ns.records[rec.ID] = recentRecord{kind: rec.Kind, vector: rec.Vector, seen: now}
		ns.last = now
	}
}

// pruneLocked drops the writes older than sessionWindow.
func (r *recentWrites) pruneLocked(now time.Time) {
	r.pruned = now
	for name, ns := range r.byNS {
		if now.Sub(ns.last) > sessionWindow {
			r.held -= len(ns.records)
			delete(r.byNS, name)
			continue
		}
		for id, rec := range ns.records {
			if now.Sub(rec.seen) > sessionWindow {
				r.held--
				delete(ns.records, id)
			}
		}
	}
	for name, until := range r.overrun {
		if now.After(until) {
			delete(r.overrun, name)
		}
	}
}

// of returns the recent writes of ns of kinds (all with none), and whether
// they are all this index wrote to ns within sessionWindow (false: some
// were not held).
func (r *recentWrites) of(ns kgmem.Namespace, kinds []kgmem.Kind) (map[string]recentRecord, bool) {
	now := time.Now()
	r.mu.Lock()
	defer r.mu.Unlock()
	if until, ok := r.overrun[ns]; ok && now.Before(until) {
		return nil, false
	}
	held := r.byNS[ns]
	if held == nil {
		return nil, true
	}
	out := make(map[string]recentRecord, len(held.records))
	for id, rec := range held.records {
		if now.Sub(rec.seen) <= sessionWindow && (len(kinds) == 0 || slices.Contains(kinds, rec.kind)) {
			out[id] = rec
		}
	}
	return out, true
}

// forget drops what is held of ns: of ids, or all of it without ids.
func (r *recentWrites) forget(ns kgmem.Namespace, ids []string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	held := r.byNS[ns]
	if held == nil {
		return
	}
	if len(ids) == 0 {
		r.held -= len(held.records)
		delete(r.byNS, ns)
		return
	}
	for _, id := range ids {
		if _, ok := held.records[id]; ok {
			r.held--
			delete(held.records, id)
		}
	}
}
