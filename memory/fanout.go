package memory

import (
	"runtime"

	"golang.org/x/sync/errgroup"
)

// fanOut runs the independent parts of a search stage (a phase's
// retrievers, a retriever's kinds, the kinds hydrate loads): each in a
// goroutine of its own, or, with Config.InlineWhenBusy, one after another
// in the calling goroutine once at least as many searches are in flight as
// the process has cores (GOMAXPROCS). Parts that spend CPU (in-process
// backends) cannot run in parallel under that load anyway: a goroutine
// each only adds its creation and a wait in the scheduler's run queue,
// behind every other request's goroutines, to each stage of the search.
// Parts that wait on a network overlap their waits whatever the load, so
// they always fan out.
//
// Like an errgroup.Group without a context, it runs every part and Wait
// returns the first error.
type fanOut struct {
	inline bool
	g      errgroup.Group
	err    error
}

// fanOut starts a stage's fan-out.
func (e *Engine) fanOut() *fanOut {
	return &fanOut{inline: e.inlineWhenBusy && e.searching.Load() >= int64(runtime.GOMAXPROCS(0))}
}

// Go runs task, at once or in a goroutine of its own.
func (f *fanOut) Go(task func() error) {
	if !f.inline {
		f.g.Go(task)
		return
	}
	if err := task(); err != nil && f.err == nil {
		f.err = err
	}
}

// Wait waits for every task and returns the first error.
func (f *fanOut) Wait() error {
	if f.inline {
		return f.err
	}
	return f.g.Wait()
}
