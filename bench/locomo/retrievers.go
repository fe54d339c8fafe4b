package locomo

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"golang.org/x/sync/errgroup"
)

// RetrieverLimit is how many episodes the per-retriever pass asks for: enough
// that every episode a single retriever ranks in its top 10 is returned.
const RetrieverLimit = 100

// scoreSources is the part of a result's score breakdown the per-retriever pass reads.
type scoreSources struct {
	Sources []struct {
		Retriever string `json:"retriever"`
		Rank      int    `json:"rank"`
	} `json:"sources"`
}

// RetrieverRankings orders the returned episodes by each retriever's own rank,
// read from their score breakdowns: what that retriever alone would have
// returned. Episodes a retriever did not find are left out of its list.
func RetrieverRankings(eps []SearchEpisode) (map[string][]string, error) {
	type ranked struct {
		rank int
		id   string
	}
	byRetriever := map[string][]ranked{}
	for _, ep := range eps {
		var s scoreSources
		if err := json.Unmarshal(ep.Score, &s); err != nil {
			return nil, fmt.Errorf("score of %s: %w", ep.MessageID, err)
		}
		for _, src := range s.Sources {
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
	return out, nil
}

// retrieverRecall asks every question again with RetrieverLimit results and
// scores each retriever's own ranking.
func retrieverRecall(ctx context.Context, client *Client, cases []Case, cfg Config) (map[string]RecallTable, error) {
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
			out, err := client.Search(gctx, SearchRequest{Namespace: string(ns), Query: c.Text, Limit: RetrieverLimit, Include: []string{"episodes"}, Reinforce: &noReinforce})
			if err != nil {
				return fmt.Errorf("per-retriever search %s question %d: %w", ns, c.Question, err)
			}
			rankings[i], err = RetrieverRankings(out.Episodes)
			return err
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
