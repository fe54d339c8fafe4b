package main

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/kgmem/kgmem/memory"
)

// scriptedDrain is an outbox whose rounds apply and fail as scripted.
type scriptedDrain struct {
	depth  int
	rounds []drainRound
	calls  int
}

type drainRound struct {
	applied int
	err     error
}

func (d *scriptedDrain) DrainOutbox(context.Context) (int, error) {
	if d.calls >= len(d.rounds) {
		return 0, errors.New("an unscripted round")
	}
	r := d.rounds[d.calls]
	d.calls++
	d.depth -= r.applied
	return r.applied, r.err
}

func (d *scriptedDrain) OutboxDepth() int { return d.depth }

// TestSettleOutboxRetriesWhatCouldNotApplyYet: a run that took over queued
// vector writes applies them all before it ends, though a round could not
// apply some (a namespace whose lock a killed run holds until its lease
// lapses); it stops at once when the vector index does not answer.
func TestSettleOutboxRetriesWhatCouldNotApplyYet(t *testing.T) {
	locked := fmt.Errorf("apply 288 queued vector ops of %q: lock namespace: %w", "gen/ns2", context.DeadlineExceeded)
	down := fmt.Errorf("%w: connection refused", memory.ErrVectorIndexDown)
	tests := []struct {
		name     string
		depth    int
		rounds   []drainRound
		applied  int
		wantErr  error
		calls    int
		leftover int
	}{
		{"all at once", 800, []drainRound{{512, nil}, {288, nil}}, 800, nil, 2, 0},
		{"a round with a namespace locked", 800, []drainRound{{512, locked}, {0, locked}, {288, nil}}, 800, nil, 3, 0},
		{"the index down", 800, []drainRound{{0, down}}, 0, memory.ErrVectorIndexDown, 1, 800},
		{"in flight elsewhere", 10, []drainRound{{0, nil}}, 0, nil, 1, 10},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := &scriptedDrain{depth: tc.depth, rounds: tc.rounds}
			n, err := settleOutbox(t.Context(), d)
			if n != tc.applied || !errors.Is(err, tc.wantErr) || (tc.wantErr == nil && err != nil) || d.calls != tc.calls || d.depth != tc.leftover {
				t.Fatalf("applied %d (err %v) in %d rounds, %d left; want %d (err %v) in %d rounds, %d left",
					n, err, d.calls, d.depth, tc.applied, tc.wantErr, tc.calls, tc.leftover)
			}
		})
	}
}
