package instrument

import (
	"context"

	"github.com/kgmem/kgmem"
)

// Outbox wraps box, the engine's vector outbox kept by the backend named
// backend (the graph store's name when the store keeps it, "file" for the
// journal in the data directory), timing its writes and counting their
// failures as Graph does. A box that journals in the graph store's
// transactions (kgmem.JournalingOutbox) stays one: its ApplyJournaled is
// the write of an ingest's change set, measured as op "ApplyJournaled".
func Outbox(box kgmem.VectorOutbox, backend string, m *Metrics) kgmem.VectorOutbox {
	o := &outbox{box: box, backend: backend, m: m}
	if jo, ok := box.(kgmem.JournalingOutbox); ok {
		return &journalingOutbox{outbox: o, jo: jo}
	}
	return o
}

type outbox struct {
	box     kgmem.VectorOutbox
	backend string
	m       *Metrics
}

func (o *outbox) Add(ctx context.Context, ops []kgmem.VectorOp) ([]uint64, error) {
	done := o.m.start(o.backend, "OutboxAdd")
	seqs, err := o.box.Add(ctx, ops)
	return seqs, done(err)
}

func (o *outbox) Sync(ctx context.Context) error {
	done := o.m.start(o.backend, "OutboxSync")
	return done(o.box.Sync(ctx))
}

func (o *outbox) Pending(limit int) []kgmem.QueuedVectorOp { return o.box.Pending(limit) }

func (o *outbox) Done(seqs []uint64) error {
	done := o.m.start(o.backend, "OutboxDone")
	return done(o.box.Done(seqs))
}

func (o *outbox) Len() int { return o.box.Len() }

type journalingOutbox struct {
	*outbox
	jo kgmem.JournalingOutbox
}

func (o *journalingOutbox) Reserve(ops []kgmem.VectorOp) []kgmem.QueuedVectorOp {
	return o.jo.Reserve(ops)
}

func (o *journalingOutbox) ApplyJournaled(ctx context.Context, cs kgmem.ChangeSet, ops []kgmem.QueuedVectorOp) error {
	done := o.m.start(o.backend, "ApplyJournaled")
	return done(o.jo.ApplyJournaled(ctx, cs, ops))
}
