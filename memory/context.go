package memory

import (
	"fmt"
	"strings"
	"time"
)

// RenderContext renders search results as a prompt-ready block: current facts
// with their dates, then the supporting messages with speaker and date.
//
//	# Facts
//	- Bob leads the ML team. (since 2024-03-01)
//	- Alice manages the ML team. (2023-01-10 – 2024-03-01, no longer true)
//	# Messages
//	- [2024-03-01 09:30] Bob: I now lead the ML team.
func RenderContext(res SearchResult) string {
	var b strings.Builder
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
	return b.String()
}

func factDates(f FactView) string {
	day := func(t time.Time) string { return t.UTC().Format("2006-01-02") }
	switch {
	case f.Status == "current" && !f.ValidAt.IsZero():
		return " (since " + day(f.ValidAt) + ")"
	case f.Status == "current":
		return ""
	case !f.ValidAt.IsZero() && !f.InvalidAt.IsZero():
		return " (" + day(f.ValidAt) + " – " + day(f.InvalidAt) + ", no longer true)"
	case !f.InvalidAt.IsZero():
		return " (until " + day(f.InvalidAt) + ", no longer true)"
	}
	return " (no longer true)"
}
