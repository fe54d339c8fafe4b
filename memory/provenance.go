package memory

import (
	"context"
	"fmt"

	"github.com/kgmem/kgmem"
)

// maxProvenance bounds the provenance episodes attached to one fact: its
// most recent ones (a fact restated a hundred times needs not carry them all;
// its Episodes ids list every one).
const maxProvenance = 3

// provenance loads, in one call, the episodes the returned facts were drawn
// from and returns up to maxProvenance of them for each fact, latest first,
// in the order of facts.
func (e *Engine) provenance(ctx context.Context, ns kgmem.Namespace, facts []FactResult) ([][]kgmem.Episode, error) {
	out := make([][]kgmem.Episode, len(facts))
	var ids []string
	seen := map[string]bool{}
	for _, f := range facts {
		for _, id := range f.Episodes {
			if !seen[id] {
				seen[id] = true
				ids = append(ids, id)
			}
		}
	}
	if len(ids) == 0 {
		return out, nil
	}
	eps, err := e.graph.Episodes(ctx, ns, ids)
	if err != nil {
		return nil, fmt.Errorf("load provenance episodes: %w", err)
	}
	byID := make(map[string]kgmem.Episode, len(eps))
	for _, ep := range eps {
		byID[ep.ID] = ep
	}
	for i := range facts {
		var prov []kgmem.Episode
		for j := len(facts[i].Episodes) - 1; j >= 0 && len(prov) < maxProvenance; j-- {
			if ep, ok := byID[facts[i].Episodes[j]]; ok {
				prov = append(prov, ep)
			}
		}
		out[i] = prov
	}
	return out, nil
}
