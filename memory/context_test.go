package memory

import (
	"testing"
	"time"

	"github.com/kgmem/kgmem"
)

// TestRenderContext checks the context block line by line for every kind,
// and that contextSize, the buffer RenderContext starts with, holds it.
func TestRenderContext(t *testing.T) {
	day := func(d int) time.Time { return time.Date(2024, 3, d, 9, 30, 0, 0, time.UTC) }
	fact := func(text string, valid, invalid time.Time, status kgmem.FactStatus) FactResult {
		return FactResult{FactView: FactView{Fact: kgmem.Fact{Text: text, ValidAt: valid, InvalidAt: invalid}, Status: status}}
	}
	tests := []struct {
		name string
		res  SearchResult
		want string
	}{
		{"nothing", SearchResult{}, ""},
		{"every kind", SearchResult{
			Facts: []FactResult{
				fact("Bob leads the ML team", day(1), time.Time{}, kgmem.FactCurrent),
				fact("Bob led the data team", day(1), day(9), kgmem.FactInvalidated),
			},
			Entities: []EntityResult{
				{Entity: kgmem.Entity{Name: "Bob Smith", Type: "Person", Aliases: []string{"Bob", "Bobby"}}},
				{Entity: kgmem.Entity{Name: "ML team", Type: "Organization"}},
			},
			Episodes: []EpisodeResult{
				{Episode: kgmem.Episode{Name: "Caroline", Content: "I went to the adoption agency.", Timestamp: day(2)}},
				{Episode: kgmem.Episode{Content: "No speaker here.", Timestamp: day(3)}},
			},
			Items: []ItemResult{{Item: kgmem.Item{Text: "prefers tea\nno sugar", UpdatedAt: day(4)}}},
		}, "# Facts\n" +
			"- Bob leads the ML team (since 2024-03-01)\n" +
			"- Bob led the data team (2024-03-01 – 2024-03-09, no longer true)\n" +
			"# Entities\n" +
			"- Bob Smith (Person), also known as Bob, Bobby\n" +
			"- ML team (Organization)\n" +
			"# Messages\n" +
			"- [2024-03-02 09:30] Caroline: I went to the adoption agency.\n" +
			"- [2024-03-03 09:30] No speaker here.\n" +
			"# Memories\n" +
			"- [2024-03-04] prefers tea; no sugar\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := RenderContext(tc.res)
			if got != tc.want {
				t.Errorf("RenderContext:\n%s\nwant:\n%s", got, tc.want)
			}
			if n := contextSize(tc.res); n < len(got) {
				t.Errorf("contextSize = %d, under the %d bytes rendered", n, len(got))
			}
		})
	}
}
