package nscache

import (
	"context"
	"errors"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// loader counts its calls and returns the view it is told to.
type loader struct {
	calls atomic.Int32
}

func (l *loader) load(value string, version int64, size int, err error) func(context.Context) (Loaded[string], error) {
	return func(context.Context) (Loaded[string], error) {
		l.calls.Add(1)
		return Loaded[string]{Value: value, Version: version, Size: size}, err
	}
}

func TestGet(t *testing.T) {
	ctx := context.Background()
	errRead := errors.New("read failed")
	type step struct {
		key     string
		version int64
		loadAs  string // value the load returns
		size    int
		loadErr error
		want    string
		wantOK  bool
		wantErr error
		loads   int32 // loads so far, after this step
	}
	tests := []struct {
		name   string
		budget int
		steps  []step
		grows  bool // VersionsGrow
	}{
		{"same version is served from memory", 10, []step{
			{key: "a", version: 1, loadAs: "a1", size: 1, want: "a1", wantOK: true, loads: 1},
			{key: "a", version: 1, loadAs: "never", size: 1, want: "a1", wantOK: true, loads: 1},
		}, false},
		{"another version (a token) is read again", 10, []step{
			{key: "a", version: 1, loadAs: "a1", size: 1, want: "a1", wantOK: true, loads: 1},
			{key: "a", version: 2, loadAs: "a2", size: 1, want: "a2", wantOK: true, loads: 2},
			{key: "a", version: 2, loadAs: "never", size: 1, want: "a2", wantOK: true, loads: 2},
			{key: "a", version: 1, loadAs: "a1 again", size: 1, want: "a1 again", wantOK: true, loads: 3},
		}, false},
		{"versions that grow: a newer one is read again, an older one served the newer view", 10, []step{
			{key: "a", version: 1, loadAs: "a1", size: 1, want: "a1", wantOK: true, loads: 1},
			{key: "a", version: 2, loadAs: "a2", size: 1, want: "a2", wantOK: true, loads: 2},
			{key: "a", version: 2, loadAs: "never", size: 1, want: "a2", wantOK: true, loads: 2},
			{key: "a", version: 1, loadAs: "never", size: 1, want: "a2", wantOK: true, loads: 2},
		}, true},
		{"versions that grow: version 0 (never written, or purged) is not served a newer view", 10, []step{
			{key: "a", version: 2, loadAs: "a2", size: 1, want: "a2", wantOK: true, loads: 1},
			{key: "a", version: 0, loadAs: "a0", size: 1, want: "a0", wantOK: true, loads: 2},
			{key: "a", version: 0, loadAs: "never", size: 1, want: "a0", wantOK: true, loads: 2},
		}, true},
		{"too large is not cached, and not read again at its version", 10, []step{
			{key: "a", version: 1, loadErr: ErrTooLarge, wantOK: false, loads: 1},
			{key: "a", version: 1, loadErr: ErrTooLarge, wantOK: false, loads: 1},
			{key: "a", version: 2, loadErr: ErrTooLarge, wantOK: false, loads: 2},
			{key: "b", version: 1, loadAs: "b1", size: 11, wantOK: false, loads: 3},
			{key: "b", version: 1, loadAs: "b1", size: 10, wantOK: false, loads: 3},
			{key: "b", version: 2, loadAs: "b2", size: 10, want: "b2", wantOK: true, loads: 4},
			{key: "b", version: 2, want: "b2", wantOK: true, loads: 4},
		}, false},
		{"errors are returned and not cached", 10, []step{
			{key: "a", version: 1, loadErr: errRead, wantErr: errRead, loads: 1},
			{key: "a", version: 1, loadAs: "a1", size: 1, want: "a1", wantOK: true, loads: 2},
		}, false},
		{"least recently used goes first", 5, []step{
			{key: "a", version: 1, loadAs: "a1", size: 2, want: "a1", wantOK: true, loads: 1},
			{key: "b", version: 1, loadAs: "b1", size: 2, want: "b1", wantOK: true, loads: 2},
			{key: "a", version: 1, want: "a1", wantOK: true, loads: 2}, // a is now the most recent
			{key: "c", version: 1, loadAs: "c1", size: 2, want: "c1", wantOK: true, loads: 3},
			{key: "a", version: 1, want: "a1", wantOK: true, loads: 3},
			{key: "b", version: 1, loadAs: "b1 again", size: 2, want: "b1 again", wantOK: true, loads: 4},
		}, false},
		{"a load may be newer than asked", 10, []step{
			{key: "a", version: 1, loadAs: "a2", size: 1, want: "a2", wantOK: true, loads: 1},
			{key: "a", version: 2, want: "a2", wantOK: true, loads: 1},
			{key: "a", version: 1, want: "a2", wantOK: true, loads: 1},
		}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var opts []Option
			if tt.grows {
				opts = append(opts, VersionsGrow())
			}
			c := New[string](tt.budget, tt.budget, opts...) // every view small: loads while the caller waits
			var l loader
			for i, s := range tt.steps {
				version := s.version
				if s.loadAs == "a2" {
					version = 2
				}
				got, ok, err := c.Get(ctx, s.key, s.version, l.load(s.loadAs, version, s.size, s.loadErr))
				if !errors.Is(err, s.wantErr) || ok != s.wantOK || (ok && got != s.want) {
					t.Fatalf("step %d: Get(%q, %d) = %q, %v, %v; want %q, %v, %v", i, s.key, s.version, got, ok, err, s.want, s.wantOK, s.wantErr)
				}
				if n := l.calls.Load(); n != s.loads {
					t.Fatalf("step %d: %d loads, want %d", i, n, s.loads)
				}
				if units, _ := c.Held(); units > tt.budget {
					t.Fatalf("step %d: %d units held over a budget of %d", i, units, tt.budget)
				}
			}
		})
	}
}

