package memory

import (
	"context"
	"slices"

	"github.com/kgmem/kgmem"
)

// vectorAhead is a search's vector recall started before the namespace's
// settings are read, with the recipe the namespace uses unless its
// settings name another: the request's, else the server's default. The
// settings read (a round trip to the graph store) and the vector search (a
// round trip to the vector index) then overlap instead of following each
// other. When the settings name a recipe that asks the vector index
// something else (other kinds or another candidate count), the answer is
// dropped and the vector retriever asks again; nothing of the graph store
// is spent on the guess.
type vectorAhead struct {
	include []kgmem.Kind
	k       int
	done    chan struct{}
	hits    []kgmem.Hit
	err     error
	cancel  context.CancelFunc
}

// searchVectorsAhead starts the vector recall req most likely runs, under
// the per-retriever deadline; nil when that recipe has no vector recall,
// the request names no valid recipe (Search reports that), or the search
// runs its parts inline (fanOut: the process's cores are busy with
// in-process stores, and a goroutine would only wait for one).
func (e *Engine) searchVectorsAhead(ctx context.Context, req SearchRequest, inline bool) *vectorAhead {
	if inline {
		return nil
	}
	guess, err := e.searchRecipe(SearchRequest{Recipe: req.Recipe, Namespace: req.Namespace}, kgmem.NamespaceSettings{})
	if err != nil {
		return nil
	}
	opts := guess.apply(e.search)
	if opts.VectorWeight <= 0 {
		return nil
	}
	include := req.Include
	if len(include) == 0 {
		include = guess.kinds()
	}
	a := &vectorAhead{include: include, k: req.Limit * opts.Candidates, done: make(chan struct{})}
	actx, cancel := context.WithTimeout(ctx, opts.RetrieverTimeout)
	a.cancel = cancel
	go func() {
		defer close(a.done)
		a.hits, a.err = e.searchVectors(actx, false, req.Namespace, req.Query, include, a.k)
	}()
	return a
}

// answer waits for the search started ahead and returns its answer, when it
// asked for include and k (ok); otherwise it stops it and ok is false.
func (a *vectorAhead) answer(ctx context.Context, include []kgmem.Kind, k int) (hits []kgmem.Hit, ok bool, err error) {
	if a == nil {
		return nil, false, nil
	}
	if a.k != k || !slices.Equal(a.include, include) {
		a.cancel()
		return nil, false, nil
	}
	select {
	case <-a.done:
		return a.hits, true, a.err
	case <-ctx.Done():
		return nil, true, ctx.Err()
	}
}

// stop releases the search started ahead (its answer is no longer wanted).
func (a *vectorAhead) stop() {
	if a != nil {
		a.cancel()
	}
}
