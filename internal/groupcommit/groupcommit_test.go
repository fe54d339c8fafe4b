package groupcommit

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/kgmem/kgmem/internal/polltest"
)

// TestGroupsWhatQueuedMeanwhile: while one group commits, the writers that
// arrive queue, and the next commits take them in order, at most limit at
// a time; every writer gets its own outcome.
func TestGroupsWhatQueuedMeanwhile(t *testing.T) {
	release := make(chan struct{})
	var mu sync.Mutex
	var groups [][]int
	q := New(4, func(group []*Request[int]) {
		if group[0].Item == 0 {
			<-release // the first group holds the writer while the others queue
		}
		mu.Lock()
		defer mu.Unlock()
		var items []int
		for _, r := range group {
			items = append(items, r.Item)
			if r.Item%3 == 0 {
				r.Err = fmt.Errorf("item %d: %w", r.Item, errOdd)
			}
		}
		groups = append(groups, items)
	})
	errs := make([]error, 10)
	var wg sync.WaitGroup
	wg.Go(func() { errs[0] = q.Do(t.Context(), 0) })
	polltest.Until(t, 10*time.Second, "the first group", func() bool { return q.Stats().Groups == 1 })
	for i := 1; i < 10; i++ {
		polltest.Until(t, 10*time.Second, fmt.Sprintf("request %d to queue", i-1), func() bool { return q.Stats().Queued == i-1 })
		wg.Go(func() { errs[i] = q.Do(t.Context(), i) })
	}
	polltest.Until(t, 10*time.Second, "nine queued requests", func() bool { return q.Stats().Queued == 9 })
	close(release)
	wg.Wait()

	want := [][]int{{0}, {1, 2, 3, 4}, {5, 6, 7, 8}, {9}}
	if !slices.EqualFunc(groups, want, slices.Equal[[]int]) {
		t.Errorf("groups %v, want %v", groups, want)
	}
	for i, err := range errs {
		if wantErr := i%3 == 0; wantErr != errors.Is(err, errOdd) {
			t.Errorf("request %d: error %v", i, err)
		}
	}
	if st := q.Stats(); st != (Stats{Groups: 4, Requests: 10}) {
		t.Errorf("stats %+v", st)
	}
}

var errOdd = errors.New("refused")

// TestWritersThatAreRunnableJoin: on one processor, writers started
// together all reach the queue before the committer takes its first group,
// because it yields first. Without the yield the committer runs as soon as
// the first writer waits and every group holds one request. The scheduler
// looks at its global queue, where the yield puts the committer, every 61st
// turn, so a round may still split; one round in five must group.
func TestWritersThatAreRunnableJoin(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	largest := 0
	for range 5 {
		var mu sync.Mutex
		q := New(64, func(group []*Request[int]) {
			mu.Lock()
			defer mu.Unlock()
			largest = max(largest, len(group))
		})
		var wg sync.WaitGroup
		for i := range 8 {
			wg.Go(func() {
				if err := q.Do(context.Background(), i); err != nil {
					t.Error(err)
				}
			})
		}
		wg.Wait()
		if st := q.Stats(); st.Requests != 8 || st.Queued != 0 {
			t.Fatalf("stats %+v, want 8 requests committed", st)
		}
	}
	if largest < 2 {
		t.Errorf("every group held one request: the committer did not wait for runnable writers")
	}
}

// TestEndedContextWaits: Do waits for its group's commit even once its
// context has ended, and returns what the commit function decided.
func TestEndedContextWaits(t *testing.T) {
	q := New(8, func(group []*Request[string]) {
		for _, r := range group {
			r.Err = r.Ctx.Err()
		}
	})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := q.Do(ctx, "late"); !errors.Is(err, context.Canceled) {
		t.Errorf("error %v, want context.Canceled", err)
	}
	if err := q.Do(context.Background(), "on time"); err != nil {
		t.Errorf("error %v", err)
	}
}
