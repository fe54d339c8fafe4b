package memory

import (
	"runtime"

	"golang.org/x/sync/errgroup"
)

// fanOut runs the independent parts of a search stage (a phase's
// retrievers, a retriever's kinds, the kinds hydrate loads): each in a
// goroutine of its own, or, with Config.InlineWhenBusy, one after another
// in the calling goroutine when the search started with at least as many
// searches in flight as the process has cores (GOMAXPROCS; Engine.busy).
// Parts that spend CPU (in-process backends) cannot run in parallel under
// that load anyway: a goroutine each only adds its creation and a wait in
// the scheduler's run queue, behind every other request's goroutines, to
// each stage of the search.
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

// busy reports whether a search starting now runs its stages' parts
// inline: with InlineWhenBusy, once the searches in flight (itself
// included) reach GOMAXPROCS. A search asks once, at its start: reading
// GOMAXPROCS takes the scheduler's lock.
func (e *Engine) busy() bool {
	return e.inlineWhenBusy && e.searching.Load() >= int64(runtime.GOMAXPROCS(0))
}

// fanOut starts a fan-out of one of the search's stages.
func (st *searchState) fanOut() *fanOut { return &fanOut{inline: st.inline} }

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
