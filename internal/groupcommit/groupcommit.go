// Package groupcommit lets concurrent writers to one SQLite file share
// transactions. A writer queues its request and waits; a committer,
// started when the first request is queued and gone once the queue is
// empty, hands every request queued meanwhile (up to a bound) to one commit
// function, which writes them in one transaction and gives each its error.
// Under load one commit then serves many requests instead of one each: a
// commit's BEGIN, COMMIT and WAL write cost as much for one small change as
// for ten.
//
// Before it takes a group the committer yields the processor once
// (runtime.Gosched): writers that are runnable at that moment queue first
// and join the group. On an idle process there is nothing to yield to and
// the commit starts at once; under cmd/load's 50 clients the committer
// otherwise ran as soon as the first writer waited, and searches queued
// behind many small commits.
package groupcommit

import (
	"context"
	"runtime"
	"sync"
)

// Request is one writer's request waiting in a queue.
type Request[T any] struct {
	// Ctx is the writer's context. A commit function skips a request whose
	// context ended before its turn, with that error.
	Ctx context.Context
	// Item is what the writer asked to write.
	Item T
	// Err is the request's outcome, set by the commit function.
	Err  error
	done chan struct{}
}

// Queue groups the requests of concurrent writers. The zero value is not
// usable: make one with New.
type Queue[T any] struct {
	max    int
	commit func(group []*Request[T])

	mu         sync.Mutex
	queue      []*Request[T]
	committing bool
	stats      Stats
}

// Stats count what a queue committed and holds.
type Stats struct {
	// Groups is the number of calls to the commit function, Requests the
	// requests they were given.
	Groups, Requests int64
	// Queued is the number of requests waiting for a group now.
	Queued int
}

// New returns a queue that hands groups of at most limit requests (at
// least 1) to commit, one group at a time. commit sets each request's Err.
func New[T any](limit int, commit func(group []*Request[T])) *Queue[T] {
	return &Queue[T]{max: max(1, limit), commit: commit}
}

// Do queues item and returns once its group has been committed, with its
// error. It waits for the commit even when ctx ends meanwhile, so that its
// answer says whether item was written.
func (q *Queue[T]) Do(ctx context.Context, item T) error {
	req := &Request[T]{Ctx: ctx, Item: item, done: make(chan struct{})}
	q.mu.Lock()
	q.queue = append(q.queue, req)
	if !q.committing {
		q.committing = true
		go q.commitQueued()
	}
	q.mu.Unlock()
	<-req.done
	return req.Err
}

// Stats returns the counts so far.
func (q *Queue[T]) Stats() Stats {
	q.mu.Lock()
	defer q.mu.Unlock()
	st := q.stats
	st.Queued = len(q.queue)
	return st
}

// commitQueued commits groups from the queue until it is empty.
func (q *Queue[T]) commitQueued() {
	for {
		runtime.Gosched() // let runnable writers queue first (package doc)
		q.mu.Lock()
		group := q.queue[:min(len(q.queue), q.max)]
		q.queue = q.queue[len(group):]
		if len(group) == 0 {
			q.committing = false
			q.queue = nil // let a long queue's array go
			q.mu.Unlock()
			return
		}
		q.stats.Groups++
		q.stats.Requests += int64(len(group))
		q.mu.Unlock()
		q.commit(group)
		for _, r := range group {
			close(r.done)
		}
	}
}