// TestConcurrentGetsLoadOnce checks that callers asking for one key at one
// version share one load, and that a caller whose context is cancelled does
// not fail the load the others wait on.
func TestConcurrentGetsLoadOnce(t *testing.T) {
	c := New[string](10, 10)
	var calls atomic.Int32
	release := make(chan struct{})
	started := make(chan struct{})
	load := func(ctx context.Context) (Loaded[string], error) {
		if calls.Add(1) == 1 {
			close(started)
		}
		<-release
		if err := ctx.Err(); err != nil {
			return Loaded[string]{}, err
		}
		return Loaded[string]{Value: "v", Version: 7, Size: 1}, nil
	}
	cancelled, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	results := make([]string, 8)
	errs := make([]error, 8)
	for i := range results {
		ctx := context.Background()
		if i == 0 {
			ctx = cancelled
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i], _, errs[i] = c.Get(ctx, "k", 7, load)
		}()
	}
	<-started
	cancel()
	close(release)
	wg.Wait()
	for i := range results {
		if errs[i] != nil || results[i] != "v" {
			t.Errorf("caller %d: %q, %v; want \"v\", nil", i, results[i], errs[i])
		}
	}
	// Callers that arrived after the shared load finished are served from
	// the cache; none may have loaded again.
	if n := calls.Load(); n != 1 {
		t.Errorf("%d loads, want 1", n)
	}
}

