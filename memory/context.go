package memory

import (
	"fmt"
	"strings"
	"time"

	"github.com/kgmem/kgmem"
)

// RenderContext renders search results as a prompt-ready block: current facts
// with their dates, the entities, the supporting messages with speaker and
// date, then the items' texts with the day they were last written.
//
//	# Facts
//	- Bob leads the ML team. (since 2024-03-01)
//	- Alice manages the ML team. (2023-01-10 – 2024-03-01, no longer true)
//	# Messages
//	- [2024-03-01 09:30] Bob: I now lead the ML team.
//	# Memories
//	- [2024-03-02] Bob prefers short answers.
func RenderContext(res SearchResult) string {
	var b strings.Builder
	b.Grow(contextSize(res))
	if len(res.Facts) > 0 {
		b.WriteString("# Facts\n")
		for _, f := range res.Facts {
			fmt.Fprintf(&b, "- %s%s\n", f.Text, factDates(f.FactView))
		}
	}
	if len(res.Entities) > 0 {
		b.WriteString("# Entities\n")
		for _, ent := range res.Entities {
			fmt.Fprintf(&b, "- %s (%s)", ent.Name, ent.Type)
			if len(ent.Aliases) > 0 {
				fmt.Fprintf(&b, ", also known as %s", strings.Join(ent.Aliases, ", "))
			}
			b.WriteString("\n")
		}
	}
	if len(res.Episodes) > 0 {
		b.WriteString("# Messages\n")
		for _, ep := range res.Episodes {
			fmt.Fprintf(&b, "- [%s] %s\n", ep.Timestamp.UTC().Format("2006-01-02 15:04"), EpisodeText(ep.Episode))
		}
	}
	if len(res.Items) > 0 {
		b.WriteString("# Memories\n")
		for _, it := range res.Items {
			fmt.Fprintf(&b, "- [%s] %s\n", it.UpdatedAt.UTC().Format("2006-01-02"), strings.ReplaceAll(it.Text, "\n", "; "))
		}
	}
	return b.String()
}

// contextSize is about the length of RenderContext(res), a little more
// rather than less: the block is written once into a buffer of that size
// instead of through the builder's doublings.
func contextSize(res SearchResult) int {
	const line = 48 // a line's fixed parts: "- [2006-01-02 15:04] ", a fact's dates
	n := 64         // the headings
	for _, f := range res.Facts {
		n += line + len(f.Text)
	}
	for _, ent := range res.Entities {
		n += line + len(ent.Name) + len(ent.Type)
		for _, a := range ent.Aliases {
			n += len(a) + 2
		}
	}
	for _, ep := range res.Episodes {
		n += line + len(ep.Name) + len(ep.Content)
	}
	for _, it := range res.Items {
		n += line + len(it.Text)
	}
	return n
}

// factDates renders a fact's validity and status for the context block, one
// wording per kgmem.FactStatus:
//
//	current      (since 2024-03-01) — nothing when the start is unknown
//	upcoming     (from 2027-01-01, not yet true)
//	ended        (2023-01-10 – 2024-03-01, ended)
//	invalidated  (2023-01-10 – 2024-03-01, no longer true)
func factDates(f FactView) string {
	day := func(t time.Time) string { return t.UTC().Format("2006-01-02") }
	span := func() string {
		switch {
		case !f.ValidAt.IsZero() && !f.InvalidAt.IsZero():
			return day(f.ValidAt) + " – " + day(f.InvalidAt) + ", "
		case !f.InvalidAt.IsZero():
			return "until " + day(f.InvalidAt) + ", "
		case !f.ValidAt.IsZero():
			return "since " + day(f.ValidAt) + ", "
		}
		return ""
	}
	switch f.Status {
	case kgmem.FactCurrent:
		if f.ValidAt.IsZero() {
			return ""
		}
		return " (since " + day(f.ValidAt) + ")"
	case kgmem.FactUpcoming:
		return " (from " + day(f.ValidAt) + ", not yet true)"
	case kgmem.FactEnded:
		return " (" + span() + "ended)"
	}
	return " (" + span() + "no longer true)"
}
