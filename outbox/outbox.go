// Package outbox holds kgmem's durable queue of vector writes that failed
// after their graph write (kgmem.VectorOutbox). The memory engine queues them
// and a background loop drains them once the vector index answers again.
//
// File keeps the queue in a journal file (internal/journal): an Add is an
// append (written, not yet fsynced), Sync fsyncs what was added (concurrent
// callers share one fsync), applied ops are recorded as "done" lines (never
// fsynced: a lost one only replays a harmless op) and the file is compacted
// once it holds 1,024 lines, most of them settled, so draining a long backlog
// costs appends, not a rewrite per batch. A process killed at any point
// leaves a journal the next Open replays: an op Add returned is never lost to
// a process crash, and an op Sync covered is not lost to a machine crash
// either; one applied just before a crash may be applied again, which is
// harmless because applying re-reads the graph.
package outbox

import (
	"context"
	"fmt"
	"slices"
	"sync"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/internal/journal"
)

// line is one journal line: a queued op, or the sequence numbers of applied ops.
type line struct {
	Seq  uint64          `json:"seq,omitempty"`
	Op   *kgmem.VectorOp `json:"op,omitempty"`
	Done []uint64        `json:"done,omitempty"`
}

// validLine accepts a queued op with a valid namespace, kind and operation, or
// a done record.
func validLine(l line) bool {
	if l.Op == nil {
		return len(l.Done) > 0
	}
	return l.Seq > 0 && ValidOp(*l.Op)
}

// ValidOp reports whether op can be queued: a valid namespace, and for upserts
// and deletes a valid kind and a non-empty id.
func ValidOp(op kgmem.VectorOp) bool {
	if _, err := kgmem.ParseNamespace(string(op.Namespace)); err != nil {
		return false
	}
	switch op.Op {
	case kgmem.VectorUpsert, kgmem.VectorDelete:
		return op.Kind.Valid() && op.ID != ""
	case kgmem.VectorPurge:
		return true
	}
	return false
}

// compactAt is the number of journal lines below which the file is never compacted.
const compactAt = 1024

// queue is the in-memory state shared by File and Memory.
type queue struct {
	mu      sync.Mutex
	pending []kgmem.QueuedVectorOp
	next    uint64
}

func (q *queue) add(ops []kgmem.VectorOp) ([]kgmem.QueuedVectorOp, error) {
	for i, op := range ops {
		if !ValidOp(op) {
			return nil, fmt.Errorf("outbox add: %w", kgmem.Invalidf(fmt.Sprintf("ops[%d]", i), "%+v is not a valid vector op", op))
		}
	}
	out := make([]kgmem.QueuedVectorOp, len(ops))
	for i, op := range ops {
		q.next++
		out[i] = kgmem.QueuedVectorOp{Seq: q.next, VectorOp: op}
	}
	return out, nil
}

func (q *queue) peek(limit int) []kgmem.QueuedVectorOp {
	q.mu.Lock()
	defer q.mu.Unlock()
	n := min(limit, len(q.pending))
	if limit <= 0 {
		n = len(q.pending)
	}
	return slices.Clone(q.pending[:n])
}

// remove drops seqs from pending and reports how many it found.
func (q *queue) remove(seqs []uint64) int {
	drop := make(map[uint64]bool, len(seqs))
	for _, s := range seqs {
		drop[s] = true
	}
	before := len(q.pending)
	q.pending = slices.DeleteFunc(q.pending, func(op kgmem.QueuedVectorOp) bool { return drop[op.Seq] })
	return before - len(q.pending)
}

func (q *queue) len() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return len(q.pending)
}

// File is a kgmem.VectorOutbox kept in a journal file. It is safe for
// concurrent use; one file serves one process at a time.
type File struct {
	q     queue
	j     *journal.Journal[line]
	lines int // lines in the journal file (ops and done records)
	// last is the journal sequence number of the last op line written.
	last uint64
}

var _ kgmem.VectorOutbox = (*File)(nil)

// Open opens (creating it and its directory if needed) the outbox journal at
// path and queues the ops it holds that are not marked done. Torn lines (a
// crash mid-append) are skipped.
func Open(path string) (*File, int, error) {
	j, lines, skipped, err := journal.Open(path, validLine)
	if err != nil {
		return nil, 0, fmt.Errorf("open vector outbox: %w", err)
	}
	f := &File{j: j, lines: len(lines)}
	done := map[uint64]bool{}
	for _, l := range lines {
		for _, s := range l.Done {
			done[s] = true
		}
	}
	for _, l := range lines {
		if l.Op != nil {
			f.q.next = max(f.q.next, l.Seq)
			if !done[l.Seq] {
				f.q.pending = append(f.q.pending, kgmem.QueuedVectorOp{Seq: l.Seq, VectorOp: *l.Op})
			}
		}
	}
	if len(f.q.pending) < len(lines) {
		if err := f.compactLocked(); err != nil {
			_ = j.Close()
			return nil, 0, err
		}
	}
	return f, skipped, nil
}

