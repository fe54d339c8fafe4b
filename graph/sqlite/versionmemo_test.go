package sqlite

import (
	"errors"
	"testing"
)

// TestMemoCommitHandsOnItsError: what runs after a commit learns whether it
// failed (a failed commit must not install the versions it would have
// written) and runs before any other commit can start.
func TestMemoCommitHandsOnItsError(t *testing.T) {
	boom := errors.New("disk full")
	for _, want := range []error{nil, boom} {
		m := newVersionMemo()
		var got error
		ran := false
		err := m.commit(func() error { return want }, func(err error) {
			ran, got = true, err
			if m.commitMu.TryLock() {
				t.Error("after ran outside the commit lock")
				m.commitMu.Unlock()
			}
		})
		if !ran || !errors.Is(got, want) || !errors.Is(err, want) {
			t.Errorf("commit returning %v: after ran %v with %v, commit returned %v", want, ran, got, err)
		}
	}
	var none *versionMemo
	if err := none.commit(func() error { return boom }, func(error) { t.Error("after ran without a memo") }); !errors.Is(err, boom) {
		t.Errorf("nil memo: %v", err)
	}
}
