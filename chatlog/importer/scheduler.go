package importer

import (
	"context"
	"sync"
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