// TestStaleLargeViewRefreshesInBackground checks that a stale view larger
// than refreshAbove is not waited for: Get reports a miss at once (the caller
// reads the store) while one background load runs, and serves the new view
// once it is in.
func TestStaleLargeViewRefreshesInBackground(t *testing.T) {
	ctx := context.Background()
	c := New[string](100, 5)
	var calls atomic.Int32
	release := make(chan struct{})
	loaded := make(chan struct{})
	load := func(value string, version int64, size int, wait bool) func(context.Context) (Loaded[string], error) {
		return func(context.Context) (Loaded[string], error) {
			calls.Add(1)
			if wait {
				<-release
				defer close(loaded)
			}
			return Loaded[string]{Value: value, Version: version, Size: size}, nil
		}
	}
	if got, ok, err := c.Get(ctx, "big", 1, load("v1", 1, 10, false)); !ok || err != nil || got != "v1" {
		t.Fatalf("first Get = %q, %v, %v; want a load while waiting", got, ok, err)
	}
	// Version 2: the cached view is stale and large.
	for i := range 3 {
		if got, ok, err := c.Get(ctx, "big", 2, load("v2", 2, 10, true)); ok || err != nil {
			t.Fatalf("stale Get %d = %q, %v, %v; want a miss at once", i, got, ok, err)
		}
	}
	close(release)
	<-loaded
	deadline := time.Now().Add(10 * time.Second)
	for {
		got, ok, err := c.Get(ctx, "big", 2, load("never", 2, 10, false))
		if err != nil {
			t.Fatal(err)
		}
		if ok {
			if got != "v2" {
				t.Fatalf("after the refresh: %q, want v2", got)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the background refresh never landed")
		}
		runtime.Gosched()
	}
	if n := calls.Load(); n != 2 {
		t.Errorf("%d loads, want 2 (one per version; the three stale Gets share one refresh)", n)
	}
	// A small stale view is loaded while the caller waits.
	c.Get(ctx, "small", 1, load("s1", 1, 5, false))
	if got, ok, _ := c.Get(ctx, "small", 2, load("s2", 2, 5, false)); !ok || got != "s2" {
		t.Errorf("small stale Get = %q, %v; want s2 loaded at once", got, ok)
	}
}

func TestAdvance(t *testing.T) {
	ctx := context.Background()
	var l loader
	c := New[string](100, 100)
	upper := func(v string, _ int) (string, int) { return v + "+", len(v) + 1 }
	if c.Advance("k", 1, 2, upper) {
		t.Error("advanced a view that is not cached")
	}
	if _, _, err := c.Get(ctx, "k", 1, l.load("v1", 1, 2, nil)); err != nil {
		t.Fatal(err)
	}
	if c.Advance("k", 5, 6, upper) {
		t.Error("advanced a view cached at another version")
	}
	if !c.Advance("k", 1, 2, upper) {
		t.Fatal("did not advance the view cached at from")
	}
	got, ok, err := c.Get(ctx, "k", 2, l.load("reloaded", 2, 8, nil))
	if err != nil || !ok || got != "v1+" || l.calls.Load() != 1 {
		t.Errorf("Get at the advanced version = %q, %v, %v after %d loads; want the derived view, no load", got, ok, err, l.calls.Load())
	}
	if units, _ := c.Held(); units != 3 {
		t.Errorf("held %d units, want the derived view's 3", units)
	}
	if c.Advance("k", 2, 3, func(v string, _ int) (string, int) { return v, 1000 }) {
		t.Error("advanced to a view larger than the budget")
	}
	// A key too large to hold stays so through the writes advanced over,
	// and is read again at a version reached otherwise.
	if _, ok, _ := c.Get(ctx, "big", 1, l.load("", 1, 0, ErrTooLarge)); ok {
		t.Fatal("a view too large to hold was held")
	}
	loads := l.calls.Load()
	c.Advance("big", 1, 2, upper)
	if _, ok, _ := c.Get(ctx, "big", 2, l.load("", 2, 0, ErrTooLarge)); ok || l.calls.Load() != loads {
		t.Errorf("Get of a too-large key at the version advanced to: ok %v after %d more loads; want none", ok, l.calls.Load()-loads)
	}
	if got, ok, _ := c.Get(ctx, "big", 7, l.load("small now", 7, 1, nil)); !ok || got != "small now" || l.calls.Load() != loads+1 {
		t.Errorf("Get of a too-large key at another version = %q, %v after %d more loads; want it read again", got, ok, l.calls.Load()-loads)
	}
	// A view put while update ran wins: update's result is dropped.
	c.Advance("k", 2, 3, func(v string, _ int) (string, int) {
		c.put("k", Loaded[string]{Value: "newer", Version: 9, Size: 1})
		return v + "!", 1
	})
	if got, ok, _ := c.Get(ctx, "k", 9, l.load("x", 9, 1, nil)); !ok || got != "newer" {
		t.Errorf("after a concurrent put: %q, %v; want the put view", got, ok)
	}
}

// TestDrop checks that Drop forgets a key's view and its mark of too
// large, returning the view's units, and leaves other keys alone: the next
// Get of the key loads again.
func TestDrop(t *testing.T) {
	ctx := context.Background()
	c := New[string](10, 100, VersionsGrow())
	var l loader
	for _, key := range []string{"a", "b"} {
		if _, ok, err := c.Get(ctx, key, 1, l.load(key+"1", 1, 3, nil)); !ok || err != nil {
			t.Fatalf("Get %s: %v, %v", key, ok, err)
		}
	}
	if _, ok, _ := c.Get(ctx, "big", 1, l.load("", 1, 0, ErrTooLarge)); ok {
		t.Fatal("a view too large was served")
	}
	c.Drop("a")
	c.Drop("big")
	c.Drop("never held")
	if units, views := c.Held(); units != 3 || views != 1 {
		t.Errorf("after Drop: %d units in %d views, want 3 in 1", units, views)
	}
	if v, ok, _ := c.Get(ctx, "b", 1, l.load("never", 1, 3, nil)); !ok || v != "b1" {
		t.Errorf("b after dropping a: %q, %v; want b1 from memory", v, ok)
	}
	before := l.calls.Load()
	if v, ok, _ := c.Get(ctx, "a", 1, l.load("a1 again", 1, 3, nil)); !ok || v != "a1 again" {
		t.Errorf("a after Drop: %q, %v; want it loaded again", v, ok)
	}
	c.Get(ctx, "big", 1, l.load("", 1, 0, ErrTooLarge))
	if got := l.calls.Load() - before; got != 2 {
		t.Errorf("%d loads after Drop, want 2 (a, and big whose mark went)", got)
	}
}

// TestSeed: a seeded view serves at its version without a load; a key that
// holds a view, or a view over the budget, is not seeded; a seed clears a
// mark that the key was too large.
func TestSeed(t *testing.T) {
	ctx := t.Context()
	c := New[string](10, 10, VersionsGrow())
	loads := 0
	load := func(context.Context) (Loaded[string], error) {
		loads++
		return Loaded[string]{Value: "read", Version: 3, Size: 1}, nil
	}
	if !c.Seed("a", Loaded[string]{Value: "seeded", Version: 3, Size: 2}) {
		t.Fatal("Seed of an empty key refused")
	}
	if v, ok, err := c.Get(ctx, "a", 3, load); err != nil || !ok || v != "seeded" || loads != 0 {
		t.Fatalf("Get = %q %v %v after %d loads, want the seeded view without a load", v, ok, err, loads)
	}
	if c.Seed("a", Loaded[string]{Value: "again", Version: 4, Size: 2}) {
		t.Error("Seed replaced a cached view")
	}
	if c.Seed("b", Loaded[string]{Value: "huge", Version: 1, Size: 11}) {
		t.Error("Seed took a view over the whole budget")
	}
	tooLarge := func(context.Context) (Loaded[string], error) { return Loaded[string]{}, ErrTooLarge }
	if _, ok, _ := c.Get(ctx, "c", 5, tooLarge); ok {
		t.Fatal("a view too large was cached")
	}
	if !c.Seed("c", Loaded[string]{Value: "small now", Version: 6, Size: 1}) {
		t.Fatal("Seed refused a key marked too large at an older version")
	}
	if v, ok, _ := c.Get(ctx, "c", 6, tooLarge); !ok || v != "small now" {
		t.Errorf("Get after the seed = %q %v, want the seeded view", v, ok)
	}
}
