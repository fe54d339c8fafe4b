package memory

import (
	"errors"
	"reflect"
	"runtime"
	"testing"
	"time"
)

// TestFanOut checks both ways a stage's parts run: in goroutines of their
// own while fewer searches than cores are in flight, or always without
// InlineWhenBusy (a part waiting for a later one finishes), in the calling
// goroutine once as many are (each part has run when Go returns). Either
// way every part runs and Wait returns the first part's error.
func TestFanOut(t *testing.T) {
	errFirst, errSecond := errors.New("first"), errors.New("second")
	cores := int64(runtime.GOMAXPROCS(0))
	for _, tc := range []struct {
		name           string
		inlineWhenBusy bool
		searching      int64
		inline         bool
	}{
		{"idle", true, 0, false},
		{"one search per core but one", true, cores - 1, false},
		{"one search per core", true, cores, true},
		{"more searches than cores", true, cores + 5, true},
		{"network backends, more searches than cores", false, cores + 5, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := &Engine{inlineWhenBusy: tc.inlineWhenBusy}
			e.searching.Store(tc.searching)
			g := (&searchState{inline: e.busy()}).fanOut()
			if g.inline != tc.inline {
				t.Fatalf("inline = %v with %d searches in flight and %d cores, want %v", g.inline, tc.searching, cores, tc.inline)
			}
			ran := make([]bool, 3)
			if tc.inline {
				for i, err := range []error{nil, errFirst, errSecond} {
					g.Go(func() error { ran[i] = true; return err })
					if !ran[i] {
						t.Fatalf("part %d had not run when Go returned", i)
					}
				}
			} else {
				// The first part finishes only once the second has started:
				// run one after another, it would wait out its deadline.
				started := make(chan struct{})
				g.Go(func() error {
					select {
					case <-started:
						ran[0] = true
						return nil
					case <-time.After(time.Minute):
						return errors.New("the second part never started")
					}
				})
				g.Go(func() error { close(started); ran[1] = true; return errFirst })
				g.Go(func() error { ran[2] = true; return nil })
			}
			if err := g.Wait(); !errors.Is(err, errFirst) {
				t.Errorf("Wait = %v, want %v", err, errFirst)
			}
			for i, r := range ran {
				if !r {
					t.Errorf("part %d did not run", i)
				}
			}
		})
	}
}

// TestSearchInlineAnswersAsFannedOut runs the same searches with their
// stages fanned out (nothing else in flight) and run inline (as many
// searches in flight as cores), and wants the same answers, and the
// in-flight count back where it was after each.
func TestSearchInlineAnswersAsFannedOut(t *testing.T) {
	e, _, ns := newSmallEngine(t)
	e.clock = frozenClock(e.now()) // both runs weigh decay at one instant
	e.inlineWhenBusy = true
	busy := int64(runtime.GOMAXPROCS(0))
	for _, q := range []string{"What did Ann research?", "Falcon rocket", "bread", "Ben adoption agencies last week"} {
		var answers [2]SearchResult
		for i, inFlight := range []int64{0, busy} {
			e.searching.Store(inFlight)
			res, err := e.Search(t.Context(), SearchRequest{Namespace: ns, Query: q, Limit: 5})
			if err != nil {
				t.Fatalf("%q with %d in flight: %v", q, inFlight, err)
			}
			if n := e.searching.Load(); n != inFlight {
				t.Errorf("%q: %d searches in flight after it returned, want %d", q, n, inFlight)
			}
			answers[i] = res
		}
		if len(answers[0].Episodes)+len(answers[0].Facts) == 0 {
			t.Errorf("%q found nothing", q)
		}
		if !reflect.DeepEqual(answers[0], answers[1]) {
			t.Errorf("%q: inline answer differs\nfanned out: %+v\ninline:     %+v", q, answers[0], answers[1])
		}
	}
}

// frozenClock always tells the same time.
type frozenClock time.Time

// Now implements kgmem.Clock.
func (c frozenClock) Now() time.Time { return time.Time(c) }
