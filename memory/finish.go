package memory

import (
	"context"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/decay"
)

// finish completes a search's final results: provenance and the result
// graph (loaded at once: both start from the final facts and neither changes
// what the other reads), the context block, the metrics, and, when asked,
// reinforcement of what was returned (off the request path).
func (e *Engine) finish(ctx context.Context, st *searchState) error {
	res := &st.res
	var provenance [][]kgmem.Episode
	g := st.fanOut()
	g.Go(func() (err error) {
		provenance, err = e.provenance(ctx, st.req.Namespace, res.Facts)
		return err
	})
	g.Go(func() (err error) {
		res.Graph, err = e.resultGraph(ctx, st.req, res.Facts, res.Entities)
		return err
	})
	if err := g.Wait(); err != nil {
		return err
	}
	for i := range res.Facts {
		res.Facts[i].Provenance = provenance[i]
	}
	res.Context = RenderContext(*res)
	e.metrics.searches.Inc()
	if len(res.Warnings) > 0 {
		e.metrics.degraded.Inc()
	}
	if st.req.Reinforce {
		e.reinforce(ctx, st.req.Namespace, resultRefs(*res))
	}
	return nil
}

// resultRefs names every returned record, for reinforcement.
func resultRefs(res SearchResult) []decay.Ref {
	refs := make([]decay.Ref, 0, len(res.Facts)+len(res.Episodes)+len(res.Entities)+len(res.Items))
	for _, f := range res.Facts {
		refs = append(refs, decay.Ref{Kind: kgmem.KindFact, ID: f.ID})
	}
	for _, ep := range res.Episodes {
		refs = append(refs, decay.Ref{Kind: kgmem.KindEpisode, ID: ep.ID})
	}
	for _, ent := range res.Entities {
		refs = append(refs, decay.Ref{Kind: kgmem.KindEntity, ID: ent.ID})
	}
	for _, it := range res.Items {
		refs = append(refs, decay.Ref{Kind: kgmem.KindItem, ID: it.ID})
	}
	return refs
}
