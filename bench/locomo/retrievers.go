package locomo

import (
	"context"
	"fmt"
	"slices"

	"github.com/kgmem/kgmem/api/wire"
	kgclient "github.com/kgmem/kgmem/client"
	"golang.org/x/sync/errgroup"
)

// RetrieverLimit is how many episodes the per-retriever pass asks for: enough
// that every episode a single retriever ranks in its top 10 is returned.
const RetrieverLimit = 100

// RetrieverRankings orders the returned episodes by each retriever's own rank,
// read from their score breakdowns: what that retriever alone would have
// returned. Episodes a retriever did not find are left out of its list.
func RetrieverRankings(eps []wire.EpisodeResult) map[string][]string {
	type ranked struct {
		rank int
		id   string
	}
	byRetriever := map[string][]ranked{}
	for _, ep := range eps {
		for _, src := range ep.Score.Sources {
			byRetriever[src.Retriever] = append(byRetriever[src.Retriever], ranked{src.Rank, ep.MessageID})
		}
	}
	out := make(map[string][]string, len(byRetriever))
	for name, list := range byRetriever {
		slices.SortFunc(list, func(a, b ranked) int { return a.rank - b.rank })
		for _, r := range list {
			out[name] = append(out[name], r.id)
		}
	}
	return out
}

// retrieverRecall asks every question again with RetrieverLimit results and
// scores each retriever's own ranking.
func retrieverRecall(ctx context.Context, client *kgclient.Client, cases []Case, cfg Config) (map[string]RecallTable, error) {
	rankings := make([]map[string][]string, len(cases))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(cfg.Concurrency)
	noReinforce := false
	for i, c := range cases {
		ns, err := Namespace(c.Conversation)
		if err != nil {
			return nil, err
		}
		g.Go(func() error {
			out, err := client.Search(gctx, wire.SearchRequest{Namespace: ns, Query: c.Text, Limit: RetrieverLimit, Include: []string{"episodes"}, Reinforce: &noReinforce})
			if err != nil {
				return fmt.Errorf("per-retriever search %s question %d: %w", ns, c.Question, err)
			}
			rankings[i] = RetrieverRankings(out.Episodes)
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	// Every question counts for every retriever: one that found nothing for a
	// question scores 0 there.
	accs := map[string]*RecallAccumulator{}
	for _, r := range rankings {
		for name := range r {
			if accs[name] != nil {
				continue
			}
			acc, err := NewRecallAccumulator(cfg.Ks)
			if err != nil {
				return nil, err
			}
			accs[name] = acc
		}
	}
	for i, c := range cases {
		for name, acc := range accs {
			acc.Add(c.Category, rankings[i][name], c.Evidence)
		}
	}
	out := make(map[string]RecallTable, len(accs))
	for name, acc := range accs {
		out[name] = acc.Table()
	}
	return out, nil
}
