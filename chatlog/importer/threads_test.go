package importer_test

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/chatlog/gen/gentest"
	"github.com/kgmem/kgmem/chatlog/importer"
	"github.com/kgmem/kgmem/memory"
)

// threadsSink records each IngestThreads call and fails those carrying a
// thread of failThread.
type threadsSink struct {
	*memory.Engine
	failThread string
	mu         sync.Mutex
	calls      [][]memory.IngestRequest
}

func (s *threadsSink) IngestThreads(ctx context.Context, ns kgmem.Namespace, reqs []memory.IngestRequest) ([]memory.IngestResult, error) {
	s.mu.Lock()
	s.calls = append(s.calls, reqs)
	s.mu.Unlock()
	for _, r := range reqs {
		if r.ThreadID == s.failThread {
			return nil, errors.New("refused")
		}
	}
	return s.Engine.IngestThreads(ctx, ns, reqs)
}

// TestWritesCarryThreadsOfANamespace: without extraction, a write carries
// the ready batches of several threads of one namespace, never more than
// Batch messages and never two namespaces; everything is stored once and
// each thread's checkpoint reaches its end. A write that fails fails every
// thread it carried, and only those.
func TestWritesCarryThreadsOfANamespace(t *testing.T) {
	data := input(t, 400) // 20 threads of 20 messages in 3 namespaces
	tests := []struct {
		name       string
		failThread string
	}{
		{"every write stored", ""},
		{"a write refused", "thread-4"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			eng, _ := gentest.Engine(t, t.TempDir(), nil)
			sink := &threadsSink{Engine: eng, failThread: tc.failThread}
			ck, err := importer.LoadCheckpoint(filepath.Join(t.TempDir(), "ck"))
			if err != nil {
				t.Fatal(err)
			}
			const batch = 45
			s := run(t, importer.Config{Sink: sink, Concurrency: 4, Batch: batch, Checkpoint: ck}, data)
			carried, several := map[string]bool{}, false
			var refused []memory.IngestRequest
			for _, reqs := range sink.calls {
				n := 0
				for _, r := range reqs {
					n += len(r.Messages)
					if r.Namespace != reqs[0].Namespace {
						t.Errorf("one write carried %s and %s", reqs[0].Namespace, r.Namespace)
					}
					carried[string(r.Namespace)+"/"+r.ThreadID] = true
				}
				if n > batch {
					t.Errorf("one write carried %d messages, more than the batch of %d", n, batch)
				}
				several = several || len(reqs) > 1
				if slices.ContainsFunc(reqs, func(r memory.IngestRequest) bool { return r.ThreadID == tc.failThread }) {
					refused = append(refused, reqs...)
				}
			}
			if !several {
				t.Error("no write carried more than one thread")
			}
			if len(carried) != 20 {
				t.Errorf("writes carried %d threads, want 20", len(carried))
			}
			if tc.failThread == "" {
				if s.Created != 400 || s.Failed != 0 || ck.Done("gen/ns2", "thread-2") != 20 {
					t.Errorf("stats %+v, checkpoint of thread-2 %d; want 400 created, none failed, 20", s.Stats, ck.Done("gen/ns2", "thread-2"))
				}
				return
			}
			// The refused write's threads stopped at their checkpoints;
			// every other message was stored.
			failed := int64(0)
			for _, r := range refused {
				failed += int64(len(r.Messages))
			}
			if s.Failed < failed || s.Created+s.Failed != 400 {
				t.Errorf("created %d, failed %d; want the %d messages of the refused write (or more, of its threads' later batches) failed, the rest created", s.Created, s.Failed, failed)
			}
			for _, r := range refused {
				if got := ck.Done(string(r.Namespace), r.ThreadID); got >= 20 {
					t.Errorf("checkpoint of %s, refused, at %d", r.ThreadID, got)
				}
			}
		})
	}
}
