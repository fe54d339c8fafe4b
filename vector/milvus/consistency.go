package milvus

import (
	"sync"
	"time"

	"github.com/milvus-io/milvus-sdk-go/v2/client"
	"github.com/milvus-io/milvus-sdk-go/v2/entity"

	"github.com/kgmem/kgmem"
)

// deleteSettle is how long after a delete Session reads are upgraded to Strong.
// Milvus 2.3 answers a delete without a timestamp, so the session token
// (the newest write timestamp it has seen) does not cover deletes; a Session
// read right after one could still see the deleted rows. Query nodes apply a
// delete within one time tick (~200 ms), so two seconds leaves a wide margin.
const deleteSettle = 2 * time.Second

// sessionWindow is how long a namespace's last write timestamp is kept for
// Session reads. After it, a read of the namespace is Bounded: Milvus's
// graceful time (common.gracefulTime, 5 s by default) then already covers
// the write, so dropping the timestamp loses nothing as long as the window
// is longer than the graceful time.
const sessionWindow = 30 * time.Second

// sessions holds, per namespace, the Milvus timestamp of this index's last
// write to it, so that a Session read waits for that write only, not for
// the newest write of any namespace (the SDK's per-collection session
// token: with writes arriving continuously every read waited most of a time
// tick, ~200 ms).
type sessions struct {
	mu sync.Mutex
	// byNamespace maps a namespace to its last write.
	byNamespace map[kgmem.Namespace]sessionWrite
	// lastDelete is when this index last deleted, and which namespace
	// (empty: several or all).
	lastDelete time.Time
	// pruned is when byNamespace was last swept for expired writes.
	pruned time.Time
}

// sessionWrite is one namespace's last write: Milvus's hybrid timestamp of
// it and when this process saw it acknowledged.
type sessionWrite struct {
	ts   uint64
	seen time.Time
}

// wrote records that the write with Milvus timestamp ts to namespaces was
// acknowledged.
func (s *sessions) wrote(ts uint64, namespaces []kgmem.Namespace) {
	now := time.Now()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.byNamespace == nil {
		s.byNamespace = map[kgmem.Namespace]sessionWrite{}
	}
	for _, ns := range namespaces {
		w := s.byNamespace[ns]
		s.byNamespace[ns] = sessionWrite{ts: max(w.ts, ts), seen: now}
	}
	if now.Sub(s.pruned) > sessionWindow {
		s.pruned = now
		for ns, w := range s.byNamespace {
			if now.Sub(w.seen) > sessionWindow {
				delete(s.byNamespace, ns)
			}
		}
	}
}

// deleted records that a delete was sent, before the call returns to the caller.
func (s *sessions) deleted() {
	s.mu.Lock()
	s.lastDelete = time.Now()
	s.mu.Unlock()
}

// guarantee is the consistency option of a Session read of ns: Strong within
// deleteSettle of a delete; the timestamp of this index's last write to ns
// when it is recent (the read waits until Milvus has applied it, and no
// longer); Bounded otherwise (every write older than the graceful time is
// visible).
func (s *sessions) guarantee(ns kgmem.Namespace) []client.SearchQueryOptionFunc {
	now := time.Now()
	s.mu.Lock()
	w, ok := s.byNamespace[ns]
	recentDelete := !s.lastDelete.IsZero() && now.Sub(s.lastDelete) < deleteSettle
	s.mu.Unlock()
	switch {
	case recentDelete:
		return []client.SearchQueryOptionFunc{client.WithSearchQueryConsistencyLevel(entity.ClStrong)}
	case ok && now.Sub(w.seen) <= sessionWindow:
		return []client.SearchQueryOptionFunc{client.WithSearchQueryConsistencyLevel(entity.ClCustomized), client.WithGuaranteeTimestamp(w.ts)}
	default:
		return []client.SearchQueryOptionFunc{client.WithSearchQueryConsistencyLevel(entity.ClBounded)}
	}
}

// recentlyDeleted reports whether this index deleted within deleteSettle.
func (s *sessions) recentlyDeleted() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return !s.lastDelete.IsZero() && time.Since(s.lastDelete) < deleteSettle
}

// rankedReadOptions are the consistency options of a search, ranked here
// (exactSearch) or by Milvus (annReadOptions), and the recent writes to
// lay over what it reads:
// at Session, with no delete within deleteSettle and every recent write of
// ns held, Bounded and those writes (recentWrites), which cost no wait;
// otherwise readOptions and none.
func (ix *Index) rankedReadOptions(ns kgmem.Namespace, kinds []kgmem.Kind) ([]client.SearchQueryOptionFunc, map[string]recentRecord) {
	if ix.level == entity.ClSession && !ix.sessions.recentlyDeleted() {
		if recent, whole := ix.recent.of(ns, kinds); whole {
			return []client.SearchQueryOptionFunc{client.WithSearchQueryConsistencyLevel(entity.ClBounded)}, recent
		}
	}
	return ix.readOptions(ns), nil
}

// readOptions are the consistency options of a read of ns: the configured
// level, except Session, which is kept per namespace (sessions.guarantee).
func (ix *Index) readOptions(ns kgmem.Namespace) []client.SearchQueryOptionFunc {
	if ix.level != entity.ClSession {
		return []client.SearchQueryOptionFunc{client.WithSearchQueryConsistencyLevel(ix.level)}
	}
	return ix.sessions.guarantee(ns)
}

// deleted records that a delete was sent, before the call returns to the caller.
func (ix *Index) deleted() {
	ix.sessions.deleted()
	ix.large.forget()
}