// Add queues ops and returns their sequence numbers once they are written to
// the file (not fsynced: see Sync).
func (f *File) Add(_ context.Context, ops []kgmem.VectorOp) ([]uint64, error) {
	if len(ops) == 0 {
		return nil, nil
	}
	f.q.mu.Lock()
	queued, err := f.q.add(ops)
	if err != nil {
		f.q.mu.Unlock()
		return nil, err
	}
	var seq uint64
	for _, op := range queued {
		if seq, err = f.j.Write(line{Seq: op.Seq, Op: &op.VectorOp}); err != nil {
			f.q.mu.Unlock()
			return nil, fmt.Errorf("outbox add: %w: %w", kgmem.ErrUnavailable, err)
		}
		f.lines++
	}
	f.q.pending = append(f.q.pending, queued...)
	f.last = seq
	f.q.mu.Unlock()
	return seqsOf(queued), nil
}

// Sync fsyncs every op added so far; concurrent callers share one fsync.
func (f *File) Sync(context.Context) error {
	f.q.mu.Lock()
	last := f.last
	f.q.mu.Unlock()
	if last == 0 {
		return nil
	}
	if err := f.j.Sync(last); err != nil {
		return fmt.Errorf("outbox sync: %w: %w", kgmem.ErrUnavailable, err)
	}
	return nil
}

func seqsOf(ops []kgmem.QueuedVectorOp) []uint64 {
	out := make([]uint64, len(ops))
	for i, op := range ops {
		out[i] = op.Seq
	}
	return out
}

// Pending returns up to limit queued ops, oldest first (limit <= 0: all).
func (f *File) Pending(limit int) []kgmem.QueuedVectorOp { return f.q.peek(limit) }

// Len is the number of queued ops.
func (f *File) Len() int { return f.q.len() }

// Done removes the applied ops: a done record appended without an fsync (a
// lost one only replays harmless ops), and a compaction of the file once it
// holds 1,024 lines, most of them settled.
func (f *File) Done(seqs []uint64) error {
	if len(seqs) == 0 {
		return nil
	}
	f.q.mu.Lock()
	defer f.q.mu.Unlock()
	if f.q.remove(seqs) == 0 {
		return nil
	}
	if f.lines >= compactAt && f.lines > 2*len(f.q.pending) {
		return f.compactLocked()
	}
	if _, err := f.j.Write(line{Done: seqs}); err != nil {
		return fmt.Errorf("outbox done: %w", err)
	}
	f.lines++
	return nil
}

// compactLocked rewrites the journal with the pending ops only; f.q.mu is held.
func (f *File) compactLocked() error {
	lines := make([]line, len(f.q.pending))
	for i := range f.q.pending {
		op := f.q.pending[i]
		lines[i] = line{Seq: op.Seq, Op: &op.VectorOp}
	}
	if err := f.j.Rewrite(lines); err != nil {
		return fmt.Errorf("compact vector outbox: %w", err)
	}
	f.lines = len(lines)
	return nil
}

// Close closes the journal; queued ops stay in it for the next Open.
func (f *File) Close() error { return f.j.Close() }

// Abandon closes the journal without a final sync, as a killed process would
// leave it. Tests use it.
func (f *File) Abandon() { f.j.Abandon() }

// Memory is a kgmem.VectorOutbox without durability: the queue lives as long
// as the process. The engine uses it when no outbox is configured.
type Memory struct{ q queue }

var _ kgmem.VectorOutbox = (*Memory)(nil)

// NewMemory returns an empty in-memory outbox.
func NewMemory() *Memory { return &Memory{} }

// Add queues ops and returns their sequence numbers.
func (m *Memory) Add(_ context.Context, ops []kgmem.VectorOp) ([]uint64, error) {
	m.q.mu.Lock()
	defer m.q.mu.Unlock()
	queued, err := m.q.add(ops)
	if err != nil {
		return nil, err
	}
	m.q.pending = append(m.q.pending, queued...)
	return seqsOf(queued), nil
}

// Pending returns up to limit queued ops, oldest first (limit <= 0: all).
func (m *Memory) Pending(limit int) []kgmem.QueuedVectorOp { return m.q.peek(limit) }

// Done removes the applied ops.
func (m *Memory) Done(seqs []uint64) error {
	m.q.mu.Lock()
	defer m.q.mu.Unlock()
	m.q.remove(seqs)
	return nil
}

// Len is the number of queued ops.
func (m *Memory) Len() int { return m.q.len() }

// Sync does nothing: a Memory outbox is never durable.
func (m *Memory) Sync(context.Context) error { return nil }
