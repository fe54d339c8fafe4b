package memory

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/kgmem/kgmem"
)

// eventCandidates is how many facts full-text search proposes when dating
// an event named in a question.
const eventCandidates = 5

// endsSomething reports words that name the end of a state ("leaving
// Oslo", "after she quit"): such an event is dated by the end of the fact
// it matches, not its start.
func endsSomething(w string) bool {
	switch w {
	case "leave", "leaves", "leaving", "left", "quit", "quits", "quitting", "end", "ended", "ending", "stop",
		"stopped", "stopping", "retire", "retired", "retiring", "finish", "finished", "finishing":
		return true
	}
	return false
}

// eventTime dates an event a question names ("before she moved to
// Berlin"): the start (valid_at) of the best-matching fact that has one —
// its end (invalid_at) when the event ends something ("after leaving
// Oslo") — else the time of the best-matching message. ok is false when
// nothing in the namespace matches.
func (e *Engine) eventTime(ctx context.Context, ns kgmem.Namespace, keywords []string, asOf time.Time) (time.Time, bool, error) {
	ending := false
	var content []string
	for _, w := range keywords {
		if endsSomething(w) {
			ending = true
			continue
		}
		content = append(content, w)
	}
	if len(content) == 0 {
		content = keywords
	}
	text := strings.Join(content, " ")
	hits, err := e.graph.SearchText(ctx, ns, kgmem.TextQuery{Text: text, Kinds: []kgmem.Kind{kgmem.KindFact}, IncludeExpired: true, Limit: eventCandidates})
	if err != nil {
		return time.Time{}, false, fmt.Errorf("date the event %q: %w", text, err)
	}
	if len(hits) > 0 {
		ids := make([]string, len(hits))
		for i, h := range hits {
			ids[i] = h.ID
		}
		facts, err := e.graph.Facts(ctx, ns, ids)
		if err != nil {
			return time.Time{}, false, fmt.Errorf("date the event %q: %w", text, err)
		}
		for _, f := range facts { // in hit order
			at := f.ValidAt
			if ending {
				at = f.InvalidAt
			}
			if !at.IsZero() && (asOf.IsZero() || !at.After(asOf)) {
				return at, true, nil
			}
		}
	}
	hits, err = e.graph.SearchText(ctx, ns, kgmem.TextQuery{Text: text, Kinds: []kgmem.Kind{kgmem.KindEpisode}, Limit: 1})
	if err != nil || len(hits) == 0 {
		return time.Time{}, false, err
	}
	eps, err := e.graph.Episodes(ctx, ns, []string{hits[0].ID})
	if err != nil || len(eps) == 0 || eps[0].Timestamp.IsZero() {
		return time.Time{}, false, err
	}
	return eps[0].Timestamp, true, nil
}
