package kgmem_test

import (
	"testing"

	"github.com/kgmem/kgmem"
)

// TestRunsInProcess tells stores in this process from others by the
// optional interface.
func TestRunsInProcess(t *testing.T) {
	for _, tc := range []struct {
		name   string
		stores []any
		want   bool
	}{
		{"both in process", []any{inProcess(true), inProcess(true)}, true},
		{"one over a network", []any{inProcess(true), struct{ kgmem.GraphStore }{}}, false},
		{"one that says no", []any{inProcess(true), inProcess(false)}, false},
		{"none", nil, false},
	} {
		if got := kgmem.RunsInProcess(tc.stores...); got != tc.want {
			t.Errorf("%s: RunsInProcess %v, want %v", tc.name, got, tc.want)
		}
	}
}

type inProcess bool

func (p inProcess) RunsInProcess() bool { return bool(p) }
