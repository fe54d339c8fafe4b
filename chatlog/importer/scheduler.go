package importer

import (
	"context"
	"sync"

	"github.com/kgmem/kgmem"
)

// scheduler hands batches to any idle worker while keeping each thread's
// batches in order and one at a time: a thread is "ready" when it has a
// pending batch and none in flight. Pending batches are bounded, so reading
// never runs far ahead of ingesting.
type scheduler struct {
	mu       sync.Mutex
	cond     *sync.Cond
	queues   map[string][]*batch
	ready    []string
	inflight map[string]bool
	broken   map[string]bool
	pending  int
	limit    int
	closed   bool
}

func newScheduler(ctx context.Context, limit int) *scheduler {
	s := &scheduler{queues: map[string][]*batch{}, inflight: map[string]bool{}, broken: map[string]bool{}, limit: limit}
	s.cond = sync.NewCond(&s.mu)
	context.AfterFunc(ctx, func() {
		s.mu.Lock()
		s.closed = true
		s.mu.Unlock()
		s.cond.Broadcast()
	})
	return s
}

// push queues b, waiting while too many batches are pending; false once closed.
func (s *scheduler) push(b *batch) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	for s.pending >= s.limit && !s.closed {
		s.cond.Wait()
	}
	if s.closed {
		return false
	}
	s.queues[b.key] = append(s.queues[b.key], b)
	s.pending++
	if !s.inflight[b.key] && len(s.queues[b.key]) == 1 {
		s.ready = append(s.ready, b.key)
	}
	s.cond.Broadcast()
	return true
}

// pop returns the next batch of a ready thread, marking the thread in
// flight, or false when closed and drained.
func (s *scheduler) pop() (*batch, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for len(s.ready) == 0 {
		if s.closed && s.pending == 0 {
			return nil, false
		}
		s.cond.Wait() // a pending batch's thread is in flight: wait for done
	}
	key := s.ready[0]
	s.ready = s.ready[1:]
	b := s.queues[key][0]
	s.queues[key] = s.queues[key][1:]
	s.inflight[key] = true
	s.pending--
	s.cond.Broadcast()
	return b, true
}

// popAlong returns, without waiting, next batches of other ready threads of
// ns holding at most room records in all, marking their threads in flight:
// the batches a write of a batch of ns can carry along.
func (s *scheduler) popAlong(ns kgmem.Namespace, room int) []*batch {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []*batch
	ready := s.ready[:0]
	for _, key := range s.ready {
		b := s.queues[key][0]
		if b.ns != ns || len(b.recs) > room || s.broken[key] {
			ready = append(ready, key)
			continue
		}
		room -= len(b.recs)
		out = append(out, b)
		s.queues[key] = s.queues[key][1:]
		s.inflight[key] = true
		s.pending--
	}
	s.ready = ready
	if len(out) > 0 {
		s.cond.Broadcast()
	}
	return out
}

// done releases b's thread; broken marks it failed for the rest of the run.
func (s *scheduler) done(b *batch, broken bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.inflight, b.key)
	if broken {
		s.broken[b.key] = true
	}
	if len(s.queues[b.key]) > 0 {
		s.ready = append(s.ready, b.key)
	} else {
		delete(s.queues, b.key)
	}
	s.cond.Broadcast()
}

// isBroken reports whether a batch of the thread failed this run.
func (s *scheduler) isBroken(key string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.broken[key]
}

// close ends input: workers drain what is queued, then pop returns false.
func (s *scheduler) close() {
	s.mu.Lock()
	s.closed = true
	s.mu.Unlock()
	s.cond.Broadcast()
}
